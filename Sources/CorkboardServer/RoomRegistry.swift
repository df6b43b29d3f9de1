import CorkboardProtocol
import Synchronization

/// The live rooms of a server by board id, shared by the directory and the rooms (for drops across
/// boards, R6). Lookups take a lock, never an await.
public final class RoomRegistry: Sendable {
    private let rooms = Mutex<[String: Room]>([:])
    /// Every live board's snapshot size, as its room reports it (R14).
    public let sizes = BoardSizes()

    /// An empty registry.
    public init() {}

    /// The room of a board, if it is live.
    public func room(_ board: String) -> Room? { rooms.withLock { $0[board] } }

    /// Every live room.
    public var all: [Room] { rooms.withLock { Array($0.values) } }

    /// Registers a live room (the directory does for the rooms it starts; tools and tests that build
    /// rooms by hand do for theirs).
    public func insert(_ room: Room) { rooms.withLock { $0[room.info.id] = room } }

    func removeAll() -> [Room] {
        rooms.withLock { rooms in
            defer { rooms.removeAll() }
            return Array(rooms.values)
        }
    }
}
