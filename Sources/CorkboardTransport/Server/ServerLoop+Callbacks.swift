import CLibWebSockets
import Logging
import Synchronization

/// libwebsockets' callbacks, dispatched on the shard's service thread, and the wake that drains
/// what other threads queued.
extension ShardContext {
    /// Dispatches one libwebsockets callback (service thread).
    func serviceCallback(
        _ wsi: OpaquePointer, _ reason: lws_callback_reasons, _ user: UnsafeMutableRawPointer?,
        _ inp: UnsafeMutableRawPointer?, _ len: Int
    ) -> Int32 {
        switch reason {
        case LWS_CALLBACK_SERVER_WRITEABLE:
            return writeable(wsi, user)
        case LWS_CALLBACK_RECEIVE:
            let result = receive(wsi, user, inp, len)
            loop.readsSinceOutput &+= 1
            if loop.readsSinceOutput >= ShardContext.readsBetweenOutput {
                writeWaitingOutput(reading: connectionID(user))
            }
            return result
        case LWS_CALLBACK_RECEIVE_PONG:
            if let id = connectionID(user) { loop.keepalive.heard(id) }
            return 0
        case LWS_CALLBACK_EVENT_WAIT_CANCELLED:
            if let name = loop.wsProtocolName, lws_get_protocol(wsi)?.pointee.name == name {
                wake()
                // On libuv the loop runs until it is stopped.
                if server.stopRequested.load(ordering: .acquiring), let uvLoop = loop.uvLoop {
                    clws_uv_loop_stop(uvLoop)
                }
            }
            return 0
        case LWS_CALLBACK_RAW_RX_FILE:
            if let name = loop.listenerProtocolName, lws_get_protocol(wsi)?.pointee.name == name { acceptWaiting() }
            return 0
        case LWS_CALLBACK_RAW_ADOPT_FILE, LWS_CALLBACK_RAW_CLOSE_FILE, LWS_CALLBACK_RAW_ADOPT:
            return 0
        case LWS_CALLBACK_RAW_RX:
            probeRead(wsi)
            return 0
        case LWS_CALLBACK_RAW_CLOSE:
            probeClosed(wsi)
            return 0
        case LWS_CALLBACK_HTTP_CONFIRM_UPGRADE:
            return confirmUpgrade(wsi)
        case LWS_CALLBACK_ESTABLISHED:
            established(wsi, user)
            return 0
        case LWS_CALLBACK_WS_PEER_INITIATED_CLOSE:
            if let id = connectionID(user), !loop.closing.contains(id) {
                if let inp, len >= 2 {
                    let b = inp.assumingMemoryBound(to: UInt8.self)
                    let code = Int(b[0]) << 8 | Int(b[1])
                    let reason = String(decoding: UnsafeBufferPointer(start: b + 2, count: len - 2), as: UTF8.self)
                    loop.closeInfo[id] = (code, reason)
                }
                // lws answers with its own close frame; nothing of ours may follow or precede it.
                loop.closing.insert(id)
            }
            return 0
        case LWS_CALLBACK_CLOSED:
            closed(user)
            return 0
        case LWS_CALLBACK_HTTP:
            return http(wsi, inp, len)
        case LWS_CALLBACK_HTTP_BODY:
            return httpBody(wsi, inp, len)
        case LWS_CALLBACK_HTTP_BODY_COMPLETION:
            return httpBodyCompleted(wsi)
        case LWS_CALLBACK_HTTP_WRITEABLE:
            if loop.responses[wsi] != nil { return httpWriteable(wsi) }
            return lws_callback_http_dummy(wsi, reason, user, inp, len)
        case LWS_CALLBACK_WSI_DESTROY:
            unguardSocket(wsi)
            forgetHTTP(wsi)
            forgetSocket(wsi)
            return lws_callback_http_dummy(wsi, reason, user, inp, len)
        case LWS_CALLBACK_CLOSED_HTTP:
            forgetHTTP(wsi)
            return lws_callback_http_dummy(wsi, reason, user, inp, len)
        default:
            return lws_callback_http_dummy(wsi, reason, user, inp, len)
        }
    }

    /// What libwebsockets keeps for us per connection (its per-session data, zeroed): the
    /// connection's id (8 bytes), then the keepalive sweep in which the receive path last told the
    /// keepalive it heard from the peer, plus one (0: not yet), so a dragger's 30 messages a second
    /// cost one keepalive lookup a second, not 30.
    static let sessionDataBytes = 16
    static let heardMarkOffset = 8

    func connectionID(_ user: UnsafeMutableRawPointer?) -> ConnectionID? {
        guard let raw = user?.load(as: UInt64.self), raw != 0 else { return nil }
        return ConnectionID(rawValue: raw)
    }

    /// After `lws_cancel_service`: adopt the connections handed over, ask for writeable callbacks
    /// for every connection with pending output, arm slow-consumer kill timers, and start a
    /// requested shutdown.
    private func wake() {
        shard.outputWaiting.store(false, ordering: .relaxed)
        loop.readsSinceOutput = 0
        let (drained, completions, adoptions) = shard.outbox.withLock { ob in
            (ob.drain(), ob.takeHTTPCompletions(), ob.takeAdoptions())
        }
        for handed in adoptions { adopt(handed.fd, address: handed.address) }
        let (dirty, kill, shutdown) = drained
        for (token, response) in completions { httpCompleted(token: token, response: response) }
        if let shutdown, !loop.shuttingDown {
            loop.shuttingDown = true
            let grace = shard.outbox.withLock { ob -> Int in
                for id in ob.queues.keys {
                    ob.requestShutdownClose(id, code: shutdown.code, reason: shutdown.reason)
                }
                return ob.shutdownGraceSeconds
            }
            for wsi in loop.wsiByID.allValues {
                lws_callback_on_writable(wsi)
                Lws.dropAfter(wsi, seconds: grace)
            }
        }
        for id in dirty {
            if let wsi = loop.wsiByID[id] { writeNow(wsi, id) }
        }
        if loop.shuttingDown { countPeersNotTakingClose() }
        let killSeconds = configuration.slowConsumerKillAfter.wholeSecondsRoundedUp
        for id in kill {
            guard let wsi = loop.wsiByID[id] else { continue }
            let closeNow = shard.outbox.withLock { $0.withQueue(id) { $0.closeNow } ?? nil }
            let close = closeNow ?? (code: 1008, reason: "slow consumer")
            // A slow consumer past the transport's bound, or a close that discards the queue.
            logger.warning(
                "closing a connection at once",
                metadata: ["connection": "\(id)", "code": "\(close.code)", "reason": "\(close.reason)"])
            loop.closeInfo[id] = close
            Lws.dropAfter(wsi, seconds: killSeconds)
        }
    }
}
