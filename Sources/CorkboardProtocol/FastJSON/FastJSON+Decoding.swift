import CorkboardModel

/// Decoding the hot client messages (see `FastJSON`).
///
/// The reader goes through the bytes once and puts each member straight into the field it names:
/// no tree of values, no dictionary, no `String` for a key (keys are compared as bytes), one
/// `String` per string value the message keeps. What it accepts is the plain subset `FastJSON`
/// describes, with the message's own keys only, each at most once; anything else is `nil` and
/// goes to `JSONDecoder`.
extension FastJSON {
    /// Decodes a client message through the fast path, or returns `nil` to leave it to `JSONDecoder`.
    ///
    /// - Complexity: O(n) in the message size, without intermediate allocations.
    static func decodeClientMessage(_ bytes: UnsafeBufferPointer<UInt8>) -> ClientMessage? {
        var reader = Reader(bytes: bytes)
        var fields = MessageFields()
        guard reader.object({ reader, key in fields.read(key, from: &reader) }), reader.atEnd else { return nil }
        return fields.message()
    }

    /// The members a `dropUpdate`, `drop`, `dragBegin` (of board items only) or `submit` (of a
    /// `move`) may have, as read.
    private struct MessageFields {
        var seen = KeySet()
        var type: String?
        var ref: String?
        var session: String?
        var target: DragTarget?
        var copy: Bool?
        var key: String?
        var opId: String?
        var base: Int?
        var destination: Destination?
        var board: String?
        var move: BoardOperation.Move?
        var items: [String]?

        /// Each message's keys (`type` among them).
        static let dropUpdateKeys: KeySet = [.type, .ref, .session, .target, .copy, .key]
        static let dropKeys: KeySet = [.type, .ref, .session, .opId, .base, .destination, .copy, .board, .key]
        static let submitKeys: KeySet = [.type, .ref, .opId, .base, .op, .session]
        /// `external` (content dragged in from outside) is not among them: such a drag is rare and
        /// goes to `JSONDecoder`.
        static let dragBeginKeys: KeySet = [.type, .ref, .session, .items]

        /// Reads the value of member `name`; `false` for a repeated member, a value of the wrong
        /// kind, or a key no message has at this level.
        mutating func read(_ name: Key, from reader: inout Reader) -> Bool {
            guard seen.insert(name) else { return false }
            switch name {
            case .type: return store(reader.string(), in: &type)
            case .ref: return store(reader.string(), in: &ref)
            case .session: return store(reader.string(), in: &session)
            case .target: return store(reader.target(), in: &target)
            case .copy: return store(reader.bool(), in: &copy)
            case .key: return store(reader.string(), in: &key)
            case .opId: return store(reader.string(), in: &opId)
            case .base: return store(reader.int(), in: &base)
            case .destination: return store(reader.destination(), in: &destination)
            case .board: return store(reader.string(), in: &board)
            case .op: return store(reader.move(), in: &move)
            case .items: return store(reader.strings(), in: &items)
            default: return false
            }
        }

        /// The message, when every required member is there and no other message's member is.
        func message() -> ClientMessage? {
            switch type {
            case "dropUpdate":
                guard seen.isSubset(of: Self.dropUpdateKeys), let session, let target else { return nil }
                return .dropUpdate(
                    ClientMessage.DropUpdate(ref: ref, session: session, target: target, copy: copy, key: key))
            case "drop":
                guard seen.isSubset(of: Self.dropKeys), let session, let opId, let base, let destination else {
                    return nil
                }
                return .drop(
                    ClientMessage.Drop(
                        ref: ref, session: session, opId: opId, base: base, destination: destination, copy: copy,
                        board: board, key: key))
            case "submit":
                guard seen.isSubset(of: Self.submitKeys), let opId, let base, let move else { return nil }
                return .submit(
                    ClientMessage.Submit(ref: ref, opId: opId, base: base, op: .move(move), session: session))
            case "dragBegin":
                guard seen.isSubset(of: Self.dragBeginKeys), let session, let items else { return nil }
                return .dragBegin(ClientMessage.DragBegin(ref: ref, session: session, items: items.map { ItemID($0) }))
            default:
                return nil
            }
        }
    }

    /// Every member name the fast path knows, at any level.
    enum Key: UInt32 {
        case type, ref, session, target, copy, key, opId, base, destination, board, op
        case collection, section, index, intent, after, before, kind, items

