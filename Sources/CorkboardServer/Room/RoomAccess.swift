import CorkboardModel
import CorkboardProtocol
public import CorkboardStorage

/// A `hello` that joins as a person (issue 45), resolved before the room: the catalog's
/// transaction claimed the invite or found the device's person, and returned the board's people
/// as it saved them.
public struct PersonJoin: Sendable {
    /// Who joins.
    public var person: Person
    /// The board's people as the transaction left them.
    public var people: BoardPeople

    /// Creates a resolved join.
    public init(person: Person, people: BoardPeople) {
        self.person = person
        self.people = people
    }
}

/// Who asked for a change of the board's people, for its answer.
public struct PeopleAnswer: Sendable {
    /// The admin's connection.
    public var handle: ConnectionHandle
    /// The request's ref.
    public var ref: String?
    /// The invite a `createInvite` made (set when the change was saved).
    public var created: Invite?

    /// Creates an answer.
    public init(handle: ConnectionHandle, ref: String?, created: Invite? = nil) {
        self.handle = handle
        self.ref = ref
        self.created = created
    }
}

/// The board's keys and people as the catalog holds them now: after an admin's change (with its
/// answer), or re-read by the directory after another process or node changed them.
public struct AccessChange: Sendable {
    /// The keys (`isOpen` is the room's own and is kept).
    public var keys: BoardKeys
    /// The people, invites and links.
    public var people: BoardPeople
    /// The admin whose change this is, to answer.
    public var answer: PeopleAnswer?

    /// Creates a change.
    public init(keys: BoardKeys, people: BoardPeople, answer: PeopleAnswer? = nil) {
        self.keys = keys
        self.people = people
        self.answer = answer
    }
}

/// Where a room saves an admin's change of its board's people: the catalog, one transaction per
/// change, off the room's thread. `BoardDirectory` is one.
public protocol BoardAccessWriter: Sendable {
    /// Applies `change` to the board's record in one transaction and calls `completion` with the
    /// record as saved and the invite a `createInvite` made, or with the error (a
    /// `PeopleRefusal`, or the catalog's).
    func change(
        board: String, _ change: PeopleChange,
        completion: @escaping @Sendable (Result<(BoardRecord, Invite?), any Error>) -> Void)
}

extension ProtocolError {
    /// The wire error of a refused claim or change of a board's people.
    init(_ refusal: PeopleRefusal, ref: String?) {
        self.init(
            ErrorCode(rawValue: refusal.code.rawValue) ?? .invalidField, refusal.message, field: refusal.field, ref: ref
        )
    }
}
