import CorkboardModel

/// Checks decoded client messages against `ProtocolLimits`: tokens, names, counts, indexes and
/// coordinates. Semantic checks (does the item exist, may this member do it) belong to the room.
enum MessageValidation {
    static func validate(_ message: ClientMessage) throws(ProtocolError) {
        try token(message.ref, "ref", optional: true)
        switch message {
        case .hello(let m):
            guard m.protocol == ProtocolLimits.version else {
                throw ProtocolError(
                    .unsupportedProtocol,
                    "This server speaks protocol \(ProtocolLimits.version), not \(m.protocol); reload the client.",
                    field: "protocol")
            }
            try token(m.board, "board")
            try token(m.key, "key", optional: true)
            try token(m.clientId, "clientId", optional: true)
            try token(m.resumeToken, "resumeToken", optional: true)
            try token(m.history, "history", optional: true)
            let name = m.name.trimmingWhitespace
            guard !name.isEmpty, name.count <= ProtocolLimits.maxNameCharacters else {
                throw ProtocolError(
                    .invalidField, "The name must be 1 to \(ProtocolLimits.maxNameCharacters) characters.",
                    field: "name")
            }
            if let lastSeq = m.lastSeq { try nonNegative(lastSeq, "lastSeq") }
            if let color = m.color { try memberColor(color) }
            try personFields(m)
        case .submit(let m):
            try opId(m.opId)
            try nonNegative(m.base, "base")
            try token(m.session, "session", optional: true)
            try validate(m.op)
        case .dragBegin(let m):
            try token(m.session, "session")
            try items(m.items, "items")
            let external = m.external ?? []
            guard external.count <= ProtocolLimits.maxExternalItems else {
                throw ProtocolError(
                    .invalidField, "A drag may carry at most \(ProtocolLimits.maxExternalItems) external items.",
                    field: "external")
            }
            guard !m.items.isEmpty || !external.isEmpty else {
                throw ProtocolError(.invalidField, "A drag needs at least one item or external item.", field: "items")
            }
            try externalTypes(external, "external")
        case .dragAdd(let m):
            try token(m.session, "session")
            try items(m.items, "items")
            guard !m.items.isEmpty else {
                throw ProtocolError(.invalidField, "dragAdd needs at least one item.", field: "items")
            }
        case .dropUpdate(let m):
            try token(m.session, "session")
            try token(m.target.board, "target.board", optional: true)
            try id(m.target.collection.rawValue, "target.collection")
            try id(m.target.section.rawValue, "target.section")
            try index(m.target.index, "target.index")
            try token(m.key, "key", optional: true)
        case .drop(let m):
            try token(m.session, "session")
            try opId(m.opId)
            try nonNegative(m.base, "base")
            try destination(m.destination, "destination")
            try destinationIDs(m.destination, "destination")
            try token(m.board, "board", optional: true)
            try token(m.key, "key", optional: true)
        case .dragEnd(let m):
            try token(m.session, "session")
        case .cursor(let m):
            for (value, field) in [(m.x, "x"), (m.y, "y")]
            where !value.isFinite || abs(value) > ProtocolLimits.maxCoordinate {
                throw ProtocolError(
                    .invalidField,
                    "Cursor coordinates must be finite and within ±\(Int(ProtocolLimits.maxCoordinate)).",
                    field: field)
            }
            if let collection = m.collection { try id(collection.rawValue, "collection") }
            if let drag = m.checklist {
                try id(drag.item.rawValue, "checklist.item")
                try id(drag.checklist.rawValue, "checklist.checklist")
                try id(drag.entry.rawValue, "checklist.entry")
                if let index = drag.index { try self.index(index, "checklist.index") }
            }
        case .presence:
            break
        case .sync(let m):
            try nonNegative(m.lastSeq, "lastSeq")
        case .ping:
            break
        case .editBegin(let m):
            try id(m.item.rawValue, "item")
        case .editEnd(let m):
            try id(m.item.rawValue, "item")
        case .undo(let m), .redo(let m):
            try opId(m.opId)
            try nonNegative(m.base, "base")
        case .listMembers(let m):
            guard m.ids == nil || m.after == nil else {
                throw ProtocolError(
                    .invalidField, "Ask for members by ids or for a page after a member, not both.", field: "after")
            }
            if let ids = m.ids {
                guard !ids.isEmpty, ids.count <= ProtocolLimits.memberListPage else {
                    throw ProtocolError(
                        .invalidField, "Ask for 1 to \(ProtocolLimits.memberListPage) members at a time.",
                        field: "ids")
                }
                for (index, id) in ids.enumerated() { try token(id, "ids.\(index)") }
            }
            try token(m.after, "after", optional: true)
            if let limit = m.limit, !(1...ProtocolLimits.memberListPage).contains(limit) {
                throw ProtocolError(
                    .invalidField, "limit must be 1 to \(ProtocolLimits.memberListPage).", field: "limit")
            }
        case .activity(let m):
            if let before = m.before, before < 1 {
                throw ProtocolError(.invalidField, "before must be a seq of 1 or more.", field: "before")
            }
            if let item = m.item { try id(item.rawValue, "item") }
            if let limit = m.limit, !(1...ActivityLimits.pageLimit).contains(limit) {
                throw ProtocolError(
                    .invalidField, "limit must be 1 to \(ActivityLimits.pageLimit).", field: "limit")
            }
        case .people(let request): try validate(request)
        }
    }