        /// The key named by `bytes`, if it is one of these.
        init?(_ bytes: UnsafeBufferPointer<UInt8>) {
            // Dispatch on length, then compare the bytes: no hashing, no String.
            func `is`(_ name: StaticString) -> Bool {
                name.utf8CodeUnitCount == bytes.count
                    && memcmpEqual(name.utf8Start, bytes.baseAddress, bytes.count)
            }
            switch bytes.count {
            case 2: if `is`("op") { self = .op } else { return nil }
            case 3: if `is`("ref") { self = .ref } else if `is`("key") { self = .key } else { return nil }
            case 4:
                if `is`("type") {
                    self = .type
                } else if `is`("copy") {
                    self = .copy
                } else if `is`("opId") {
                    self = .opId
                } else if `is`("base") {
                    self = .base
                } else if `is`("kind") {
                    self = .kind
                } else {
                    return nil
                }
            case 5:
                if `is`("board") {
                    self = .board
                } else if `is`("index") {
                    self = .index
                } else if `is`("after") {
                    self = .after
                } else if `is`("items") {
                    self = .items
                } else {
                    return nil
                }
            case 6:
                if `is`("target") {
                    self = .target
                } else if `is`("intent") {
                    self = .intent
                } else if `is`("before") {
                    self = .before
                } else {
                    return nil
                }
            case 7:
                if `is`("session") {
                    self = .session
                } else if `is`("section") {
                    self = .section
                } else {
                    return nil
                }
            case 10: if `is`("collection") { self = .collection } else { return nil }
            case 11: if `is`("destination") { self = .destination } else { return nil }
            default: return nil
            }
        }
    }

    /// A set of `Key`s as bits.
    struct KeySet: ExpressibleByArrayLiteral {
        var bits: UInt32 = 0

        init(arrayLiteral keys: Key...) { for key in keys { bits |= 1 << key.rawValue } }

        /// Adds `key`; `false` when it was already there (a repeated member).
        mutating func insert(_ key: Key) -> Bool {
            let bit: UInt32 = 1 << key.rawValue
            defer { bits |= bit }
            return bits & bit == 0
        }

        func isSubset(of other: KeySet) -> Bool { bits & ~other.bits == 0 }
    }

    /// Reads the plain subset in one pass; every method returns `nil` (or `false`) on anything
    /// outside it, leaving the position undefined.
    struct Reader {
        let bytes: UnsafeBufferPointer<UInt8>
        var at = 0

        init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

        /// Whether only whitespace is left.
        var atEnd: Bool {
            mutating get {
                skipSpace()
                return at == bytes.count
            }
        }

        mutating func skipSpace() {
            while at < bytes.count {
                switch bytes[at] {
                case 0x20, 0x09, 0x0A, 0x0D: at += 1
                default: return
                }
            }
        }

        /// Skips whitespace and then `byte`; `false` when something else comes.
        mutating func consume(_ byte: UInt8) -> Bool {
            skipSpace()
            guard at < bytes.count, bytes[at] == byte else { return false }
            at += 1
            return true
        }

        /// The bytes of a string without escapes or control characters (not yet checked as UTF-8).
        mutating func rawString() -> UnsafeBufferPointer<UInt8>? {
            guard consume(UInt8(ascii: "\"")) else { return nil }
            let start = at
            while at < bytes.count {
                let byte = bytes[at]
                if byte == UInt8(ascii: "\"") {
                    at += 1
                    return UnsafeBufferPointer(rebasing: bytes[start..<(at - 1)])
                }
                if byte == UInt8(ascii: "\\") || byte < 0x20 { return nil }
                at += 1
            }
            return nil
        }

        /// A string without escapes or control characters, valid UTF-8.
        ///
        /// Ids and names are almost always ASCII, which is valid UTF-8 as it is: those bytes go
        /// straight into the string, skipping the generic `String(validating:as:)` (its metadata
        /// lookups and validation showed in the server's profile at 10,000 clients).
        mutating func string() -> String? {
            guard let raw = rawString() else { return nil }
            var high: UInt8 = 0
            for byte in raw { high |= byte }
            if high < 0x80 { return String(decoding: raw, as: UTF8.self) }
            return String(validating: raw, as: UTF8.self)
        }

        /// `true` or `false`.
        mutating func bool() -> Bool? {
            skipSpace()
            if literal("true") { return true }
            if literal("false") { return false }
            return nil
        }

        private mutating func literal(_ word: StaticString) -> Bool {
            let count = word.utf8CodeUnitCount
            guard bytes.count - at >= count, memcmpEqual(word.utf8Start, bytes.baseAddress! + at, count) else {
                return false
            }
            at += count
            return true
        }

