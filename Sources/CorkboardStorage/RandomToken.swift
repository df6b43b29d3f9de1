/// Random identifiers and keys from the system's secure generator.
public enum RandomToken {
    /// `prefix` followed by `bytes` random bytes in lowercase hex (16 bytes = 128 bits by default).
    public static func make(prefix: String = "", bytes: Int = 16) -> String {
        var generator = SystemRandomNumberGenerator()
        var text = prefix
        for _ in 0..<bytes {
            let byte = UInt8.random(in: 0...255, using: &generator)
            text += byte < 16 ? "0" + String(byte, radix: 16) : String(byte, radix: 16)
        }
        return text
    }
}
