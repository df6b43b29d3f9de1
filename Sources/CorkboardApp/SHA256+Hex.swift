import Crypto

extension SHA256 {
    /// The SHA-256 digest of `bytes` as 64 lower-case hex digits: the name of an uploaded file in
    /// `DATA/files` (content-addressed, so the same image is stored once).
    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(2 * SHA256.byteCount)
        for byte in SHA256.hash(data: bytes) {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0xF)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
