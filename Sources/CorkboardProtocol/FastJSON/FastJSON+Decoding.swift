import CorkboardModel

/// Decoding the hot client messages (see `FastJSON`).
extension FastJSON {
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
}
