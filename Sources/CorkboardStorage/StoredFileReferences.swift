import CorkboardModel
import Foundation

/// The stored files (`<sha256>.<ext>`, see `Attachment.StoredFile`) that boards still refer to:
/// their cards' attachments and covers, image cards, links in descriptions and comments, what the
/// Trash holds, what undo histories could put back, and operations kept for resuming clients.
///
/// It reads encoded board state as text and collects every stored file name in it, whatever the
/// field (a name is 64 lowercase hex digits, a dot and an extension the server stores). Matching by
/// name alone keeps a file if any board mentions its content: a card moved or copied to another
/// board keeps its file in the first board's folder, and the same upload on two boards is one name.
/// It errs only towards keeping a file.
public struct StoredFileReferences: Sendable {
    /// The file names found, `<sha256>.<ext>`.
    public private(set) var names: Set<String> = []

    /// No references yet.
    public init() {}

    /// Collects the file names in a board as a store holds it: its snapshot (the board, its Trash),
    /// the operations kept behind it, and every client's undo and redo entries.
    ///
    /// - Throws: an `EncodingError` when a part of the board cannot be encoded.
    public mutating func scan(_ board: StoredBoard) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .withoutEscapingSlashes
        scan(try encoder.encode(board.snapshot))
        for operation in board.log { scan(try encoder.encode(operation)) }
        for entry in board.undo { scan(try encoder.encode(entry.recipe)) }
    }

    /// Collects the file names in encoded text (JSON or anything else).
    ///
    /// - Complexity: O(`bytes.count`).
    public mutating func scan<Bytes: Collection<UInt8>>(_ bytes: Bytes) {
        // Runs of lowercase hex digits; at a dot after exactly 64 of them, the extension decides.
        var run = 0
        var index = bytes.startIndex
        while index != bytes.endIndex {
            let byte = bytes[index]
            if Attachment.isNameDigit(byte) {
                run += 1
            } else {
                if byte == UInt8(ascii: "."), run == 64, let name = name(endingAt: index, in: bytes) {
                    names.insert(name)
                }
                run = 0
            }
            index = bytes.index(after: index)
        }
    }

    /// Whether `name` (`<sha256>.<ext>`) is referred to.
    public func contains(_ name: String) -> Bool { names.contains(name) }

    /// The name whose 64 hex digits end at `dot`, when a stored extension follows that is not the
    /// start of a longer word.
    private func name<Bytes: Collection<UInt8>>(endingAt dot: Bytes.Index, in bytes: Bytes) -> String? {
        var end = bytes.index(after: dot)
        var letters = 0
        while end != bytes.endIndex, letters <= 4, Self.isLowercaseLetter(bytes[end]) {
            letters += 1
            end = bytes.index(after: end)
        }
        if end != bytes.endIndex, Attachment.isNameDigit(bytes[end]) || (bytes[end] >= 0x41 && bytes[end] <= 0x5a) {
            return nil
        }
        let fileExtension = Substring(decoding: bytes[bytes.index(after: dot)..<end], as: UTF8.self)
        guard Attachment.isStoredExtension(fileExtension) else { return nil }
        let start = bytes.index(dot, offsetBy: -64)
        return String(decoding: bytes[start..<end], as: UTF8.self)
    }

    private static func isLowercaseLetter(_ byte: UInt8) -> Bool { byte >= 0x61 && byte <= 0x7a }
}
