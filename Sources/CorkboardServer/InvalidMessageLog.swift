/// The times of a connection's recent invalid messages, for closing a connection that keeps
/// sending them (1008). The hub keeps one for connections that have not joined, the room for members.
struct InvalidMessageLog {
    private var times: [BoardTime] = []

    /// Records an invalid message at `now`; returns whether the connection passed
    /// `configuration.invalidMessageLimit` within `configuration.invalidMessageWindow`.
    mutating func record(at now: BoardTime, _ configuration: RoomConfiguration) -> Bool {
        times.removeAll { $0.duration(to: now) > configuration.invalidMessageWindow }
        times.append(now)
        return times.count > configuration.invalidMessageLimit
    }
}
