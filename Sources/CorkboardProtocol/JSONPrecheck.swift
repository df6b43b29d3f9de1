/// A single pass over a message's bytes before `JSONDecoder` sees them: it refuses JSON nested
/// deeper than ``ProtocolLimits/maxJSONDepth`` (so no decoder recursion depends on the sender),
/// and finds numbers no 64-bit integer can hold, so that an error can name the field, the limit
/// and the value instead of saying "not valid JSON".
///
/// It is not a validator: anything it does not understand is left to the decoder, which reports
/// it. It never reads past the buffer and never recurses, whatever the input.
enum JSONPrecheck {
    /// A number literal that is not a 64-bit integer (too large, a fraction or an exponent).
    struct OddNumber: Equatable, Sendable {
        /// The dotted path of the field holding it (`op.destination.index`).
        let field: String
        /// The literal as sent, at most 40 characters.
        let literal: String
    }

    /// What the pass found.
    struct Report: Equatable, Sendable {
        /// The deepest nesting of objects and arrays.
        var depth = 0
        /// Numbers that are not 64-bit integers, in order.
        var oddNumbers: [OddNumber] = []
        /// The top-level `ref` when it is a plain string of at most `maxTokenBytes` bytes, so a
        /// refusal can answer it without decoding the message.
        var ref: String?
    }

    /// Scans `bytes`; stops early once nesting passes `maxDepth` (the report then says so).
    static func scan(_ bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int = ProtocolLimits.maxJSONDepth) -> Report {
        var report = Report()
        // One entry per open container: the key (objects) or index (arrays) being read.
        var path: [PathElement] = []
        var pendingKey: String?
        var i = 0
        let n = bytes.count
        while i < n {
            let byte = bytes[i]
            switch byte {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                path.append(byte == UInt8(ascii: "{") ? .key(pendingKey ?? "") : .index(0))
                pendingKey = nil
                report.depth = max(report.depth, path.count)
                if path.count > maxDepth { return report }
                i += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                if !path.isEmpty { path.removeLast() }
                i += 1
            case UInt8(ascii: ","):
                if case .index(let k) = path.last { path[path.count - 1] = .index(k + 1) }
                i += 1
            case UInt8(ascii: "\""):
                let (text, end) = string(bytes, from: i)
                i = end
                // A string followed by a colon is a key of the innermost object.
                var j = i
                while j < n, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[j]) { j += 1 }
                if j < n, bytes[j] == UInt8(ascii: ":"), case .key = path.last {
                    path[path.count - 1] = .key(text)
                    i = j + 1
                } else if path.count == 1, case .key("ref") = path[0], report.ref == nil, !text.contains("\\"),
                    !text.isEmpty, text.utf8.count <= ProtocolLimits.maxTokenBytes
                {
                    report.ref = text
                }
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                var j = i
                while j < n, isNumberByte(bytes[j]) { j += 1 }
                let literal = String(decoding: UnsafeBufferPointer(rebasing: bytes[i..<j]), as: UTF8.self)
                if Int64(literal) == nil {
                    report.oddNumbers.append(
                        OddNumber(field: dotted(path), literal: String(literal.prefix(40))))
                }
                i = max(j, i + 1)
            default:
                i += 1
            }
        }
        return report
    }

    private enum PathElement {
        case key(String)
        case index(Int)
    }

    private static func dotted(_ path: [PathElement]) -> String {
        path.map {
            switch $0 {
            case .key(let k): return k
            case .index(let i): return String(i)
            }
        }.filter { !$0.isEmpty }.joined(separator: ".")
    }

    private static func isNumberByte(_ b: UInt8) -> Bool {
        (b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9")) || b == UInt8(ascii: "-") || b == UInt8(ascii: "+")
            || b == UInt8(ascii: ".") || b == UInt8(ascii: "e") || b == UInt8(ascii: "E")
    }

    /// The string starting at the quote at `start` (escapes kept as sent, at most 128 bytes
    /// kept) and the index after its closing quote (or the end of the buffer).
    private static func string(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> (String, Int) {
        var i = start + 1
        while i < bytes.count {
            if bytes[i] == UInt8(ascii: "\\") {
                i += 2
                continue
            }
            if bytes[i] == UInt8(ascii: "\"") { break }
            i += 1
        }
        let end = min(i, bytes.count)
        let kept = UnsafeBufferPointer(rebasing: bytes[(start + 1)..<min(end, start + 1 + 128)])
        return (String(decoding: kept, as: UTF8.self), min(end + 1, bytes.count))
    }
}