    private static func validate(_ op: BoardOperation) throws(ProtocolError) {
        if case .batch = op {
            throw ProtocolError(
                .invalidField,
                "batch is made by the server for undo and redo; send undo or redo, or each operation on its own.",
                field: "op.kind")
        }
        try content(op)
        switch op {
        case .move(let m):
            try items(m.items, "op.items")
            try destination(m.destination, "op.destination")
            try token(m.session, "op.session", optional: true)
        case .copy(let c):
            try items(c.items, "op.items")
            try destination(c.destination, "op.destination")
        case .insert(let i):
            try destination(i.destination, "op.destination")
        case .insertPlaceholder(let p):
            try destination(p.destination, "op.destination")
        case .delete(let d), .moveOut(let d):
            try items(d.items, "op.items")
        case .moveCollection(let m):
            try index(m.index, "op.index")
        case .moveSection(let m):
            try index(m.index, "op.index")
        case .createCollection(let c):
            if let i = c.index { try index(i, "op.index") }
        case .updateItem(let u):
            if let version = u.version { try nonNegative(version, "op.version") }
        case .createSection(let s):
            if let i = s.index { try index(i, "op.index") }
        case .setLabel(let s):
            if let i = s.index { try index(i, "op.index") }
        default:
            break
        }
    }

    private static func token(_ value: String?, _ field: String, optional: Bool = false) throws(ProtocolError) {
        guard let value else {
            if optional { return }
            throw ProtocolError(.missingField, "The field \"\(field)\" is required.", field: field)
        }
        guard !value.isEmpty, value.utf8.count <= ProtocolLimits.maxTokenBytes else {
            throw ProtocolError(
                .invalidField, "\"\(field)\" must be 1 to \(ProtocolLimits.maxTokenBytes) bytes long.", field: field)
        }
    }

    /// A client's opId: a token without `ProtocolLimits.reservedOpIdCharacter`, which names the
    /// halves of the operations the server makes for a drop across boards (R14).
    private static func opId(_ value: String) throws(ProtocolError) {
        try token(value, "opId")
        guard !value.contains(ProtocolLimits.reservedOpIdCharacter) else {
            throw ProtocolError(
                .invalidField,
                "\"opId\" must not contain \"\(ProtocolLimits.reservedOpIdCharacter)\": it is reserved for the "
                    + "operations the server makes for drops across boards.", field: "opId")
        }
    }

