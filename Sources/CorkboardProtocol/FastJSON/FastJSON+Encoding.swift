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
            w.hover(m.target, m.proposal)
        case .dragHover(let m):
            w.open("dragHover")
            w.field("session", m.session)
            w.field("member", m.member)
            w.hover(m.target, m.proposal)
        case .dragGranted(let m):
            w.open("dragGranted")
            w.field("ref", m.ref)
            w.field("session", m.session)
            w.key("granted")
            w.strings(m.granted.map(\.rawValue))
            w.key("refused")
            w.array(m.refused) { w, refusal in
                w.object {
                    $0.field("item", refusal.item.rawValue)
                    $0.field("code", refusal.code.rawValue)
                    $0.field("message", refusal.message)
                }
            }
        case .dragEnded(let m):
            w.open("dragEnded")
            w.field("session", m.session)
            w.field("member", m.member)
            w.field("reason", m.reason.rawValue)
            w.field("seq", m.seq)
        case .dragStarted(let m):
            w.open("dragStarted")
            w.field("session", m.session)
            w.field("member", m.member)
            w.key("items")
            w.strings(m.items.map(\.rawValue))
            w.key("external")
            w.array(m.external) { $0.strings($1) }
            w.hover(m.target, m.proposal)
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
        w.object { w in
            w.field("seq", c.seq)
            w.field("opId", c.opId)
            w.field("clientId", c.clientId)
            w.key("op")
            w.object {
                $0.field("kind", "move")
                $0.key("items")
                $0.strings(move.items.map(\.rawValue))
                $0.key("destination")
                $0.destination(move.destination)
                $0.field("session", move.session)
            }
            w.key("effect")
            w.object { w in
                w.key("changes")
                w.array(c.effect.changes) { w, change in
                    w.object {
                        $0.field("item", change.item.rawValue)
                        if let from = change.from {
                            $0.key("from")
                            $0.position(from)
                        }
                        if let to = change.to {
                            $0.key("to")
                            $0.position(to)
                        }
                    }
                }
                w.key("skipped")
                w.strings(c.effect.skipped.map(\.rawValue))
                w.key("removed")
                w.raw("[]")
            }
        }
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

        mutating func field(_ name: StaticString, _ value: Int?) {
            guard let value else { return }
            key(name)
            int(value)
        }

        /// A drag's hover: its `target` and the `proposal` there, each when present.
        mutating func hover(_ target: DragTarget?, _ proposal: Proposal?) {
            if let target {
                key("target")
                self.target(target)
            }
            if let proposal {
                key("proposal")
                self.proposal(proposal)
            }
        }

        /// `[…]`: each element written by `element`, separated by commas.
        mutating func array<Element>(_ elements: [Element], _ element: (inout Writer, Element) -> Void) {
            raw("[")
            for (i, value) in elements.enumerated() {
                if i > 0 { raw(",") }
                element(&self, value)
            }
            raw("]")
        }

        /// `{…}`: a nested object whose fields `body` writes; the enclosing object's comma state
        /// is kept across it.
        mutating func object(_ body: (inout Writer) -> Void) {
            let outer = first
            raw("{")
            first = true
            body(&self)
            raw("}")
            first = outer
        }

        mutating func strings(_ values: [String]) { array(values) { $0.string($1) } }

        mutating func target(_ t: DragTarget) {
            object {
                $0.field("board", t.board)
                $0.field("collection", t.collection.rawValue)
                $0.field("section", t.section.rawValue)
                $0.field("index", t.index)
                $0.field("intent", t.intent.rawValue)
            }
        }

        mutating func proposal(_ p: Proposal) {
            object {
                $0.field("operation", p.operation.rawValue)
                $0.field("intent", p.intent.rawValue)
                $0.field("reason", p.reason)
            }
        }

        mutating func destination(_ d: Destination) {
            object {
                $0.field("collection", d.collection.rawValue)
                $0.field("section", d.section.rawValue)
                $0.field("index", d.index)
                $0.field("after", d.after?.rawValue)
                $0.field("before", d.before?.rawValue)
                $0.field("intent", d.intent.rawValue)
                $0.field("target", d.target?.rawValue)
            }
        }

        mutating func position(_ p: Position) {
            object {
                $0.field("collection", p.collection.rawValue)
                $0.field("section", p.section.rawValue)
                $0.field("group", p.group?.rawValue)
                $0.field("index", p.index)
            }
        }
    }
}
