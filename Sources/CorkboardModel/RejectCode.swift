/// Why an operation was rejected; the raw values are the wire codes.
public enum RejectCode: String, Hashable, Codable, Sendable, CaseIterable {
    /// The destination does not accept the items' types (R5), or the item may not be dragged
    /// (a placeholder).
    case forbidden
    /// Every item the operation names was deleted before it applied (R4).
    case gone
    /// The destination section, collection or target item no longer exists (R4); nothing moved.
    case destinationGone = "destination-gone"
    /// The drop would put an item into itself or one of its descendants (R7).
    case cycle
    /// An item is leased to another drag session (R9).
    case locked
    /// The operation is malformed (empty item list, duplicates, missing target, …).
    case invalid
    /// The client may only view this board (used by the rooms layer).
    case readOnly = "read-only"
    /// A placeholder was committed or deleted by a client that does not own it (R8).
    case notOwner = "not-owner"
    /// An id chosen for a new item, section or collection is already in use.
    case duplicateID = "duplicate-id"
    /// A collection or section named by a structural operation does not exist.
    case notFound = "not-found"
    /// The server could not store the operation durably (disk full, read-only or damaged
    /// database); nothing changed. Used by the rooms layer; retry later.
    case storeFailed = "store-failed"
    /// The opId was already used by this client for a different operation (R14); nothing was
    /// applied. A resend must repeat the same operation; a new one needs a new opId.
    case conflict
    /// The operation would make the board's snapshot larger than the room's limit (R14, 64 MiB by
    /// default); nothing changed. Delete or move items first, or raise the limit.
    case tooLarge = "too-large"
}

/// A rejected operation: a code, a sentence saying what went wrong and what to do, and optionally
/// the offending field and item.
///
/// JSON shape: `{"code":"locked","message":"…","field":"items","item":"i7"}`.
public struct Rejection: Error, Hashable, Codable, Sendable, CustomStringConvertible {
    /// The machine-readable code.
    public var code: RejectCode
    /// A human sentence: what went wrong and what to do about it.
    public var message: String
    /// The operation field at fault, when there is one.
    public var field: String?
    /// The item at fault, when there is one.
    public var item: ItemID?

    /// Creates a rejection.
    public init(_ code: RejectCode, _ message: String, field: String? = nil, item: ItemID? = nil) {
        self.code = code
        self.message = message
        self.field = field
        self.item = item
    }

    /// The rejection the rooms layer sends to a viewer who tried to change the board.
    public static let readOnly = Rejection(
        .readOnly, "You can only view this board; ask its owner for edit access to change it.")

    /// `code: message`.
    public var description: String { "\(code.rawValue): \(message)" }
}
