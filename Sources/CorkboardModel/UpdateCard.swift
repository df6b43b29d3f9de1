extension BoardOperation {
    /// Payload of `updateCard`: changes a card's details (R16), all parts or none.
    ///
    /// JSON shape (every part optional, at least one present):
    /// `{"item":"i1","description":{"text":"…","version":3},"dates":{"due":…,"start":…,"version":1},`
    /// `"done":true,"assign":["Ada"],"unassign":["Bob"],"addLabels":["l1"],"removeLabels":["l2"],`
    /// `"attach":[{"url":"/files/…","name":"…","type":"…","bytes":1}],"detach":["/files/…"],"cover":"/files/…"}`.
    public struct UpdateCard: Hashable, Codable, Sendable {
        /// A new description, made on `version` (the card's `descriptionVersion` the editor saw;
        /// `nil` replaces whatever is there).
        public struct Description: Hashable, Codable, Sendable {
            /// The markdown text; empty clears the description.
            public var text: String
            /// The `descriptionVersion` the edit was made on.
            public var version: Int?

            /// Creates a description change.
            public init(_ text: String, version: Int? = nil) {
                self.text = text
                self.version = version
            }
        }

        /// New dates, both at once (a date left out is cleared), made on `version` (the card's
        /// `datesVersion` the editor saw; `nil` replaces whatever is there).
        public struct Dates: Hashable, Codable, Sendable {
            /// The due date, in milliseconds since 1970.
            public var due: Int?
            /// The start date, in milliseconds since 1970; never after `due`.
            public var start: Int?
            /// The `datesVersion` the change was made on.
            public var version: Int?

            /// Creates a dates change.
            public init(due: Int?, start: Int? = nil, version: Int? = nil) {
                self.due = due
                self.start = start
                self.version = version
            }
        }

        /// The card.
        public var item: ItemID
        /// Its new description.
        public var description: Description?
        /// Its new dates.
        public var dates: Dates?
        /// Its new done flag.
        public var done: Bool?
        /// People to assign (those already assigned are left as they are).
        public var assign: [String]?
        /// People to unassign (those not assigned are left as they are).
        public var unassign: [String]?
        /// Labels of the board to put on the card (those it carries are left as they are).
        public var addLabels: [LabelID]?
        /// Labels to take off the card (those it does not carry are left as they are).
        public var removeLabels: [LabelID]?
        /// Files to attach (one already attached, by its url, is left as it is).
        public var attach: [Attachment]?
        /// The urls of files to detach (one not attached is left as it is); detaching the cover
        /// leaves the card without one.
        public var detach: [String]?
        /// The url of an attached image to show as the cover, or `""` for none.
        public var cover: String?

        /// Creates a card update.
        public init(
            item: ItemID, description: Description? = nil, dates: Dates? = nil, done: Bool? = nil,
            assign: [String]? = nil, unassign: [String]? = nil, addLabels: [LabelID]? = nil,
            removeLabels: [LabelID]? = nil, attach: [Attachment]? = nil, detach: [String]? = nil, cover: String? = nil
        ) {
            self.item = item
            self.description = description
            self.dates = dates
            self.done = done
            self.assign = assign
            self.unassign = unassign
            self.addLabels = addLabels
            self.removeLabels = removeLabels
            self.attach = attach
            self.detach = detach
            self.cover = cover
        }

        /// Whether it changes nothing at all (no part present).
        public var isEmpty: Bool {
            description == nil && dates == nil && done == nil && assign == nil && unassign == nil
                && addLabels == nil && removeLabels == nil && attach == nil && detach == nil && cover == nil
        }

        /// The details after this update, versions stepped, without any check.
        ///
        /// - Complexity: O(assignees × names named).
        public func applied(to old: CardDetails) -> CardDetails {
            var new = old
            if let description {
                new.description = description.text
                new.descriptionVersion += 1
            }
            if let dates {
                new.due = dates.due
                new.start = dates.start
                new.datesVersion += 1
            }
            if let done { new.done = done }
            if let unassign { new.assignees.removeAll { unassign.contains($0) } }
            for name in assign ?? [] where !new.assignees.contains(name) { new.assignees.append(name) }
            if let removeLabels { new.labels.removeAll { removeLabels.contains($0) } }
            for label in addLabels ?? [] where !new.labels.contains(label) { new.labels.append(label) }
            if let detach {
                new.attachments.removeAll { detach.contains($0.url) }
                if let cover = new.cover, detach.contains(cover) { new.cover = nil }
            }
            for file in attach ?? [] where !new.attachments.contains(where: { $0.url == file.url }) {
                new.attachments.append(file)
            }
            if let cover { new.cover = cover.isEmpty ? nil : cover }
            return new
        }

        /// The update that puts back what this one changes on `old`: the old description and dates
        /// (made on the versions this update leaves, so that a later change by anyone refuses it
        /// `conflict`), the old done flag, and the people it really assigned or unassigned.
        ///
        /// - Complexity: O(assignees × names named).
        public func reverse(of old: CardDetails) -> BoardOperation.UpdateCard {
            let added = (assign ?? []).filter { !old.assignees.contains($0) }
            let removed = (unassign ?? []).filter { old.assignees.contains($0) && !(assign ?? []).contains($0) }
            let put = (addLabels ?? []).filter { !old.labels.contains($0) }
            let taken = (removeLabels ?? []).filter { old.labels.contains($0) && !(addLabels ?? []).contains($0) }
            let new = applied(to: old)
            let attached = new.attachments.filter { file in !old.attachments.contains { $0.url == file.url } }
            let detached = old.attachments.filter { file in !new.attachments.contains { $0.url == file.url } }
            return BoardOperation.UpdateCard(
                item: item,
                description: description.map { _ in Description(old.description, version: old.descriptionVersion + 1) },
                dates: dates.map { _ in Dates(due: old.due, start: old.start, version: old.datesVersion + 1) },
                done: done.map { _ in old.done }, assign: removed.isEmpty ? nil : removed,
                unassign: added.isEmpty ? nil : added, addLabels: taken.isEmpty ? nil : taken,
                removeLabels: put.isEmpty ? nil : put, attach: detached.isEmpty ? nil : detached,
                detach: attached.isEmpty ? nil : attached.map(\.url),
                cover: new.cover == old.cover ? nil : old.cover ?? "")
        }
    }
}
