import CFrameGuard
import CLibWebSockets
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Whether libwebsockets really reads through the frame guard (`CFrameGuard`), proved by a read
/// through libwebsockets itself before a server serves: a server whose guard is out of the read
/// path refuses to start (``TransportError/Kind/unguardedReads``) unless
/// ``ServerConfiguration/allowUnguardedReads`` says to serve without it.
///
/// The guard works only while libwebsockets' calls to `recv` and `SSL_read` are bound to the
/// definitions the executable exports. Looking the symbols up (`cfg_interposed`) tells what the
/// process's lookup finds, not where libwebsockets' calls were bound: a dynamic-linker audit module
/// (`LD_AUDIT`), for one, can bind them to libc's while every lookup still finds the guard's. So
/// the first service thread, on its fresh context, adopts one end of a socket pair as a raw socket,
/// registers it with the guard as an upgraded WebSocket, writes an unmasked frame into the other
/// end and lets libwebsockets read it: with the guard in the path the frame is swallowed and
/// reported to the guard's hook; without it libwebsockets hands the frame on (`RAW_RX`). Over TLS
/// libwebsockets reads with `SSL_read`, which the probe cannot reach without a handshake: there
/// the lookup must find the guard's `SSL_read` too.
///
/// Once libwebsockets is loaded its bindings do not change, so a check that passed is not run
/// again in the process.
enum ReadPathCheck {
    /// Set once a probe's frame was swallowed by the guard in this process.
    static let passed = Atomic<Bool>(false)

    /// An unmasked text frame, "probe" (RFC 6455 §5.1 forbids it a client): the guard stops it.
    static let frame: [UInt8] = [0x81, 0x05] + Array("probe".utf8)

    /// How long libwebsockets gets to read the probe's socket, even on a starved machine.
    static let limitSeconds = 10

    /// The error of a server that refuses to start: what is wrong and what to do.
    static func refusal(_ reason: String) -> TransportError {
        .unguardedReads(
            """
            the WebSocket frame guard is not in libwebsockets' read path (\(reason)), so clients' unmasked and \
            malformed frames would reach libwebsockets unchecked; the server does not start. Run it from an \
            executable that links CFrameGuard, which exports recv and SSL_read for libwebsockets to read \
            through (corkboard does), with nothing binding libwebsockets' calls elsewhere (such as an LD_AUDIT \
            module); or allow unguarded reads to serve without the guard
            """)
    }
}

/// The read-path check's probe while it runs on a shard (``ServerLoop/readPathProbe``).
struct ReadPathProbe {
    /// The raw socket libwebsockets reads the probe from.
    let wsi: OpaquePointer
    /// What the probe showed: `nil` until it settles.
    var finding: Finding?
    /// Whether libwebsockets closed the probe's socket (it is then gone).
    var closed = false

    /// What the probe showed.
    enum Finding: Equatable {
        /// The guard swallowed the probe's frame and reported it.
        case guarded
        /// Why the guard is not in the read path (or the check could not tell).
        case unguarded(String)
    }
}

extension ShardContext {
    /// Runs the read-path check on this shard's fresh context (``ReadPathCheck``), before it
    /// serves.
    ///
    /// - Returns: Why the frame guard is not in libwebsockets' read path, or `nil` when it is.
    func findUnguardedReads(_ ctx: OpaquePointer, _ vhost: OpaquePointer) -> String? {
        if configuration.usesTLS && cfg_interposed() == 0 {
            return
                "SSL_read or recv is not the executable's: it does not export the guard's (is libssl on its link line?)"
        }
        if ReadPathCheck.passed.load(ordering: .acquiring) { return nil }
        var ends: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &ends) == 0 else {
            return "the check could not open a socket pair: \(String(cString: strerror(errno)))"
        }
        let (probed, writer) = (ends[0], ends[1])
        defer { close(writer) }
        // On failure lws has closed `probed`.
        guard let wsi = clws_adopt_raw_socket(vhost, probed, loop.listenerProtocolName) else {
            return "the check's socket could not be added to the service loop"
        }
        let token = UnsafeMutableRawPointer(wsi)
        guard cfg_register(probed, token, nil, nil) == 0 else {
            Lws.dropSoon(wsi)
            return "the check's socket could not be registered with the guard"
        }
        _ = cfg_established(probed, token)
        loop.readPathProbe = ReadPathProbe(wsi: wsi)
        Lws.dropAfter(wsi, seconds: ReadPathCheck.limitSeconds)
        let written = ReadPathCheck.frame.withUnsafeBytes { write(writer, $0.baseAddress, $0.count) }
        if written == ReadPathCheck.frame.count {
            runLoop(ctx) { loop.readPathProbe?.finding != nil }
        } else {
            loop.readPathProbe?.finding = .unguarded(
                "the check could not write its probe: \(String(cString: strerror(errno)))")
        }
        let probe = loop.readPathProbe
        loop.readPathProbe = nil
        cfg_unregister(probed, token)
        if probe?.closed != true { Lws.dropSoon(wsi) }
        switch probe?.finding {
        case .guarded:
            ReadPathCheck.passed.store(true, ordering: .releasing)
            return nil
        case .unguarded(let reason):
            return reason
        case nil:
            return "the server was stopped during the check"
        }
    }

    /// The guard reported a violation on `wsi`: if it is the probe's socket, the guard is in the
    /// read path. Returns whether it was the probe.
    func probeReported(_ wsi: OpaquePointer) -> Bool {
        guard loop.readPathProbe?.wsi == wsi else { return false }
        settleProbe(.guarded)
        return true
    }

    /// libwebsockets read bytes of the probe's socket and handed them on: the guard is not in the
    /// read path.
    func probeRead(_ wsi: OpaquePointer) {
        guard loop.readPathProbe?.wsi == wsi else { return }
        settleProbe(.unguarded("an unmasked frame reached libwebsockets: its recv is not the guard's"))
    }

    /// libwebsockets closed the probe's socket: after the probe settled, or else without handing
    /// anything on or the guard reporting anything (its time, ``ReadPathCheck/limitSeconds``, ran
    /// out, or the read failed).
    func probeClosed(_ wsi: OpaquePointer) {
        guard loop.readPathProbe?.wsi == wsi else { return }
        loop.readPathProbe?.closed = true
        settleProbe(
            .unguarded(
                "libwebsockets closed the check's socket without reading its probe (within \(ReadPathCheck.limitSeconds) s)"
            ))
    }

    /// Records the probe's first finding and stops the event loop the check runs.
    private func settleProbe(_ finding: ReadPathProbe.Finding) {
        guard loop.readPathProbe?.finding == nil else { return }
        loop.readPathProbe?.finding = finding
        if let uvLoop = loop.uvLoop { clws_uv_loop_stop(uvLoop) }
    }
}
