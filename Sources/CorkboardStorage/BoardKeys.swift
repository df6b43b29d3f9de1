/// The keys of a board: the edit key opens the editor role, the view key the viewer role.
///
/// An open board (the `--demo` board of `make run`) lets anyone edit, with or without a key.
public struct BoardKeys: Hashable, Codable, Sendable {
    /// Opens the editor role.
    public var edit: String
    /// Opens the viewer role.
    public var view: String
    /// Anyone may edit, whatever key they present.
    public var isOpen: Bool

    /// Creates keys.
    public init(edit: String, view: String, isOpen: Bool = false) {
        self.edit = edit
        self.view = view
        self.isOpen = isOpen
    }

    /// New random keys of 128 bits each.
    public static func random() -> BoardKeys {
        BoardKeys(edit: RandomToken.make(prefix: "e-"), view: RandomToken.make(prefix: "v-"))
    }

    /// Compares two secrets in time independent of where they differ (keys, resume tokens).
    public static func constantTimeEquals(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8)
        let y = Array(b.utf8)
        guard x.count == y.count else { return false }
        var difference: UInt8 = 0
        for i in x.indices { difference |= x[i] ^ y[i] }
        return difference == 0
    }
}
