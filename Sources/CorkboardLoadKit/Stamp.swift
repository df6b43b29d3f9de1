import CLinuxShim
import Glibc

/// The one clock of a load run: `CLOCK_MONOTONIC` in nanoseconds. Senders stamp a message with
/// it before sending and receivers read it when the message is handled, in any process of the
/// machine.
public enum Monotonic {
    /// Nanoseconds since an arbitrary fixed point.
    public static func nanos() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }
}

/// The ids a run's senders make carry the times receivers need, so a receipt in any process of a
/// run (they share `CLOCK_MONOTONIC`) can be timed: an opId ends in `t<sent ns>`, a drag session
/// in `t<drag start ns>h<hover interval ns>` (hover n is due at start + n × interval).
///
/// Receivers read them from the message's bytes: nothing on the path of a received hover or op
/// builds a `String`.
public enum Stamp {
    /// `prefix` + `t<nanos>`.
    public static func op(_ prefix: String, sent: UInt64) -> String { "\(prefix)t\(sent)" }

    /// `p<peer>s<drag>` + `t<start>h<interval>`: the drag number `drag` of light peer `peer`.
    public static func session(peer: Int, drag: Int, start: UInt64, hoverInterval: UInt64) -> String {
        "p\(peer)s\(drag)t\(start)h\(hoverInterval)"
    }

    /// The send time in an opId made by ``op(_:sent:)``: the digits after its last `t`.
    public static func sent(_ opId: UnsafeRawBufferPointer) -> UInt64? {
        guard let t = opId.lastIndex(of: UInt8(ascii: "t")) else { return nil }
        return number(opId, t + 1..<opId.count)
    }

    /// The send time in an opId made by ``op(_:sent:)``.
    public static func sent(_ opId: String) -> UInt64? {
        var opId = opId
        return opId.withUTF8 { sent(UnsafeRawBufferPointer($0)) }
    }

    /// What a drag session id made by ``session(peer:drag:start:hoverInterval:)`` says.
    public struct Session: Equatable, Sendable {
        /// The light peer that drags, and its drag number (nil for a session of another form
        /// that still ends in `t<start>h<interval>`).
        public var peer: Int?
        public var drag: Int?
        public var start: UInt64
        public var interval: UInt64

        public init(peer: Int? = nil, drag: Int? = nil, start: UInt64, interval: UInt64) {
            self.peer = peer
            self.drag = drag
            self.start = start
            self.interval = interval
        }

        /// When hover `number` was due: start + number × interval.
        public func due(_ number: Int) -> UInt64? {
            guard number >= 0 else { return nil }
            return start &+ UInt64(number) &* interval
        }
    }

    /// Reads a session id's numbers from its bytes.
    public static func session(_ id: UnsafeRawBufferPointer) -> Session? {
        guard let h = id.lastIndex(of: UInt8(ascii: "h")),
            let t = UnsafeRawBufferPointer(rebasing: id[..<h]).lastIndex(of: UInt8(ascii: "t")),
            let start = number(id, t + 1..<h), let interval = number(id, h + 1..<id.count)
        else { return nil }
        var session = Session(start: start, interval: interval)
        // p<peer>s<drag>
        if t >= 4, id[0] == UInt8(ascii: "p"),
            let s = UnsafeRawBufferPointer(rebasing: id[..<t]).lastIndex(of: UInt8(ascii: "s")),
            let peer = number(id, 1..<s), let drag = number(id, s + 1..<t)
        {
            session.peer = Int(peer)
            session.drag = Int(drag)
        }
        return session
    }

    /// Reads a session id's numbers.
    public static func session(_ id: String) -> Session? {
        var id = id
        return id.withUTF8 { session(UnsafeRawBufferPointer($0)) }
    }

    /// When hover `number` of a session made by ``session(peer:drag:start:hoverInterval:)`` was due.
    public static func hoverDue(_ session: String, number: Int) -> UInt64? {
        Self.session(session)?.due(number)
    }

    /// The unsigned decimal number that is exactly `bytes[range]` (nil if empty, not all digits,
    /// or past `UInt64.max`).
    static func number(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>) -> UInt64? {
        guard !range.isEmpty else { return nil }
        var value: UInt64 = 0
        for i in range {
            let digit = bytes[i] &- UInt8(ascii: "0")
            guard digit < 10 else { return nil }
            let (times, overflowA) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflowB) = times.addingReportingOverflow(UInt64(digit))
            guard !overflowA && !overflowB else { return nil }
            value = sum
        }
        return value
    }
}

/// A 64-bit FNV-1a hash of an id's bytes: a load run keys its operations and members by it, so a
/// receiver looks them up without making a `String`. Never 0 (0 means "none").
public enum IdHash {
    public static func of(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01B3
        }
        return hash == 0 ? 1 : hash
    }

    public static func of(_ id: String) -> UInt64 {
        var id = id
        return id.withUTF8 { of(UnsafeRawBufferPointer($0)) }
    }
}
