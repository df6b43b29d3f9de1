extension BoardOperation {
    /// Whether two operations are the same request, as a resend must be (R14).
    ///
    /// What the server fills in or rewrites does not count: the drag session a move or delete
    /// finishes (a resend after a reconnect comes from a new connection with new session keys)
    /// a placeholder's `createdAt`, a comment's author name and time, and the name and time a delete or
    /// restore carries for the Trash (R15). Everything else must be equal.
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
            delete.name = nil
            delete.at = nil
            return .delete(delete)
        case .deleteSection(var delete):
            delete.name = nil
            delete.at = nil
            return .deleteSection(delete)
        case .deleteCollection(var delete):
            delete.name = nil
            delete.at = nil
            return .deleteCollection(delete)
        case .restore(var restore):
            restore.at = nil
            return .restore(restore)
        case .moveOut(var delete):
            delete.session = nil
            return .moveOut(delete)
        case .insertPlaceholder(var placeholder):
            placeholder.createdAt = 0
            return .insertPlaceholder(placeholder)
        case .addComment(var add) where add.restore == nil:
            add.at = nil
            add.name = nil
            return .addComment(add)
        default:
            return self
        }
    }
}

/// A 128-bit fingerprint of an operation as a resend must repeat it (`isSameOperation(as:)`): what
/// the resend memory keeps instead of the operation (R18). Two hashes with different salts, so
/// telling a resend from another operation under the same opId fails only by a 2⁻¹²⁸ accident.
/// Seeded per process, like `Hasher`: never stored or sent.
public struct OperationFingerprint: Hashable, Sendable {
    let low: Int
    let high: Int
}

extension BoardOperation {
    /// The fingerprint of the operation without the values a resend may legitimately change.
    ///
    /// - Complexity: O(n) in the size of the operation.
    public var resendFingerprint: OperationFingerprint {
        let identity = resendIdentity
        var low = Hasher()
        low.combine(0x5EED_0001)
        identity.hash(into: &low)
        var high = Hasher()
        high.combine(0x5EED_0002)
        identity.hash(into: &high)
        return OperationFingerprint(low: low.finalize(), high: high.finalize())
    }
}
