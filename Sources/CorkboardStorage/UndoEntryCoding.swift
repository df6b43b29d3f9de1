public import CorkboardModel
public import Foundation

/// How both stores write an undo entry (R13): its client, stack and seq as columns, its recipe as
/// bytes, so the two stores keep the same bytes. A move's recipe, what a busy board writes most,
/// goes in its compact form (`UndoRecipe.compactBytes`, cheap to make on the writer's time); any
/// other as JSON (`UndoRecipe` is `Codable`). The first byte tells them apart.
public enum UndoEntryCoding {
    /// The recipe's bytes: compact for a move, JSON otherwise.
    ///
    /// - Throws: `StoreError` (`invalidData`) when it cannot be encoded.
    public static func encode(_ entry: UndoHistory.StoredEntry) throws(StoreError) -> [UInt8] {
        if let compact = entry.recipe.compactBytes { return compact }
        do {
            return Array(try JSONEncoder().encode(entry.recipe))
        } catch {
            throw StoreError(
                .invalidData, "The undo entry of \(entry.clientId) at seq \(entry.seq) cannot be encoded: \(error).")
        }
    }

    /// An entry from its columns.
    ///
    /// - Throws: `StoreError` (`invalidData`) naming the board, client and seq when the stack or the
    ///   recipe does not decode.
    public static func decode(board: String, clientId: String, stack: String, seq: Int, data: Data)
        throws(StoreError) -> UndoHistory.StoredEntry
    {
        guard let direction = UndoHistory.Direction(rawValue: stack) else {
            throw StoreError(
                .invalidData, "The undo entry of \(clientId) at seq \(seq) on \(board) names no stack (\(stack)).")
        }
        do {
            let recipe =
                data.first == UndoRecipe.compactTag
                ? try UndoRecipe(compact: data) : try JSONDecoder().decode(UndoRecipe.self, from: data)
            return UndoHistory.StoredEntry(clientId: clientId, stack: direction, seq: seq, recipe: recipe)
        } catch {
            throw StoreError(
                .invalidData, "The undo entry of \(clientId) at seq \(seq) on \(board) does not decode: \(error).")
        }
    }
}
