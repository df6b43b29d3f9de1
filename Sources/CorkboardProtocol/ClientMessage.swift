public import CorkboardModel

/// Every message a client sends, tagged by `type`.
///
/// The payload's fields sit next to `type`: `{"type":"dragBegin","ref":"r1","session":"d1","items":["i1"]}`.
/// docs/PROTOCOL.md is the normative description; `WireCodec` is the one place JSON is read and written.
public enum ClientMessage: Hashable, Sendable {
    /// Joins a board; must be the first message.
    case hello(Hello)
    /// Submits one board operation (a sequenced, durable change).
    case submit(Submit)
    /// Starts a drag, leasing items (R9).
    case dragBegin(DragBegin)
    /// Adds items to a live drag.
    case dragAdd(DragAdd)
    /// Reports where a live drag hovers; answered with a `proposal`.
    case dropUpdate(DropUpdate)
    /// Drops a live drag: one sequenced move or copy.
    case drop(Drop)
    /// Ends a drag without dropping (cancel).
    case dragEnd(DragEnd)
    /// Moves this member's pointer (ephemeral).
    case cursor(Cursor)
    /// Changes this member's presence state (ephemeral).
    case presence(Presence)
    /// Asks for the committed operations after a seq, or a snapshot when the room no longer holds them.
    case sync(Sync)
    /// Asks for a `pong`.
    case ping(Ping)
    /// Takes (or refreshes) the edit lease on an item before editing its content (R12).
    case editBegin(EditBegin)
    /// Gives the edit lease back without saving (cancel).
    case editEnd(EditEnd)
    /// Reverses this client's newest operation still in its history (R13).
    case undo(UndoRequest)
    /// Makes this client's newest undone operation again (R13).
    case redo(UndoRequest)
    /// Asks for members by id or a page of them; answered by `memberList`.
    case listMembers(ListMembers)
    /// Asks for a page of the board's activity feed, and to hear of new entries or not (issue 43).
    case activity(ActivityRequest)
    /// An admin's request about the board's people, invites or links (issue 45).
    case people(PeopleRequest)

    /// The wire tag.
    public var type: String {
        switch self {
        case .hello: "hello"
        case .submit: "submit"
        case .dragBegin: "dragBegin"
        case .dragAdd: "dragAdd"
        case .dropUpdate: "dropUpdate"
        case .drop: "drop"
        case .dragEnd: "dragEnd"
        case .cursor: "cursor"
        case .presence: "presence"
        case .sync: "sync"
        case .ping: "ping"
        case .editBegin: "editBegin"
        case .editEnd: "editEnd"
        case .undo: "undo"
        case .redo: "redo"
        case .listMembers: "listMembers"
        case .activity: "activity"
        case .people(let m): m.type
        }
    }

    /// The client's message reference, echoed in the answer.
    public var ref: String? {
        switch self {
        case .hello(let m): m.ref
        case .submit(let m): m.ref
        case .dragBegin(let m): m.ref
        case .dragAdd(let m): m.ref
        case .dropUpdate(let m): m.ref
        case .drop(let m): m.ref
        case .dragEnd(let m): m.ref
        case .cursor: nil
        case .presence: nil
        case .sync(let m): m.ref
        case .ping(let m): m.ref
        case .editBegin(let m): m.ref
        case .editEnd(let m): m.ref
        case .undo(let m), .redo(let m): m.ref
        case .listMembers(let m): m.ref
        case .activity(let m): m.ref
        case .people(let m): m.ref
        }
    }

    /// Every type a client may send.
    public static let types =
        [
            "hello", "submit", "dragBegin", "dragAdd", "dropUpdate", "drop", "dragEnd", "cursor", "presence", "sync",
            "ping", "editBegin", "editEnd", "undo", "redo", "listMembers", "activity",
        ] + PeopleRequest.types

    /// `hello`: `{"type":"hello","protocol":1,"board":"demo","key":"…","name":"Ada"}`, plus `clientId`
    /// and `lastSeq` when resuming (R10).
    public struct Hello: Hashable, Codable, Sendable {
        /// Echoed in `welcome` or `error`.
        public var ref: String?
        /// The protocol version; this server speaks 1.
        public var `protocol`: Int
        /// The board id.
        public var board: String
        /// One of the board's keys (it decides the role); may be left out for an open board, and
        /// is left out with `invite` or when joining as this device's person.
        public var key: String?
        /// A personal invite's token to claim (with `device`; not with `key`).
        public var invite: String?
        /// This browser's device key (`d-` and 32 hex digits): claims `invite` for it, or alone
        /// joins as its person on the board.
        public var device: String?
        /// The display name shown to peers.
        public var name: String
        /// The client identity kept across reconnects; the server assigns one when absent.
        public var clientId: String?
        /// The last seq this client applied; the room sends what follows (R10).
        public var lastSeq: Int?
        /// The `resumeToken` of the welcome that gave this `clientId`: required to resume as a client
        /// the room already knows, so nobody else can take its place.
        public var resumeToken: String?
        /// The `history` of the welcome `lastSeq` counts in; when it is not the board's history now
        /// (the server lost the board's log), the room sends a snapshot instead of operations.
        public var history: String?
        /// The member colour this person had on the board before (`#rrggbb`): the room gives it when it
        /// is one of ``ProtocolLimits/memberColors`` and no member here has it now; else the next
        /// colour in join order.
        public var color: String?

