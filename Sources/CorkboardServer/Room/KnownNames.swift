/// The names of the board's people as its room knows them (issue 41, "Assign"): the invited
/// people (issue 45), everyone who joined while the room has been up, and everyone the stored
/// activity feed names, most recent first, each once, at most `limit`. A `welcome` carries them (`names`), so a person can be
/// assigned to a card when they are not on the board right now.
///
/// A value the room's state owns; a name is noted when a member joins, when a person is invited
/// in, and when the stored feed is read, so remembering costs nothing per operation. Bounded (R18): the least recent name goes
/// first.
struct KnownNames {
    /// The most names kept (and sent in a `welcome`).
    static let limit = 100

    /// The names, least recent first.
    private(set) var leastRecentFirst: [String] = []

    /// Notes that `name` was seen now (a member joined under it, or an activity entry names it).
    mutating func note(_ name: String) {
        guard !name.isEmpty else { return }
        if let index = leastRecentFirst.lastIndex(of: name) {
            if index == leastRecentFirst.count - 1 { return }
            leastRecentFirst.remove(at: index)
        }
        leastRecentFirst.append(name)
        if leastRecentFirst.count > Self.limit { leastRecentFirst.removeFirst(leastRecentFirst.count - Self.limit) }
    }

    /// The names, most recent first, as a `welcome` carries them.
    var mostRecentFirst: [String] { leastRecentFirst.reversed() }
}
