import CLinuxShim
import Glibc

/// Reads the few fields a load run needs from a server message, in place, without decoding the
/// JSON or allocating.
///
/// The server's JSON encoder writes an object's keys in no fixed order, so nothing here depends
/// on order. It relies on which keys occur where: the top-level `type` is the first `"type":"…"`
/// whose value names a server message (elsewhere `type` appears only as a representation's type,
/// such as `corkboard.card`, never a message name in a load run's boards); `seq` and `opId`
/// occur only in an `op` or an `ack`'s outcome (where `opId` repeats the top-level one);
/// `session`, `member` and `index` of a `dragHover` or `proposal` occur once. A string value
/// inside JSON never contains an unescaped `"`, so a pattern such as `"seq":` cannot match
/// inside one.
public struct FrameScanner {
    /// The message; it must outlive the scanner.
    public let bytes: UnsafeRawBufferPointer

    public init(bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    /// The server message types a load run reads.
    public enum Kind: Equatable, Sendable {
        case op, ack, dragHover, proposal, welcome, dragGranted, error, pong
        /// Another known type (`membersChanged`, `dragStarted`, …).
        case other
        /// No `type` naming a server message.
        case unreadable
    }

    /// The message's type.
    public var kind: Kind {
        var from = 0
        while let value = value(#""type":""#, from: from) {
            let name = slice(value)
            for (known, kind) in Self.kinds where known.utf8CodeUnitCount == name.count {
                if memcmp(known.utf8Start, name.baseAddress!, name.count) == 0 { return kind }
            }
            from = value.upperBound
        }
        return .unreadable
    }

    /// The names, the most frequent first (hovers are most of a load run's messages).
    private static let kinds: [(StaticString, Kind)] = [
        ("dragHover", .dragHover), ("op", .op), ("proposal", .proposal), ("ack", .ack), ("welcome", .welcome),
        ("dragGranted", .dragGranted), ("error", .error), ("dragStarted", .other), ("dragEnded", .other),
        ("dragItems", .other), ("membersChanged", .other), ("memberList", .other), ("cursor", .other),
        ("presence", .other), ("synced", .other), ("pong", .pong), ("undoable", .other), ("editGranted", .other),
        ("editRefused", .other), ("editStarted", .other), ("editEnded", .other),
    ]

    /// The offset just past the first occurrence of `pattern` at or after `from`.
    public func after(_ pattern: StaticString, from: Int = 0) -> Int? {
        guard from < bytes.count, let base = bytes.baseAddress else { return nil }
        guard let hit = clinux_memmem(base + from, bytes.count - from, pattern.utf8Start, pattern.utf8CodeUnitCount)
        else { return nil }
        return base.distance(to: hit) + pattern.utf8CodeUnitCount
    }

    /// Where the string value after the first `"key":"` (at or after `from`) lies, up to its
    /// closing quote; escapes are not expected in the ids and names a load run reads, and are
    /// skipped undecoded.
    public func value(_ pattern: StaticString, from: Int = 0) -> Range<Int>? {
        guard let start = after(pattern, from: from) else { return nil }
        var end = start
        while end < bytes.count, bytes[end] != UInt8(ascii: "\"") {
            end += bytes[end] == UInt8(ascii: "\\") ? 2 : 1
        }
        guard end <= bytes.count else { return nil }
        return start..<end
    }

    /// The bytes of a range of the message.
    public func slice(_ range: Range<Int>) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: bytes[range])
    }

    /// The string value after the first `"key":"` (at or after `from`), as a `String` (for the
    /// rare messages: errors, rejection codes).
    public func string(_ pattern: StaticString, from: Int = 0) -> String? {
        value(pattern, from: from).map { String(decoding: slice($0), as: UTF8.self) }
    }

    /// The integer after the first `"key":` (at or after `from`).
    public func int(_ pattern: StaticString, from: Int = 0) -> Int? {
        guard var i = after(pattern, from: from) else { return nil }
        var negative = false
        if i < bytes.count, bytes[i] == UInt8(ascii: "-") {
            negative = true
            i += 1
        }
        var value = 0
        var digits = 0
        while i < bytes.count, bytes[i] >= UInt8(ascii: "0"), bytes[i] <= UInt8(ascii: "9"), digits < 18 {
            value = value * 10 + Int(bytes[i] - UInt8(ascii: "0"))
            i += 1
            digits += 1
        }
        guard digits > 0 else { return nil }
        return negative ? -value : value
    }

    /// The first `count` bytes as text, for error samples.
    public func prefix(_ count: Int) -> String {
        String(decoding: UnsafeRawBufferPointer(rebasing: bytes.prefix(count)), as: UTF8.self)
    }
}
