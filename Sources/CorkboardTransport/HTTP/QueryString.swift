/// Splits and percent-decodes a raw query string.
enum QueryString {
    /// `a=1&b=x%20y` → `[("a","1"), ("b","x y")]`.
    static func parse(_ query: Substring) -> [QueryItem] {
        query.split(separator: "&", omittingEmptySubsequences: true).map { pair in
            if let eq = pair.firstIndex(of: "=") {
                return QueryItem(name: decode(pair[..<eq]), value: decode(pair[pair.index(after: eq)...]))
            }
            return QueryItem(name: decode(pair), value: "")
        }
    }

    /// Percent-decoding with `+` as space; malformed escapes are kept as they are.
    static func decode(_ s: Substring) -> String {
        var bytes: [UInt8] = []
        var u = Array(s.utf8)[...]
        while let b = u.popFirst() {
            if b == UInt8(ascii: "+") {
                bytes.append(0x20)
            } else if b == UInt8(ascii: "%"), u.count >= 2, let h = hex(u[u.startIndex]),
                let l = hex(u[u.startIndex + 1])
            {
                bytes.append(h << 4 | l)
                u = u.dropFirst(2)
            } else {
                bytes.append(b)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func hex(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