        /// Creates a hello.
        public init(
            ref: String? = nil, protocol: Int = ProtocolLimits.version, board: String, key: String?, name: String,
            clientId: String? = nil, lastSeq: Int? = nil, resumeToken: String? = nil, history: String? = nil,
            color: String? = nil, invite: String? = nil, device: String? = nil
        ) {
            self.invite = invite
            self.device = device
            self.ref = ref
            self.protocol = `protocol`
            self.board = board
            self.key = key
            self.name = name
            self.clientId = clientId
            self.lastSeq = lastSeq
            self.resumeToken = resumeToken
            self.history = history
            self.color = color
        }

        /// The name without leading and trailing whitespace, as peers see it.
        public var displayName: String { name.trimmingWhitespace }

        /// Whether the hello joins as a person: it claims an invite, or presents only a device.
        public var asksForPerson: Bool { invite != nil || (device != nil && key == nil) }
    }

    /// `submit`: one operation. `session`, when given, names a drag the operation finishes (an
    /// insert or placeholder dropped from outside); that drag ends whatever the outcome.
    public struct Submit: Hashable, Codable, Sendable {
        /// Echoed in the `ack`.
        public var ref: String?
        /// Unique for this client; resend it verbatim after a reconnect.
        public var opId: String
        /// The seq the client made the operation on.
        public var base: Int
        /// The operation.
        public var op: BoardOperation
        /// The drag session this operation finishes, if any.
        public var session: String?

        /// Creates a submit.
        public init(ref: String? = nil, opId: String, base: Int, op: BoardOperation, session: String? = nil) {
            self.ref = ref
            self.opId = opId
            self.base = base
            self.op = op
            self.session = session
        }
    }

    /// `cursor`: the pointer in board coordinates, optionally over a collection, and the
    /// checklist item it drags in an open card, if any.
    public struct Cursor: Hashable, Codable, Sendable {
        /// Horizontal position.
        public var x: Double
        /// Vertical position.
        public var y: Double
        /// The collection under the pointer.
        public var collection: CollectionID?
        /// The checklist item the pointer drags, and where it would land.
        public var checklist: ChecklistDrag?

        /// Creates a cursor update.
        public init(x: Double, y: Double, collection: CollectionID? = nil, checklist: ChecklistDrag? = nil) {
            self.x = x
            self.y = y
            self.collection = collection
            self.checklist = checklist
        }
    }

    /// `presence`: `active`, `idle` or `away`.
    public struct Presence: Hashable, Codable, Sendable {
        /// The new state.
        public var state: PresenceState

        /// Creates a presence update.
        public init(state: PresenceState) { self.state = state }
    }

    /// `sync`: the operations after `lastSeq`, or a snapshot.
    public struct Sync: Hashable, Codable, Sendable {
        /// Echoed in `synced`.
        public var ref: String?
        /// The last seq the client applied.
        public var lastSeq: Int

        /// Creates a sync request.
        public init(ref: String? = nil, lastSeq: Int) {
            self.ref = ref
            self.lastSeq = lastSeq
        }
    }

    /// `editBegin`: takes the edit lease on `item` (R12), or refreshes it while the editor types;
    /// answered by `editGranted` or `editRefused`.
    public struct EditBegin: Hashable, Codable, Sendable {
        /// Echoed in the answer.
        public var ref: String?
        /// The item to edit.
        public var item: ItemID

        /// Creates an edit begin.
        public init(ref: String? = nil, item: ItemID) {
            self.ref = ref
            self.item = item
        }
    }

    /// `editEnd`: the editor closed without saving; the lease ends (no answer).
    public struct EditEnd: Hashable, Codable, Sendable {
        /// Kept for logs (no answer).
        public var ref: String?
        /// The item.
        public var item: ItemID

        /// Creates an edit end.
        public init(ref: String? = nil, item: ItemID) {
            self.ref = ref
            self.item = item
        }
    }

    /// `undo` and `redo`: answered by an `ack` under `opId`, like a `submit` (R13).
    public struct UndoRequest: Hashable, Codable, Sendable {
        /// Echoed in the `ack`.
        public var ref: String?
        /// Unique for this client, like a submit's; resend it verbatim after a reconnect.
        public var opId: String
        /// The seq the client saw when it asked.
        public var base: Int

        /// Creates an undo or redo request.
        public init(ref: String? = nil, opId: String, base: Int) {
            self.ref = ref
            self.opId = opId
            self.base = base
        }
    }

    /// `ping`: answered by `pong` with the board's head.
    public struct Ping: Hashable, Codable, Sendable {
        /// Echoed in `pong`.
        public var ref: String?

