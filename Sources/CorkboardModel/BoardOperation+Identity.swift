extension BoardOperation {
    /// Whether two operations are the same request, as a resend must be (R14).
    ///
    /// What the server fills in or rewrites does not count: the drag session a move or delete
    /// finishes (a resend after a reconnect comes from a new connection with new session keys)
    /// and a placeholder's `createdAt`. Everything else must be equal.
    ///
    /// - Complexity: O(n) in the size of the operations.
    public func isSameOperation(as other: BoardOperation) -> Bool {
        resendIdentity == other.resendIdentity
    }

    /// The operation without the values a resend may legitimately change.
    private var resendIdentity: BoardOperation {
        switch self {
        case .move(var move):
            move.session = nil
            return .move(move)
        case .delete(var delete):
            delete.session = nil
            return .delete(delete)
        case .moveOut(var delete):
            delete.session = nil
            return .moveOut(delete)
        case .insertPlaceholder(var placeholder):
            placeholder.createdAt = 0
            return .insertPlaceholder(placeholder)
        default:
            return self
        }
    }
}
