import CFrameGuard
import CorkboardTesting
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The guard's `recv` (this test binary exports it, as the server does) acts only on the sockets
/// registered on the calling thread: every other read gets its bytes from libc untouched, and a
/// registered socket is read through the reader it was registered with. Over a socket pair; the
/// bad frame comes before the upgrade completes, so the guard stops it without calling its hook.
@Suite(.timeLimit(.minutes(1))) struct FrameGuardRegistrationTests {
    /// An upgrade request, then an unmasked frame the guard must not hand on.
    static let stream = FrameGuardTests.upgrade + FrameGuardTests.frame(Array("bad".utf8), masked: false)

    /// A token the guard only compares (its hook is never called here).
    static var token: UnsafeMutableRawPointer { UnsafeMutableRawPointer(bitPattern: 0x5eed)! }

    /// A connected socket pair, closed by `body`'s end.
    static func withSocketPair<T>(_ body: (_ reader: Int32, _ writer: Int32) -> T) -> T {
        var ends: [Int32] = [-1, -1]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &ends) == 0)
        defer {
            close(ends[0])
            close(ends[1])
        }
        return body(ends[0], ends[1])
    }

    /// Writes ``stream`` into `writer`, then reads `reader` through `recv` until it would block;
    /// returns what `recv` handed on.
    static func exchange(reader: Int32, writer: Int32) -> [UInt8] {
        let sent = stream.withUnsafeBytes { send(writer, $0.baseAddress, $0.count, 0) }
        #expect(sent == stream.count)
        var got: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(reader, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if n <= 0 { break }
            got += buffer[..<n]
        }
        return got
    }

    @Test func aSocketNobodyRegisteredGetsEveryByte() async {
        let got = await io { Self.withSocketPair { Self.exchange(reader: $0, writer: $1) } }
        #expect(got == Self.stream)
    }

    @Test func aSocketRegisteredOnTheReadingThreadIsInspected() async {
        let (guarded, released) = await io {
            Self.withSocketPair { reader, writer in
                #expect(cfg_register(reader, Self.token, nil, nil) == 0)
                let guarded = Self.exchange(reader: reader, writer: writer)
                cfg_unregister(reader, Self.token)
                return (guarded, Self.exchange(reader: reader, writer: writer))
            }
        }
        #expect(guarded == FrameGuardTests.upgrade, "the unmasked frame is swallowed")
        #expect(released == Self.stream, "once unregistered, the socket is libc's again")
    }

    @Test func aSocketRegisteredOnAnotherThreadIsNotInspectedHere() async {
        let got = await io {
            Self.withSocketPair { reader, writer in
                // The owner stays alive while this thread reads, so its thread id is not reused.
                let (registered, read) = (DispatchSemaphore(value: 0), DispatchSemaphore(value: 0))
                let owner = Thread {
                    #expect(cfg_register(reader, Self.token, nil, nil) == 0)
                    registered.signal()
                    read.wait()
                    cfg_unregister(reader, Self.token)
                    registered.signal()
                }
                owner.start()
                registered.wait()
                let got = Self.exchange(reader: reader, writer: writer)
                read.signal()
                registered.wait()
                return got
            }
        }
        #expect(got == Self.stream)
    }

    @Test func aRegisteredSocketIsReadThroughItsReader() async {
        let (got, reads) = await io {
            Self.withSocketPair { reader, writer in
                let reads = UnsafeMutablePointer<Int>.allocate(capacity: 1)
                reads.initialize(to: 0)
                defer { reads.deallocate() }
                let counting: cfg_reader_t = { fd, buffer, length, flags, context in
                    context?.assumingMemoryBound(to: Int.self).pointee += 1
                    return recvfrom(fd, buffer, length, flags, nil, nil)
                }
                #expect(cfg_register(reader, Self.token, counting, reads) == 0)
                defer { cfg_unregister(reader, Self.token) }
                return (Self.exchange(reader: reader, writer: writer), reads.pointee)
            }
        }
        #expect(got == FrameGuardTests.upgrade)
        #expect(reads >= 1, "the guard read the socket through its reader")
    }
}
