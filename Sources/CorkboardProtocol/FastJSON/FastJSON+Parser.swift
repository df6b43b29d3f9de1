import CorkboardModel

extension FastJSON {
    /// A parser of the plain JSON subset; every method returns `nil` on anything outside it.
    struct Parser {
        let bytes: UnsafeBufferPointer<UInt8>
        var at = 0

        init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

        mutating func parseDocument() -> Value? {
            guard let value = parseValue(depth: 0) else { return nil }
            skipSpace()
            return at == bytes.count ? value : nil
        }

        mutating func skipSpace() {
            while at < bytes.count {
                switch bytes[at] {
                case 0x20, 0x09, 0x0A, 0x0D: at += 1
                default: return
                }
            }
        }

        mutating func parseValue(depth: Int) -> Value? {
            guard depth < 8 else { return nil }
            skipSpace()
            guard at < bytes.count else { return nil }
            switch bytes[at] {
            case UInt8(ascii: "\""): return parseString().map(Value.string)
            case UInt8(ascii: "{"): return parseObject(depth: depth)
            case UInt8(ascii: "["): return parseArray(depth: depth)
            case UInt8(ascii: "t"): return literal("true") ? .bool(true) : nil
            case UInt8(ascii: "f"): return literal("false") ? .bool(false) : nil
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return parseInt().map(Value.int)
            default: return nil
            }
        }

        mutating func literal(_ word: StaticString) -> Bool {
            let count = word.utf8CodeUnitCount
            guard bytes.count - at >= count else { return false }
            for i in 0..<count where bytes[at + i] != word.utf8Start[i] { return false }
            at += count
            return true
        }

        /// A string without escapes or control characters, valid UTF-8.
        mutating func parseString() -> String? {
            at += 1
            let start = at
            while at < bytes.count {
                let byte = bytes[at]
                if byte == UInt8(ascii: "\"") {
                    let text = String(validating: UnsafeBufferPointer(rebasing: bytes[start..<at]), as: UTF8.self)
                    at += 1
                    return text
                }
                if byte == UInt8(ascii: "\\") || byte < 0x20 { return nil }
                at += 1
            }
            return nil
        }

        /// An integer without fraction or exponent, no leading zeros, at most 18 digits.
        mutating func parseInt() -> Int? {
            var negative = false
            if bytes[at] == UInt8(ascii: "-") {
                negative = true
                at += 1
            }
            let start = at
            var value = 0
            while at < bytes.count, bytes[at] >= UInt8(ascii: "0"), bytes[at] <= UInt8(ascii: "9") {
                // 18 digits always fit in an Int; longer numbers are left to JSONDecoder.
                guard at - start < 18 else { return nil }
                value = value * 10 + Int(bytes[at] - UInt8(ascii: "0"))
                at += 1
            }
            let digits = at - start
            guard digits > 0, digits <= 18, digits == 1 || bytes[start] != UInt8(ascii: "0") else { return nil }
            if at < bytes.count, [UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E")].contains(bytes[at]) {
                return nil
            }
            return negative ? -value : value
        }

        mutating func parseArray(depth: Int) -> Value? {
            at += 1
            var values: [Value] = []
            skipSpace()
            if at < bytes.count, bytes[at] == UInt8(ascii: "]") {
                at += 1
                return .array(values)
            }
            while true {
                guard let value = parseValue(depth: depth + 1) else { return nil }
                values.append(value)
                skipSpace()
                guard at < bytes.count else { return nil }
                if bytes[at] == UInt8(ascii: ",") {
                    at += 1
                } else if bytes[at] == UInt8(ascii: "]") {
                    at += 1
                    return .array(values)
                } else {
                    return nil
                }
            }
        }

        mutating func parseObject(depth: Int) -> Value? {
            at += 1
            var fields: [String: Value] = [:]
            skipSpace()
            if at < bytes.count, bytes[at] == UInt8(ascii: "}") {
                at += 1
                return .object(fields)
            }
            while true {
                skipSpace()
                guard at < bytes.count, bytes[at] == UInt8(ascii: "\""), let key = parseString() else { return nil }
                skipSpace()
                guard at < bytes.count, bytes[at] == UInt8(ascii: ":") else { return nil }
                at += 1
                guard let value = parseValue(depth: depth + 1), fields.updateValue(value, forKey: key) == nil else {
                    return nil
                }
                skipSpace()
                guard at < bytes.count else { return nil }
                if bytes[at] == UInt8(ascii: ",") {
                    at += 1
                } else if bytes[at] == UInt8(ascii: "}") {
                    at += 1
                    return .object(fields)
                } else {
                    return nil
                }
            }
        }
    }
}
