import CorkboardProtocol
import Synchronization

/// The live rooms of a server by board id, shared by the directory and the rooms (for drops across
/// boards, R6). Lookups take a lock, never an await.
public final class RoomRegistry: Sendable {
    private let rooms = Mutex<[String: Room]>([:])
    private let remoteBoards = Mutex<RemoteBoards?>(nil)
    private let opener = Mutex<(@Sendable (String) -> Room?)?>(nil)
    /// Every live board's snapshot size, as its room reports it (R14).
    public let sizes = BoardSizes()

    /// An empty registry.
    public init() {}

    /// The room of a board, if it is live.
    public func room(_ board: String) -> Room? { rooms.withLock { $0[board] } }

    /// The room of a board, started from the store if the board exists but its room is not running
    /// yet (the directory loads boards lazily). The caller waits while the board loads.
    public func open(_ board: String) -> Room? {
        if let room = room(board) { return room }
        return opener.withLock { $0 }?(board)
    }

    /// Lets `open(_:)` start rooms (the directory, on one node).
    func attach(opener: @escaping @Sendable (String) -> Room?) { self.opener.withLock { $0 = opener } }

    /// The calls to boards sequenced by other nodes of a cluster (`nil` on one node).
    var remote: RemoteBoards? { remoteBoards.withLock { $0 } }

    /// Lets this node's rooms drop on boards of other nodes.
    func attach(remote: RemoteBoards) { remoteBoards.withLock { $0 = remote } }

    /// Every live room.
    public var all: [Room] { rooms.withLock { Array($0.values) } }

    /// Registers a live room (the directory does for the rooms it starts; tools and tests that build
    /// rooms by hand do for theirs).
    public func insert(_ room: Room) { rooms.withLock { $0[room.info.id] = room } }

    /// Removes a room, if it is still the board's live room.
    public func remove(_ room: Room) {
        rooms.withLock { rooms in
            if rooms[room.info.id] === room { rooms[room.info.id] = nil }
        }
    }

    /// Removes and returns the room of a board.
    func remove(board: String) -> Room? { rooms.withLock { $0.removeValue(forKey: board) } }

    func removeAll() -> [Room] {
        rooms.withLock { rooms in
            defer { rooms.removeAll() }
            return Array(rooms.values)
        }
    }
}
