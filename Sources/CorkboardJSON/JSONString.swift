/// The one JSON string escaper of the project: the transport's error bodies, the wire protocol's
/// hand-written encoders, `/healthz` and the load tool all write strings through it.
///
/// Quotes, backslashes and control characters are escaped (`\n`, `\r`, `\t`, else `\u00XX`);
/// everything else, `/` and non-ASCII included, is written as UTF-8, so ids and URLs stay readable.
public enum JSONString {
    /// Appends `value` as a JSON string literal, quotes included.
    ///
    /// - Complexity: O(n) in the UTF-8 length of `value`.
    public static func append(_ value: String, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        var value = value
        value.withUTF8 { utf8 in
            // Runs of bytes that need no escape are copied whole, so a long value (a snapshot
            // part's representations) costs about a memory copy.
            var start = 0
            for index in utf8.indices {
                let byte = utf8[index]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                if start < index { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<index])) }
                start = index + 1
                switch byte {
                case UInt8(ascii: "\""): bytes += #"\""#.utf8
                case UInt8(ascii: "\\"): bytes += #"\\"#.utf8
                case UInt8(ascii: "\n"): bytes += #"\n"#.utf8
                case UInt8(ascii: "\r"): bytes += #"\r"#.utf8
                case UInt8(ascii: "\t"): bytes += #"\t"#.utf8
                default:
                    bytes += #"\u00"#.utf8
                    bytes.append(hexDigits[Int(byte >> 4)])
                    bytes.append(hexDigits[Int(byte & 0xF)])
                }
            }
            if start < utf8.count { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start...])) }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// `value` as a JSON string literal, quotes included.
    public static func quoted(_ value: String) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(value.utf8.count + 2)
        append(value, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// A JSON object of string fields in the given order: `{"a":"x","b":"y"}`.
    public static func object(_ fields: [(String, String)]) -> String {
        var bytes: [UInt8] = [UInt8(ascii: "{")]
        for (index, (name, value)) in fields.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            append(name, to: &bytes)
            bytes.append(UInt8(ascii: ":"))
            append(value, to: &bytes)
        }
        bytes.append(UInt8(ascii: "}"))
        return String(decoding: bytes, as: UTF8.self)
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)
}
