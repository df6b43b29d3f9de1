public import CorkboardModel
public import CorkboardProtocol
public import CorkboardServer
public import CorkboardStorage
public import Logging

/// A logger that discards everything, so test output stays readable.
public let quietLogger = Logger(label: "corkboard.tests", factory: { _ in SwiftLogNoOpLogHandler() })

/// A logger that drops everything below warning (tests never install their own handlers).
public func testLogger(_ label: String = "test") -> Logger {
    var logger = Logger(label: label)
    logger.logLevel = .warning
    return logger
}

/// The keys every test board uses unless a test says otherwise.
public let testKeys = BoardKeys(edit: "edit-key", view: "view-key", comment: "comment-key", admin: "admin-key")

/// A connection handle.
public func conn(_ number: UInt64) -> ConnectionHandle { ConnectionHandle(rawValue: number) }

/// The ids of `BoardTemplate.demo` on a board: two card collections and an Inbox.
public struct DemoIDs: Sendable {
    /// The board id the template's ids are prefixed with.
    public let board: String

    /// The ids of the demo template on `board`.
    public init(board: String) { self.board = board }

    public var caches: CollectionID { CollectionID("\(board)-caches") }
    public var toFind: SectionID { SectionID("\(board)-to-find") }
    public var found: CollectionID { CollectionID("\(board)-found") }
    public var foundSection: SectionID { SectionID("\(board)-found") }
    public var inbox: CollectionID { CollectionID("\(board)-inbox") }
    public var inboxSection: SectionID { SectionID("\(board)-inbox") }
    public var note: ItemID { ItemID("\(board)-note1") }

    /// Card `n` (1...10).
    public func gc(_ n: Int) -> ItemID { ItemID("\(board)-gc\(n)") }

    /// Cards by number.
    public func cards(_ numbers: Int...) -> [ItemID] { numbers.map(gc) }

    /// A destination in a section.
    public func at(
        _ collection: CollectionID, _ section: SectionID, _ index: Int, after: ItemID? = nil, before: ItemID? = nil
    ) -> Destination {
        Destination(collection: collection, section: section, index: index, after: after, before: before)
    }
}

extension ServerMessage {
    public var welcome: Welcome? {
        guard case .welcome(let m) = self else { return nil }
        return m
    }
    public var ack: Ack? {
        guard case .ack(let m) = self else { return nil }
        return m
    }
    public var op: CommittedOperation? {
        guard case .op(let m) = self else { return nil }
        return m
    }
    public var dragGranted: DragGranted? {
        guard case .dragGranted(let m) = self else { return nil }
        return m
    }
    public var proposal: ProposalMessage? {
        guard case .proposal(let m) = self else { return nil }
        return m
    }
    public var dragStarted: DragState? {
        guard case .dragStarted(let m) = self else { return nil }
        return m
    }
    public var dragItems: DragItems? {
        guard case .dragItems(let m) = self else { return nil }
        return m
    }
    public var dragHover: DragHover? {
        guard case .dragHover(let m) = self else { return nil }
        return m
    }
    public var dragEnded: DragEnded? {
        guard case .dragEnded(let m) = self else { return nil }
        return m
    }
    public var membersChanged: MembersChanged? {
        guard case .membersChanged(let m) = self else { return nil }
        return m
    }
    public var memberList: MemberList? {
        guard case .memberList(let m) = self else { return nil }
        return m
    }
    public var cursor: CursorMessage? {
        guard case .cursor(let m) = self else { return nil }
        return m
    }
    public var presence: PresenceMessage? {
        guard case .presence(let m) = self else { return nil }
        return m
    }
    public var synced: Synced? {
        guard case .synced(let m) = self else { return nil }
        return m
    }
    public var snapshotPart: SnapshotPart? {
        guard case .snapshotPart(let m) = self else { return nil }
        return m
    }
    public var pong: Pong? {
        guard case .pong(let m) = self else { return nil }
        return m
    }
    public var error: ProtocolError? {
        guard case .error(let m) = self else { return nil }
        return m
    }
    public var people: People? {
        guard case .people(let m) = self else { return nil }
        return m
    }
    public var roleChanged: RoleChanged? {
        guard case .roleChanged(let m) = self else { return nil }
        return m
    }
    public var editGranted: EditGranted? {
        guard case .editGranted(let m) = self else { return nil }
        return m
    }
    public var editRefused: EditRefused? {
        guard case .editRefused(let m) = self else { return nil }
        return m
    }
    public var editStarted: EditState? {
        guard case .editStarted(let m) = self else { return nil }
        return m
    }
    public var editEnded: EditEnded? {
        guard case .editEnded(let m) = self else { return nil }
        return m
    }
    public var undoable: Undoable? {
        guard case .undoable(let m) = self else { return nil }
        return m
    }
}

extension Outcome {
    /// The rejection code, if rejected.
    public var rejectCode: RejectCode? { rejection?.code }
}
