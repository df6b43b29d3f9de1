/// An operation as a client submits it: who, which operation id, on which seq, and what.
///
/// JSON shape: `{"opId":"…","clientId":"…","base":12,"op":{"kind":"move",…}}`.
/// `(clientId, opId)` identifies the operation: sending it again returns its first outcome and
/// applies nothing twice.
public struct ClientOperation: Hashable, Codable, Sendable {
    /// Unique for this client; reused verbatim when resending after a reconnect.
    public var opId: String
    /// Stable per user or connection identity; survives reconnects.
    public var clientId: String
    /// The seq of the board the client saw when it made the operation.
    public var base: Int
    /// The operation.
    public var op: BoardOperation

    /// Creates an envelope.
    public init(opId: String, clientId: String, base: Int, op: BoardOperation) {
        self.opId = opId
        self.clientId = clientId
        self.base = base
        self.op = op
    }
}

/// A sequenced operation: its seq, its identity, the operation as resolved (server-chosen values
/// such as a placeholder's `createdAt` filled in) and its effect.
///
/// Every replica applies it with `Board.apply(_:)` and gets the same board: fresh ids derive from
/// `(clientId, opId)` and nothing depends on leases, clocks or randomness.
public struct CommittedOperation: Hashable, Codable, Sendable {
    /// The operation's place in the board's order, `head + 1` when committed.
    public var seq: Int
    /// The client's operation id.
    public var opId: String
    /// The submitting client.
    public var clientId: String
    /// The operation as resolved by the sequencer.
    public var op: BoardOperation
    /// What it did on the server.
    public var effect: Effect

    /// Creates a committed record.
    public init(seq: Int, opId: String, clientId: String, op: BoardOperation, effect: Effect) {
        self.seq = seq
        self.opId = opId
        self.clientId = clientId
        self.op = op
        self.effect = effect
    }

    /// Checks that this operation comes right after `head` in a log being replayed.
    ///
    /// - Throws: `Rejection` `invalid` when the log jumps.
    func checkFollows(_ head: Int) throws(Rejection) {
        guard seq == head + 1 else {
            throw Rejection(.invalid, "The log jumps from seq \(head) to \(seq); restore from a complete log.")
        }
    }
}

/// The sequencer's answer to a submitted operation.
///
/// JSON shape: `{"kind":"committed", …CommittedOperation fields}` or
/// `{"kind":"rejected", …Rejection fields}` (the enclosing `ack` names the opId).
public enum Outcome: Hashable, Sendable {
    /// Sequenced and applied.
    case committed(CommittedOperation)
    /// Not applied; no seq was used.
    case rejected(Rejection)

    /// The committed record, if any.
    public var committed: CommittedOperation? {
        if case .committed(let c) = self { return c }
        return nil
    }

    /// The rejection, if any.
    public var rejection: Rejection? {
        if case .rejected(let r) = self { return r }
        return nil
    }
}

extension Outcome: Codable {
    private enum TagKey: String, CodingKey { case kind }

    /// Decodes a tagged outcome.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: TagKey.self)
        switch try container.decode(String.self, forKey: .kind) {
        case "committed": self = .committed(try CommittedOperation(from: decoder))
        case "rejected": self = .rejected(try Rejection(from: decoder))
        case let other:
            throw DecodingError.dataCorruptedError(
                forKey: .kind, in: container,
                debugDescription: "Unknown outcome kind \"\(other)\"; expected committed or rejected.")
        }
    }

    /// Encodes a tagged outcome.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: TagKey.self)
        switch self {
        case .committed(let c):
            try container.encode("committed", forKey: .kind)
            try c.encode(to: encoder)
        case .rejected(let r):
            try container.encode("rejected", forKey: .kind)
            try r.encode(to: encoder)
        }
    }
}
