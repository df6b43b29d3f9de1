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
    // MARK: Decoding

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

    /// Decodes a client message through the fast path, or returns `nil` to leave it to `JSONDecoder`.
    static func decodeClientMessage(_ bytes: UnsafeBufferPointer<UInt8>) -> ClientMessage? {
        var parser = Parser(bytes: bytes)
        guard let root = parser.parseDocument()?.object, let type = root["type"]?.string else { return nil }
        switch type {
        case "dropUpdate": return dropUpdate(root).map(ClientMessage.dropUpdate)
        case "drop": return drop(root).map(ClientMessage.drop)
        case "submit": return submitMove(root).map(ClientMessage.submit)
        default: return nil
        }
    }

    /// Whether `object` has only keys from `allowed`.
    private static func only(_ object: [String: Value], _ allowed: Set<String>) -> Bool {
        object.keys.allSatisfy { allowed.contains($0) }
    }

    /// An optional string field: absent is `nil`, anything but a string fails (`.none`).
    private static func optionalString(_ object: [String: Value], _ key: String) -> String?? {
        guard let value = object[key] else { return .some(nil) }
        return value.string.map { .some($0) } ?? .none
    }

    private static func optionalBool(_ object: [String: Value], _ key: String) -> Bool?? {
        guard let value = object[key] else { return .some(nil) }
        return value.bool.map { .some($0) } ?? .none
    }

    private static let dropUpdateKeys: Set<String> = ["type", "ref", "session", "target", "copy", "key"]
    private static let targetKeys: Set<String> = ["board", "collection", "section", "index", "intent"]

    static func dropUpdate(_ o: [String: Value]) -> ClientMessage.DropUpdate? {
        guard only(o, dropUpdateKeys), let ref = optionalString(o, "ref"), let session = o["session"]?.string,
            let t = o["target"]?.object, only(t, targetKeys), let board = optionalString(t, "board"),
            let collection = t["collection"]?.string, let section = t["section"]?.string,
            let index = t["index"]?.int, let intentName = t["intent"]?.string,
            let intent = DropIntent(rawValue: intentName), let copy = optionalBool(o, "copy"),
            let key = optionalString(o, "key")
        else { return nil }
        return ClientMessage.DropUpdate(
            ref: ref, session: session,
            target: DragTarget(
                board: board, collection: CollectionID(collection), section: SectionID(section), index: index,
                intent: intent), copy: copy, key: key)
    }

    private static let dropKeys: Set<String> = [
        "type", "ref", "session", "opId", "base", "destination", "copy", "board", "key",
    ]
    private static let destinationKeys: Set<String> = [
        "collection", "section", "index", "after", "before", "intent", "target",
    ]

    static func destination(_ value: Value?) -> Destination? {
        guard let d = value?.object, only(d, destinationKeys), let collection = d["collection"]?.string,
            let section = d["section"]?.string, let index = d["index"]?.int, let after = optionalString(d, "after"),
            let before = optionalString(d, "before"), let intentName = d["intent"]?.string,
            let intent = DropIntent(rawValue: intentName), let target = optionalString(d, "target")
        else { return nil }
        return Destination(
            collection: CollectionID(collection), section: SectionID(section), index: index,
            after: after.map { ItemID($0) }, before: before.map { ItemID($0) }, intent: intent,
            target: target.map { ItemID($0) })
    }

    static func drop(_ o: [String: Value]) -> ClientMessage.Drop? {
        guard only(o, dropKeys), let ref = optionalString(o, "ref"), let session = o["session"]?.string,
            let opId = o["opId"]?.string, let base = o["base"]?.int, let destination = destination(o["destination"]),
            let copy = optionalBool(o, "copy"), let board = optionalString(o, "board"),
            let key = optionalString(o, "key")
        else { return nil }
        return ClientMessage.Drop(
            ref: ref, session: session, opId: opId, base: base, destination: destination, copy: copy, board: board,
            key: key)
    }

    private static let submitKeys: Set<String> = ["type", "ref", "opId", "base", "op", "session"]
    private static let moveKeys: Set<String> = ["kind", "items", "destination", "session"]

    static func submitMove(_ o: [String: Value]) -> ClientMessage.Submit? {
        guard only(o, submitKeys), let ref = optionalString(o, "ref"), let opId = o["opId"]?.string,
            let base = o["base"]?.int, let session = optionalString(o, "session"), let op = o["op"]?.object,
            only(op, moveKeys), op["kind"]?.string == "move", let items = op["items"]?.strings,
            let destination = destination(op["destination"]), let moveSession = optionalString(op, "session")
        else { return nil }
        return ClientMessage.Submit(
            ref: ref, opId: opId, base: base,
            op: .move(
                BoardOperation.Move(items: items.map { ItemID($0) }, destination: destination, session: moveSession)),
            session: session)
    }

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

    // MARK: Encoding

    /// Encodes a server message through the fast path, or returns `nil` to leave it to `JSONEncoder`.
    static func encode(_ message: ServerMessage) -> [UInt8]? {
        var w = Writer()
        switch message {
        case .proposal(let m):
            w.open("proposal")
            w.field("ref", m.ref)
            w.field("session", m.session)
            w.key("target")
            w.target(m.target)
            w.key("proposal")
            w.proposal(m.proposal)
        case .dragHover(let m):
            w.open("dragHover")
            w.field("session", m.session)
            w.field("member", m.member)
            w.key("target")
            w.target(m.target)
            w.key("proposal")
            w.proposal(m.proposal)
        case .dragEnded(let m):
            w.open("dragEnded")
            w.field("session", m.session)
            w.field("member", m.member)
            w.field("reason", m.reason.rawValue)
            if let seq = m.seq {
                w.key("seq")
                w.int(seq)
            }
        case .dragStarted(let m):
            w.open("dragStarted")
            w.field("session", m.session)
            w.field("member", m.member)
            w.key("items")
            w.strings(m.items.map(\.rawValue))
            w.key("external")
            w.raw("[")
            for (i, types) in m.external.enumerated() {
                if i > 0 { w.raw(",") }
                w.strings(types)
            }
            w.raw("]")
            if let target = m.target {
                w.key("target")
                w.target(target)
            }
            if let proposal = m.proposal {
                w.key("proposal")
                w.proposal(proposal)
            }
        default:
            return nil
        }
        w.raw("}")
        return w.bytes
    }

    /// The fields of a committed `move` as `encodeCommit` splices them (`{…}` without a type),
    /// or `nil` for other operations and effects that removed items.
    static func committedMove(_ c: CommittedOperation) -> [UInt8]? {
        guard case .move(let move) = c.op, c.effect.removed.isEmpty else { return nil }
        var w = Writer()
        w.raw("{")
        w.first = true
        w.key("seq")
        w.int(c.seq)
        w.field("opId", c.opId)
        w.field("clientId", c.clientId)
        w.key("op")
        w.raw("{")
        w.first = true
        w.field("kind", "move")
        w.key("items")
        w.strings(move.items.map(\.rawValue))
        w.key("destination")
        w.destination(move.destination)
        w.field("session", move.session)
        w.raw("}")
        w.first = false
        w.key("effect")
        w.raw("{")
        w.first = true
        w.key("changes")
        w.raw("[")
        for (i, change) in c.effect.changes.enumerated() {
            if i > 0 { w.raw(",") }
            w.raw("{")
            w.first = true
            w.field("item", change.item.rawValue)
            if let from = change.from {
                w.key("from")
                w.position(from)
            }
            if let to = change.to {
                w.key("to")
                w.position(to)
            }
            w.raw("}")
        }
        w.raw("]")
        w.first = false
        w.key("skipped")
        w.strings(c.effect.skipped.map(\.rawValue))
        w.key("removed")
        w.raw("[]}}")
        return w.bytes
    }

    /// Writes compact JSON; `first` tracks whether the open object has a field yet.
    struct Writer {
        var bytes: [UInt8] = []
        var first = true

        init() { bytes.reserveCapacity(256) }

        mutating func raw(_ text: StaticString) {
            bytes.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
        }

        /// `{"type":"NAME"` — the message's object, left open.
        mutating func open(_ type: StaticString) {
            raw(#"{"type":""#)
            raw(type)
            raw("\"")
            first = false
        }

        mutating func key(_ name: StaticString) {
            if !first { bytes.append(UInt8(ascii: ",")) }
            first = false
            bytes.append(UInt8(ascii: "\""))
            raw(name)
            raw("\":")
        }

        mutating func string(_ value: String) { WireCodec.appendJSONString(value, to: &bytes) }

        mutating func int(_ value: Int) { bytes += String(value).utf8 }

        mutating func field(_ name: StaticString, _ value: String?) {
            guard let value else { return }
            key(name)
            string(value)
        }

        mutating func strings(_ values: [String]) {
            bytes.append(UInt8(ascii: "["))
            for (i, value) in values.enumerated() {
                if i > 0 { bytes.append(UInt8(ascii: ",")) }
                string(value)
            }
            bytes.append(UInt8(ascii: "]"))
        }

        mutating func target(_ t: DragTarget) {
            let outer = first
            raw("{")
            first = true
            field("board", t.board)
            field("collection", t.collection.rawValue)
            field("section", t.section.rawValue)
            key("index")
            int(t.index)
            field("intent", t.intent.rawValue)
            raw("}")
            first = outer
        }

        mutating func proposal(_ p: Proposal) {
            let outer = first
            raw("{")
            first = true
            field("operation", p.operation.rawValue)
            field("intent", p.intent.rawValue)
            field("reason", p.reason)
            raw("}")
            first = outer
        }

        mutating func destination(_ d: Destination) {
            let outer = first
            raw("{")
            first = true
            field("collection", d.collection.rawValue)
            field("section", d.section.rawValue)
            key("index")
            int(d.index)
            field("after", d.after?.rawValue)
            field("before", d.before?.rawValue)
            field("intent", d.intent.rawValue)
            field("target", d.target?.rawValue)
            raw("}")
            first = outer
        }

        mutating func position(_ p: Position) {
            let outer = first
            raw("{")
            first = true
            field("collection", p.collection.rawValue)
            field("section", p.section.rawValue)
            field("group", p.group?.rawValue)
            key("index")
            int(p.index)
            raw("}")
            first = outer
        }
    }
}
