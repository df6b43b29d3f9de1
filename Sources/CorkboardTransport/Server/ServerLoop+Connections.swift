import CLibWebSockets
import Logging
import Synchronization

/// A WebSocket connection's life on its shard: established, its messages received, closed.
extension ShardContext {
    func receive(
        _ wsi: OpaquePointer, _ user: UnsafeMutableRawPointer?, _ inp: UnsafeMutableRawPointer?, _ len: Int
    ) -> Int32 {
        // After our close frame, input is read (so the socket never closes with unread data)
        // but no longer delivered.
        // One lookup per table on this path, and none in the sets that are almost always empty.
        guard let user, let id = connectionID(user), loop.closing.isEmpty || !loop.closing.contains(id) else {
            return 0
        }
        if let observe = configuration.readWaitObserver { reportReadWait(wsi, to: observe) }
        let chunk = UnsafeRawBufferPointer(start: inp, count: inp == nil ? 0 : len)
        let (first, final) = (lws_is_first_fragment(wsi) != 0, lws_is_final_fragment(wsi) != 0)
        let outcome: Reassembly.Outcome
        if first && final {
            let limit = configuration.maxMessageBytes
            outcome = Reassembly.whole(chunk, binary: lws_frame_is_binary(wsi) != 0, limit: limit)
        } else {
            let (binary, remaining) = (lws_frame_is_binary(wsi) != 0, Int(lws_remaining_packet_payload(wsi)))
            let assembled = loop.reassembly.withValue(id) {
                $0.append(chunk, first: first, final: final, binary: binary, remainingInFrame: remaining)
            }
            guard let assembled else { return 0 }
            outcome = assembled
        }
        // The keepalive needs to hear a connection once per sweep; later frames change nothing.
        if user.load(fromByteOffset: Self.heardMarkOffset, as: UInt32.self) != loop.keepalive.now &+ 1 {
            loop.keepalive.heard(id)
            user.storeBytes(of: loop.keepalive.now &+ 1, toByteOffset: Self.heardMarkOffset, as: UInt32.self)
        }
        switch outcome {
        case .partial:
            return 0
        case .complete(let bytes, let isText):
            if !loop.echoes.isEmpty && loop.echoes.contains(id) {
                _ = shard.outbox.withLock {
                    $0.enqueue(isText ? OutboundFrame(utf8: bytes) : OutboundFrame(binary: bytes), to: id)
                }
                lws_callback_on_writable(wsi)
                return 0
            }
            emit(.message(id, InboundMessage(bytes: bytes, isText: isText)))
            return 0
        case .tooLarge:
            let reason = "message too large (limit \(configuration.maxMessageBytes) bytes)"
            loop.closeInfo[id] = (1009, reason)
            Lws.setCloseReason(wsi, code: 1009, reason: reason)
            return -1
        }
    }

    func established(_ wsi: OpaquePointer, _ user: UnsafeMutableRawPointer?) {
        guard let user else { return }
        let id = ConnectionID(rawValue: loop.nextID)
        loop.nextID += 1
        user.storeBytes(of: id.rawValue, as: UInt64.self)
        user.storeBytes(of: 0, toByteOffset: Self.heardMarkOffset, as: UInt32.self)
        loop.wsiByID[id] = wsi
        loop.reassembly[id] = Reassembly(limit: configuration.maxMessageBytes)
        shard.outbox.withLock { $0.register(id) }
        guardEstablished(wsi)
        follow(id)
        shard.connections.add(1, ordering: .relaxed)
        server.connections.add(1, ordering: .relaxed)
        let path = Lws.header(wsi, WSI_TOKEN_GET_URI) ?? configuration.wsPath
        if configuration.echoPath != nil && path == configuration.echoPath {
            // Served by the transport alone: counted and limited like any connection, never reported.
            loop.echoes.insert(id)
            return
        }
        let info = ConnectionInfo(
            path: path, queryItems: Lws.queryItems(wsi),
            origin: Lws.header(wsi, WSI_TOKEN_ORIGIN), remoteAddress: loop.sockets[wsi]?.client ?? clientAddress(wsi),
            userAgent: Lws.header(wsi, WSI_TOKEN_HTTP_USER_AGENT), host: Lws.header(wsi, WSI_TOKEN_HOST))
        if loop.shuttingDown {
            shard.outbox.withLock { ob in
                let s = ob.shutdownRequested
                ob.requestClose(id, code: s?.code ?? 1001, reason: s?.reason ?? "server shutting down")
            }
            lws_callback_on_writable(wsi)
        }
        emit(.connected(id, info))
    }

    func closed(_ user: UnsafeMutableRawPointer?) {
        guard let id = connectionID(user), loop.wsiByID.removeValue(forKey: id) != nil else { return }
        loop.reassembly[id] = nil
        loop.closing.remove(id)
        loop.keepalive.remove(id)
        shard.outbox.withLock { $0.remove(id) }
        shard.connections.subtract(1, ordering: .relaxed)
        server.connections.subtract(1, ordering: .relaxed)
        let info = loop.closeInfo.removeValue(forKey: id)
        if loop.echoes.remove(id) != nil { return }
        emit(.disconnected(id, closeCode: info?.code, reason: info?.reason ?? "connection closed"))
    }
}
