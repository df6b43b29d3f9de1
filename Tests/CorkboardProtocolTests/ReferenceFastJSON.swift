import CorkboardModel

@testable import CorkboardProtocol

/// The fast path's first decoder, kept as the reference the one-pass `FastJSON` reader is checked
/// against: it parses the whole message into a tree of values (objects as dictionaries) and then
/// picks the fields, which is easy to read and slow (an allocation per value, every key hashed
/// three times). Both must accept exactly the same inputs and make the same messages of them.
enum ReferenceFastJSON {
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

        /// Skips `byte` when it is next (after white space); whether it was.
        mutating func skip(_ byte: UInt8) -> Bool {
            skipSpace()
            guard at < bytes.count, bytes[at] == byte else { return false }
            at += 1
            return true
        }

        /// After an element of an array or object: whether `close` ended it (`false` after a comma),
        /// or `nil` at anything else.
        mutating func closes(_ close: UInt8) -> Bool? {
            if skip(UInt8(ascii: ",")) { return false }
            return skip(close) ? true : nil
        }

        mutating func parseArray(depth: Int) -> Value? {
            at += 1
            var values: [Value] = []
            if skip(UInt8(ascii: "]")) { return .array(values) }
            while true {
                guard let value = parseValue(depth: depth + 1) else { return nil }
                values.append(value)
                guard let closed = closes(UInt8(ascii: "]")) else { return nil }
                if closed { return .array(values) }
            }
        }

        mutating func parseObject(depth: Int) -> Value? {
            at += 1
            var fields: [String: Value] = [:]
            if skip(UInt8(ascii: "}")) { return .object(fields) }
            while true {
                skipSpace()
                guard at < bytes.count, bytes[at] == UInt8(ascii: "\""), let key = parseString() else { return nil }
                guard skip(UInt8(ascii: ":")) else { return nil }
                guard let value = parseValue(depth: depth + 1), fields.updateValue(value, forKey: key) == nil else {
                    return nil
                }
                guard let closed = closes(UInt8(ascii: "}")) else { return nil }
                if closed { return .object(fields) }
            }
        }
    }

    /// The message the tree decoder makes of `bytes`, or `nil` where the fast path leaves it to `JSONDecoder`.
    static func decode(_ bytes: UnsafeBufferPointer<UInt8>) -> ClientMessage? {
        var parser = Parser(bytes: bytes)
        guard let root = parser.parseDocument()?.object, let type = root["type"]?.string else { return nil }
        switch type {
        case "dropUpdate": return dropUpdate(root).map(ClientMessage.dropUpdate)
        case "drop": return drop(root).map(ClientMessage.drop)
        case "submit": return submitMove(root).map(ClientMessage.submit)
        case "dragBegin": return dragBegin(root).map(ClientMessage.dragBegin)
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

    private static let dragBeginKeys: Set<String> = ["type", "ref", "session", "items"]

    static func dragBegin(_ o: [String: Value]) -> ClientMessage.DragBegin? {
        guard only(o, dragBeginKeys), let ref = optionalString(o, "ref"), let session = o["session"]?.string,
            let items = o["items"]?.strings
        else { return nil }
        return ClientMessage.DragBegin(ref: ref, session: session, items: items.map { ItemID($0) })
    }
}