        /// Creates a ping.
        public init(ref: String? = nil) { self.ref = ref }
    }

    /// `listMembers`: the members named in `ids`, or a page of members in join order starting
    /// after the member `after` (from the start without it); answered by `memberList`.
    public struct ListMembers: Hashable, Codable, Sendable {
        /// Echoed in `memberList`.
        public var ref: String?
        /// The members wanted, at most `ProtocolLimits.memberListPage`.
        public var ids: [String]?
        /// The last member of the previous page.
        public var after: String?
        /// The page size, 1 to `ProtocolLimits.memberListPage` (100 when left out).
        public var limit: Int?

        /// Creates a request.
        public init(ref: String? = nil, ids: [String]? = nil, after: String? = nil, limit: Int? = nil) {
            self.ref = ref
            self.ids = ids
            self.after = after
            self.limit = limit
        }
    }
}

extension ClientMessage {
    /// `activity`: a page of the board's activity feed, newest first, answered by `activityPage`:
    /// the entries before seq `before` (the newest without it), only those about card `item` when
    /// given, at most `limit` (1 to `ActivityLimits.pageLimit`, 50 when left out). `live: true`
    /// also sends this connection each new entry as an `activity` message until `live: false`.
    public struct ActivityRequest: Hashable, Codable, Sendable {
        /// Echoed in `activityPage`.
        public var ref: String?
        /// Only entries with a smaller seq (the `seq` of the oldest entry of the previous page).
        public var before: Int?
        /// Only entries about this card.
        public var item: ItemID?
        /// The page size.
        public var limit: Int?
        /// Start (`true`) or stop (`false`) hearing of new entries; left out: unchanged.
        public var live: Bool?

        /// Creates a request.
        public init(ref: String? = nil, before: Int? = nil, item: ItemID? = nil, limit: Int? = nil, live: Bool? = nil) {
            self.ref = ref
            self.before = before
            self.item = item
            self.limit = limit
            self.live = live
        }
    }
}

/// A member's presence state.
public enum PresenceState: String, Hashable, Codable, Sendable {
    /// Looking at the board.
    case active
    /// The board is open but untouched for a while.
    case idle
    /// The board is in a background tab.
    case away
}

extension ClientMessage: Codable {
    private enum TagKey: String, CodingKey { case type }

    /// Decodes a tagged message.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: TagKey.self)
        let type = try container.decode(String.self, forKey: .type)
        switch type {
        case "hello": self = .hello(try Hello(from: decoder))
        case "submit": self = .submit(try Submit(from: decoder))
        case "dragBegin": self = .dragBegin(try DragBegin(from: decoder))
        case "dragAdd": self = .dragAdd(try DragAdd(from: decoder))
        case "dropUpdate": self = .dropUpdate(try DropUpdate(from: decoder))
        case "drop": self = .drop(try Drop(from: decoder))
        case "dragEnd": self = .dragEnd(try DragEnd(from: decoder))
        case "cursor": self = .cursor(try Cursor(from: decoder))
        case "presence": self = .presence(try Presence(from: decoder))
        case "sync": self = .sync(try Sync(from: decoder))
        case "ping": self = .ping(try Ping(from: decoder))
        case "editBegin": self = .editBegin(try EditBegin(from: decoder))
        case "editEnd": self = .editEnd(try EditEnd(from: decoder))
        case "undo": self = .undo(try UndoRequest(from: decoder))
        case "redo": self = .redo(try UndoRequest(from: decoder))
        case "listMembers": self = .listMembers(try ListMembers(from: decoder))
        case "activity": self = .activity(try ActivityRequest(from: decoder))
        case _ where PeopleRequest.types.contains(type): self = .people(try PeopleRequest(type, from: decoder))
        default: throw UnknownType(type: type)
        }
    }

    /// Encodes a tagged message.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: TagKey.self)
        try container.encode(type, forKey: .type)
        switch self {
        case .hello(let m): try m.encode(to: encoder)
        case .submit(let m): try m.encode(to: encoder)
        case .dragBegin(let m): try m.encode(to: encoder)
        case .dragAdd(let m): try m.encode(to: encoder)
        case .dropUpdate(let m): try m.encode(to: encoder)
        case .drop(let m): try m.encode(to: encoder)
        case .dragEnd(let m): try m.encode(to: encoder)
        case .cursor(let m): try m.encode(to: encoder)
        case .presence(let m): try m.encode(to: encoder)
        case .sync(let m): try m.encode(to: encoder)
        case .ping(let m): try m.encode(to: encoder)
        case .editBegin(let m): try m.encode(to: encoder)
        case .editEnd(let m): try m.encode(to: encoder)
        case .undo(let m), .redo(let m): try m.encode(to: encoder)
        case .listMembers(let m): try m.encode(to: encoder)
        case .activity(let m): try m.encode(to: encoder)
        case .people(let m): try m.encode(to: encoder)
        }
    }
}

/// Thrown while decoding a message whose `type` is not known; `WireCodec` turns it into `unknown-type`.
struct UnknownType: Error {
    var type: String
}
