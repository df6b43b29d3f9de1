extension Board {
    /// The cards that carry a label, by id.
    ///
    /// - Complexity: O(cards with details).
    public func cards(carrying label: LabelID) -> [ItemID] {
        cardDetails.compactMap { slot, details in details.labels.contains(label) ? nodes[Int(slot)].id : nil }.sorted()
    }

    /// The definitions of the labels that cards in these trees carry, in the board's order: what a
    /// move or copy to another board brings along.
    ///
    /// - Complexity: O(size of the trees + labels).
    public func labelDefinitions(for trees: [Item]) -> [Label] {
        var used = Set<LabelID>()
        func visit(_ item: Item) {
            used.formUnion(item.details?.labels ?? [])
            for child in item.children ?? [] { visit(child) }
        }
        trees.forEach(visit)
        return labels.filter { used.contains($0.id) }
    }

    mutating func addLabel(_ label: Label, at index: Int) {
        labels.insert(label, at: min(max(index, 0), labels.count))
        contentBytes += SnapshotSize.label(label)
    }

    /// `setLabel`: a new label is added at its index (while the board has room), a known one takes
    /// the new name and colour.
    mutating func applySetLabel(_ set: BoardOperation.SetLabel) throws(Rejection) -> Effect {
        if let problem = set.label.problem {
            throw Rejection(.invalid, problem.message, field: "label.\(problem.field)")
        }
        if let index = labels.firstIndex(where: { $0.id == set.label.id }) {
            contentBytes += SnapshotSize.label(set.label) - SnapshotSize.label(labels[index])
            labels[index] = set.label
            return Effect()
        }
        guard labels.count < CardLimits.labels else {
            throw Rejection(
                .invalid, "A board has at most \(CardLimits.labels) labels; delete one before adding another.",
                field: "label")
        }
        addLabel(set.label, at: set.index ?? labels.count)
        return Effect()
    }

    /// `deleteLabel`: the label leaves the board and every card that carried it.
    mutating func applyDeleteLabel(_ delete: BoardOperation.DeleteLabel) throws(Rejection) -> Effect {
        guard let index = labels.firstIndex(where: { $0.id == delete.label }) else {
            throw Rejection(
                .notFound, "The board has no label \(delete.label); it may have been deleted already.",
                field: "label")
        }
        contentBytes -= SnapshotSize.label(labels[index])
        labels.remove(at: index)
        for (slot, details) in cardDetails where details.labels.contains(delete.label) {
            var changed = details
            changed.labels.removeAll { $0 == delete.label }
            setDetails(changed, of: slot)
        }
        return Effect()
    }

    /// Adds the definitions an insert brings for labels the board lacks, while it has room.
    mutating func adoptLabels(_ definitions: [Label]?) {
        for label in definitions ?? [] where labels.count < CardLimits.labels && self.label(label.id) == nil {
            addLabel(label, at: labels.count)
        }
    }
}
