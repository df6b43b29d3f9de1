// Batches: several operations applied as one, all or none (R13, the server's undo and redo).

extension Board {
    mutating func applyBatch(_ batch: BoardOperation.Batch, clientId: String, opId: String) throws(Rejection)
        -> Effect
    {
        guard !batch.ops.isEmpty else {
            throw Rejection(.invalid, "The batch holds no operations; send at least one.", field: "ops")
        }
        for (index, op) in batch.ops.enumerated() {
            switch op {
            case .batch, .moveOut:
                throw Rejection(
                    .invalid, "A batch may not hold a \(op.kind) (part \(index)); list its operations directly.",
                    field: "ops.\(index)")
            default:
                continue
            }
        }
        // All or none: the parts apply in order on this board; the first refusal restores it.
        let before = self
        var effect = Effect()
        for op in batch.ops {
            do {
                let part = try apply(op, clientId: clientId, opId: opId)
                effect.changes += part.changes
                effect.skipped += part.skipped
                effect.removed += part.removed
                if let evicted = part.evicted { effect.evicted = (effect.evicted ?? []) + evicted }
            } catch {
                self = before
                throw error
            }
        }
        return effect
    }
}
