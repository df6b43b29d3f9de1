import CorkboardModel

/// Hand-written JSON for the messages a busy room reads and writes most: `dropUpdate`, `drop` and
/// `submit` of a `move` in, `proposal`, `dragHover`, `dragStarted`, `dragEnded` and the committed
/// `move` (as `op` and `ack`) out.
///
/// Foundation's `JSONDecoder` and `JSONEncoder` cost several microseconds per small message
/// (generic Codable machinery, metadata lookups, one allocation per value), which made JSON most
/// of a room's CPU time under load (docs/BENCHMARKS.md). These paths produce exactly the values
/// the Codable ones do:
/// - decoding accepts only a plain subset of JSON (no escapes, `null`, fractions, exponents or
///   repeated keys; only the message's own keys) and returns `nil` for anything else, which then
///   goes through `JSONDecoder` as before, so errors and unusual input are handled in one place;
/// - encoding writes the same keys and values as the synthesized `Encodable` conformances (keys in
///   declaration order, absent optionals left out).
enum FastJSON {
    /// A parsed JSON value of the plain subset.
    indirect enum Value {
        case string(String)
        case int(Int)
        case bool(Bool)
        case array([Value])
        case object([String: Value])

        var string: String? {
            if case .string(let s) = self { return s }
            return nil
        }

        var int: Int? {
            if case .int(let i) = self { return i }
            return nil
        }

        var bool: Bool? {
            if case .bool(let b) = self { return b }
            return nil
        }

        var object: [String: Value]? {
            if case .object(let o) = self { return o }
            return nil
        }

        var strings: [String]? {
            guard case .array(let values) = self else { return nil }
            var out: [String] = []
            out.reserveCapacity(values.count)
            for value in values {
                guard case .string(let s) = value else { return nil }
                out.append(s)
            }
            return out
        }
    }
}
