/// A compact binary form of the recipe every move gets (`Step.moveBack`), for stores (R13).
///
/// A store writes an entry for every committed operation of a client, in the transaction of the
/// operation itself; Foundation's `JSONEncoder` would cost the writer more than the operation.
/// Moves, the operations a busy board commits most, are written in this form; every other recipe
/// as JSON (`UndoEntryCoding`). The first byte tells them apart: JSON starts with `{`, this form
/// with `compactTag`.
///
/// Layout after the tag: the summary (lead, trail, name), then the runs. Integers are LEB128
/// varints (signed ones zigzagged), strings a varint length and their UTF-8, optionals a presence
/// byte (0 or 1) before the value.
extension UndoRecipe {
    /// The first byte of the compact form.
    public static let compactTag: UInt8 = 0x01

    /// The compact form, or `nil` when the recipe is not a move's (it then goes as JSON).
    ///
    /// - Complexity: O(size of the recipe).
    public var compactBytes: [UInt8]? {
        guard case .moveBack(let runs) = step else { return nil }
        var writer = CompactWriter()
        writer.bytes.reserveCapacity(64 + runs.count * 48)
        writer.bytes.append(Self.compactTag)
        writer.string(described.lead)
        writer.string(described.trail)
        switch described.name {
        case nil: writer.bytes.append(0)
        case .phrase(let phrase)?:
            writer.bytes.append(1)
            writer.string(phrase)
        case .item(let representations, let childCount, let isPlaceholder)?:
            writer.bytes.append(2)
            writer.unsigned(representations.count)
            for representation in representations {
                writer.string(representation.type)
                writer.string(representation.value)
            }
            writer.optional(childCount) { $0.signed($1) }
            writer.bytes.append(isPlaceholder ? 1 : 0)
        }
        writer.unsigned(runs.count)
        for run in runs {
            writer.string(run.origin.collection.rawValue)
            writer.string(run.origin.section.rawValue)
            writer.optional(run.origin.group) { $0.string($1.rawValue) }
            writer.signed(run.origin.index)
            writer.optional(run.origin.after) { $0.string($1.rawValue) }
            writer.optional(run.origin.before) { $0.string($1.rawValue) }
            writer.unsigned(run.elements.count)
            for element in run.elements { writer.string(element.rawValue) }
        }
        return writer.bytes
    }

    /// A recipe from its compact form.
    ///
    /// - Throws: `CompactRecipeError` saying where the bytes end early or hold something else.
    public init(compact bytes: some Collection<UInt8>) throws(CompactRecipeError) {
        var reader = CompactReader(bytes: Array(bytes))
        guard try reader.byte() == Self.compactTag else {
            throw CompactRecipeError("the first byte is not \(Self.compactTag)")
        }
        var summary = Summary(lead: try reader.string())
        summary.trail = try reader.string()
        switch try reader.byte() {
        case 0: summary.name = nil
        case 1: summary.name = .phrase(try reader.string())
        case 2:
            var representations: [Representation] = []
            for _ in 0..<(try reader.count()) {
                representations.append(Representation(type: try reader.string(), value: try reader.string()))
            }
            let childCount = try reader.optional { reader throws(CompactRecipeError) in try reader.signed() }
            summary.name = .item(representations, childCount: childCount, isPlaceholder: try reader.byte() == 1)
        case let other: throw CompactRecipeError("the summary's name has kind \(other)")
        }
        var runs: [Run<ItemID>] = []
        for _ in 0..<(try reader.count()) {
            let collection = CollectionID(try reader.string())
            let section = SectionID(try reader.string())
            let group = try reader.optional { reader throws(CompactRecipeError) in ItemID(try reader.string()) }
            let index = try reader.signed()
            let after = try reader.optional { reader throws(CompactRecipeError) in ItemID(try reader.string()) }
            let before = try reader.optional { reader throws(CompactRecipeError) in ItemID(try reader.string()) }
            var elements: [ItemID] = []
            for _ in 0..<(try reader.count()) { elements.append(ItemID(try reader.string())) }
            runs.append(
                Run(
                    origin: Origin(
                        collection: collection, section: section, group: group, index: index, after: after,
                        before: before),
                    elements: elements))
        }
        guard reader.offset == reader.bytes.count else {
            throw CompactRecipeError("\(reader.bytes.count - reader.offset) bytes follow the recipe")
        }
        self.init(step: .moveBack(runs), described: summary)
    }
}

/// Why bytes are not a compact recipe.
public struct CompactRecipeError: Error, CustomStringConvertible, Sendable {
    /// What was wrong.
    public var description: String

    init(_ description: String) { self.description = "not a compact undo recipe: " + description }
}

private struct CompactWriter {
    var bytes: [UInt8] = []

    mutating func unsigned(_ value: Int) {
        var rest = UInt64(UInt(bitPattern: value))
        while rest >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: rest) | 0x80)
            rest >>= 7
        }
        bytes.append(UInt8(rest))
    }

    mutating func signed(_ value: Int) {
        unsigned(Int(bitPattern: UInt((value << 1) ^ (value >> (Int.bitWidth - 1)))))
    }

    mutating func string(_ value: String) {
        var value = value
        value.withUTF8 { utf8 in
            unsigned(utf8.count)
            bytes.append(contentsOf: utf8)
        }
    }

    mutating func optional<T>(_ value: T?, _ write: (inout CompactWriter, T) -> Void) {
        guard let value else {
            bytes.append(0)
            return
        }
        bytes.append(1)
        write(&self, value)
    }
}

private struct CompactReader {
    let bytes: [UInt8]
    var offset = 0

    mutating func byte() throws(CompactRecipeError) -> UInt8 {
        guard offset < bytes.count else { throw CompactRecipeError("it ends at byte \(offset)") }
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func unsigned() throws(CompactRecipeError) -> UInt64 {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            let next = try byte()
            guard shift < 64 else { throw CompactRecipeError("a number at byte \(offset) is too long") }
            value |= UInt64(next & 0x7f) << shift
            if next < 0x80 { return value }
            shift += 7
        }
    }

    mutating func signed() throws(CompactRecipeError) -> Int {
        let raw = try unsigned()
        return Int(truncatingIfNeeded: raw >> 1) ^ -Int(truncatingIfNeeded: raw & 1)
    }

    /// A count of things that follow, each at least one byte: no more than the bytes left.
    mutating func count() throws(CompactRecipeError) -> Int {
        let value = try unsigned()
        guard value <= UInt64(bytes.count - offset) else {
            throw CompactRecipeError("a count of \(value) at byte \(offset) is more than the bytes left")
        }
        return Int(value)
    }

    mutating func string() throws(CompactRecipeError) -> String {
        let length = try count()
        defer { offset += length }
        return String(decoding: bytes[offset..<offset + length], as: UTF8.self)
    }

    mutating func optional<T>(_ read: (inout CompactReader) throws(CompactRecipeError) -> T)
        throws(CompactRecipeError) -> T?
    {
        switch try byte() {
        case 0: return nil
        case 1: return try read(&self)
        case let other: throw CompactRecipeError("a presence byte at \(offset - 1) is \(other)")
        }
    }
}