    /// `hello.invite` and `hello.device`: an invite needs a device and excludes a key; a device
    /// is `d-` and 32 lowercase hex digits.
    private static func personFields(_ hello: ClientMessage.Hello) throws(ProtocolError) {
        try token(hello.invite, "invite", optional: true)
        if hello.invite != nil, hello.key != nil {
            throw ProtocolError(
                .invalidField, "Send key or invite, not both: an invite link has no key.", field: "invite")
        }
        if hello.invite != nil, hello.device == nil {
            throw ProtocolError(
                .missingField, "An invite is claimed for a device: send device (\"d-\" and 32 hex digits) with it.",
                field: "device")
        }
        if let device = hello.device {
            let digits = device.utf8.dropFirst(2)
            guard device.utf8.count == 34, device.hasPrefix("d-"), digits.allSatisfy(isLowerHex) else {
                throw ProtocolError(
                    .invalidField, "\"device\" must be \"d-\" and 32 lowercase hex digits.", field: "device")
            }
        }
    }

    /// An admin's request about the board's people: names and ids within their limits.
    static func validate(_ request: PeopleRequest) throws(ProtocolError) {
        switch request {
        case .listPeople, .rotateLinks, .setLinks: break
        case .createInvite(let m):
            let name = m.name.trimmingWhitespace
            guard !name.isEmpty, name.count <= ProtocolLimits.maxNameCharacters else {
                throw ProtocolError(
                    .invalidField, "An invite's name must be 1 to \(ProtocolLimits.maxNameCharacters) characters.",
                    field: "name")
            }
            if let expiresAt = m.expiresAt, !expiresAt.isFinite || expiresAt <= 0 {
                throw ProtocolError(
                    .invalidField, "\"expiresAt\" must be a time in seconds since 1970.", field: "expiresAt")
            }
        case .updateInvite(let m): try token(m.invite, "invite")
        case .setRole(let m): try token(m.person, "person")
        case .removePerson(let m): try token(m.person, "person")
        }
    }

    private static func isLowerHex(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
    }

    /// `hello.color`: a lowercase `#rrggbb`; one outside the palette is not refused, only not given.
    private static func memberColor(_ value: String) throws(ProtocolError) {
        let hex = value.utf8.dropFirst()
        guard value.utf8.count == 7, value.utf8.first == UInt8(ascii: "#"),
            hex.allSatisfy({
                (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0)
                    || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0)
            })
        else {
            throw ProtocolError(
                .invalidField, "\"color\" must be a lowercase #rrggbb colour such as #1971c2, or left out.",
                field: "color")
        }
    }

    static func nonNegative(_ value: Int, _ field: String) throws(ProtocolError) {
        guard value >= 0 else {
            throw ProtocolError(.invalidField, "\"\(field)\" must not be negative, got \(value).", field: field)
        }
    }

    private static func index(_ value: Int, _ field: String) throws(ProtocolError) {
        guard (0...ProtocolLimits.maxIndex).contains(value) else {
            throw ProtocolError(
                .invalidField, "\"\(field)\" must be between 0 and \(ProtocolLimits.maxIndex), got \(value).",
                field: field)
        }
    }

    private static func items(_ items: [ItemID], _ field: String) throws(ProtocolError) {
        guard items.count <= ProtocolLimits.maxItemsPerDrag else {
            throw ProtocolError(
                .invalidField, "At most \(ProtocolLimits.maxItemsPerDrag) items, got \(items.count).", field: field)
        }
        for (offset, item) in items.enumerated() { try token(item.rawValue, "\(field).\(offset)") }
    }

    private static func destination(_ destination: Destination, _ field: String) throws(ProtocolError) {
        try index(destination.index, "\(field).index")
    }
}

extension String {
    /// The string without leading and trailing whitespace.
    var trimmingWhitespace: String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
            let last = scalars.lastIndex(where: { !$0.properties.isWhitespace })
        else { return "" }
        return String(scalars[first...last])
    }
}