        /// An integer without fraction or exponent, no leading zeros, at most 18 digits (more is
        /// left to `JSONDecoder`).
        mutating func int() -> Int? {
            skipSpace()
            guard at < bytes.count else { return nil }
            var negative = false
            if bytes[at] == UInt8(ascii: "-") {
                negative = true
                at += 1
            }
            let start = at
            var value = 0
            while at < bytes.count, bytes[at] >= UInt8(ascii: "0"), bytes[at] <= UInt8(ascii: "9") {
                guard at - start < 18 else { return nil }
                value = value * 10 + Int(bytes[at] - UInt8(ascii: "0"))
                at += 1
            }
            let digits = at - start
            guard digits > 0, digits == 1 || bytes[start] != UInt8(ascii: "0") else { return nil }
            if at < bytes.count, bytes[at] == UInt8(ascii: ".") || bytes[at] | 0x20 == UInt8(ascii: "e") {
                return nil
            }
            return negative ? -value : value
        }

        /// An array of strings.
        mutating func strings() -> [String]? {
            guard consume(UInt8(ascii: "[")) else { return nil }
            var out: [String] = []
            if consume(UInt8(ascii: "]")) { return out }
            while true {
                guard let value = string() else { return nil }
                out.append(value)
                if consume(UInt8(ascii: ",")) { continue }
                return consume(UInt8(ascii: "]")) ? out : nil
            }
        }

        /// An object: `member` reads each member's value (the reader is at the value) after its
        /// key; an unknown key, or `member` returning `false`, fails the object.
        mutating func object(_ member: (inout Reader, Key) -> Bool) -> Bool {
            guard consume(UInt8(ascii: "{")) else { return false }
            if consume(UInt8(ascii: "}")) { return true }
            while true {
                guard let raw = rawString(), let key = Key(raw), consume(UInt8(ascii: ":")), member(&self, key)
                else { return false }
                if consume(UInt8(ascii: ",")) { continue }
                return consume(UInt8(ascii: "}"))
            }
        }

        /// A drop intent by its name.
        mutating func intent() -> DropIntent? {
            string().flatMap(DropIntent.init(rawValue:))
        }

        /// `dropUpdate.target`.
        mutating func target() -> DragTarget? {
            var seen = KeySet()
            var board: String?
            var collection: String?
            var section: String?
            var index: Int?
            var intent: DropIntent?
            let read = object { reader, key in
                guard seen.insert(key) else { return false }
                switch key {
                case .board: return store(reader.string(), in: &board)
                case .collection: return store(reader.string(), in: &collection)
                case .section: return store(reader.string(), in: &section)
                case .index: return store(reader.int(), in: &index)
                case .intent: return store(reader.intent(), in: &intent)
                default: return false
                }
            }
            guard read, let collection, let section, let index, let intent else { return nil }
            return DragTarget(
                board: board, collection: CollectionID(collection), section: SectionID(section), index: index,
                intent: intent)
        }

        /// A `drop`'s or a `move`'s destination.
        mutating func destination() -> Destination? {
            var seen = KeySet()
            var collection: String?
            var section: String?
            var index: Int?
            var after: String?
            var before: String?
            var intent: DropIntent?
            var target: String?
            let read = object { reader, key in
                guard seen.insert(key) else { return false }
                switch key {
                case .collection: return store(reader.string(), in: &collection)
                case .section: return store(reader.string(), in: &section)
                case .index: return store(reader.int(), in: &index)
                case .after: return store(reader.string(), in: &after)
                case .before: return store(reader.string(), in: &before)
                case .intent: return store(reader.intent(), in: &intent)
                case .target: return store(reader.string(), in: &target)
                default: return false
                }
            }
            guard read, let collection, let section, let index, let intent else { return nil }
            return Destination(
                collection: CollectionID(collection), section: SectionID(section), index: index,
                after: after.map { ItemID($0) }, before: before.map { ItemID($0) }, intent: intent,
                target: target.map { ItemID($0) })
        }

        /// `submit.op` of kind `move`.
        mutating func move() -> BoardOperation.Move? {
            var seen = KeySet()
            var kind: String?
            var items: [String]?
            var destination: Destination?
            var session: String?
            let read = object { reader, key in
                guard seen.insert(key) else { return false }
                switch key {
                case .kind: return store(reader.string(), in: &kind)
                case .items: return store(reader.strings(), in: &items)
                case .destination: return store(reader.destination(), in: &destination)
                case .session: return store(reader.string(), in: &session)
                default: return false
                }
            }
            guard read, kind == "move", let items, let destination else { return nil }
            return BoardOperation.Move(items: items.map { ItemID($0) }, destination: destination, session: session)
        }
    }
}

/// Stores a value that was read into its field; `false` when it could not be read (the member is
/// there but not of the plain subset, so the message is left to `JSONDecoder`).
@inline(__always)
private func store<T>(_ value: T?, in slot: inout T?) -> Bool {
    guard let value else { return false }
    slot = value
    return true
}

/// Whether `count` bytes at `a` and `b` are equal.
@inline(__always)
private func memcmpEqual(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>?, _ count: Int) -> Bool {
    guard let b else { return count == 0 }
    for i in 0..<count where a[i] != b[i] { return false }
    return true
}
