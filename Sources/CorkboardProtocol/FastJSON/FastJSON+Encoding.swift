import CorkboardJSON
import CorkboardModel

/// Encoding the hot server messages (see `FastJSON`).
extension FastJSON {
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
        case .dragGranted(let m):
            w.open("dragGranted")
            w.field("ref", m.ref)
            w.field("session", m.session)
            w.key("granted")
            w.strings(m.granted.map(\.rawValue))
            w.key("refused")
            w.raw("[")
            for (i, refusal) in m.refused.enumerated() {
                if i > 0 { w.raw(",") }
                w.raw("{")
                w.first = true
                w.field("item", refusal.item.rawValue)
                w.field("code", refusal.code.rawValue)
                w.field("message", refusal.message)
                w.raw("}")
            }
            w.raw("]")
            w.first = false
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

        mutating func string(_ value: String) { JSONString.append(value, to: &bytes) }

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
