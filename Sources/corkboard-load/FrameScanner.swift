import Glibc

/// Reads the few fields a load run needs from a server frame without decoding the whole JSON.
///
/// The server's JSON encoder writes an object's keys in no fixed order, so nothing here depends
/// on order. It relies on which keys occur where: the top-level `type` is the first `"type":"…"`
/// whose value names a server message (elsewhere `type` appears only as a representation's type,
/// such as `corkboard.card`, never a message name in a load run's boards); `seq` and `opId`
/// occur only in an `op` or an `ack`'s outcome (where `opId` repeats the top-level one);
/// `session`, `member` and `index` of a `dragHover` or `proposal` occur once. A string value
/// inside JSON never contains an unescaped `"`, so a pattern such as `"seq":` cannot match
/// inside one.
struct FrameScanner {
    let bytes: [UInt8]

    /// The server message types a load run reads.
    enum Kind: Equatable {
        case op, ack, dragHover, proposal, welcome, dragGranted, error, pong
        /// Another known type (`membersChanged`, `dragStarted`, …).
        case other
        /// No `type` naming a server message.
        case unreadable
    }

    /// The message's type.
    var kind: Kind {
        var from = 0
        while let start = after(#""type":""#, from: from) {
            var end = start
            while end < bytes.count, bytes[end] != UInt8(ascii: "\"") { end += 1 }
            let value = bytes[start..<end]
            for (name, kind) in Self.kinds where value.elementsEqual(name) { return kind }
            from = end
        }
        return .unreadable
    }

    private static let kinds: [([UInt8], Kind)] = [
        ("op", Kind.op), ("dragHover", .dragHover), ("ack", .ack), ("proposal", .proposal), ("welcome", .welcome),
        ("dragGranted", .dragGranted), ("error", .error), ("dragStarted", .other), ("dragEnded", .other),
        ("dragItems", .other), ("membersChanged", .other), ("memberList", .other), ("cursor", .other),
        ("presence", .other), ("synced", .other), ("pong", .pong), ("undoable", .other), ("editGranted", .other),
        ("editRefused", .other), ("editStarted", .other), ("editEnded", .other),
    ].map { (Array($0.0.utf8), $0.1) }

    /// The offset just past the first occurrence of `pattern` at or after `from`.
    func after(_ pattern: StaticString, from: Int = 0) -> Int? {
        guard from < bytes.count else { return nil }
        return pattern.withUTF8Buffer { needle -> Int? in
            bytes.withUnsafeBufferPointer { hay -> Int? in
                let base = hay.baseAddress!
                let first = Int32(needle[0])
                var at = from
                while hay.count - at >= needle.count {
                    guard let hit = memchr(base + at, first, hay.count - at - needle.count + 1) else { return nil }
                    let offset = base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
                    if memcmp(base + offset, needle.baseAddress!, needle.count) == 0 { return offset + needle.count }
                    at = offset + 1
                }
                return nil
            }
        }
    }

    /// The string value after the first `"key":"` (at or after `from`); escapes are not expected
    /// in the ids and names a load run reads, and a value holding one is returned undecoded.
    func string(_ pattern: StaticString, from: Int = 0) -> String? {
        guard let start = after(pattern, from: from) else { return nil }
        var end = start
        while end < bytes.count, bytes[end] != UInt8(ascii: "\"") {
            end += bytes[end] == UInt8(ascii: "\\") ? 2 : 1
        }
        guard end <= bytes.count else { return nil }
        return String(decoding: bytes[start..<end], as: UTF8.self)
    }

    /// The integer after the first `"key":` (at or after `from`).
    func int(_ pattern: StaticString, from: Int = 0) -> Int? {
        guard var i = after(pattern, from: from) else { return nil }
        var negative = false
        if i < bytes.count, bytes[i] == UInt8(ascii: "-") {
            negative = true
            i += 1
        }
        var value = 0
        var digits = 0
        while i < bytes.count, bytes[i] >= UInt8(ascii: "0"), bytes[i] <= UInt8(ascii: "9") {
            value = value * 10 + Int(bytes[i] - UInt8(ascii: "0"))
            i += 1
            digits += 1
        }
        guard digits > 0 else { return nil }
        return negative ? -value : value
    }
}
