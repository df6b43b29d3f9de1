import DequeModule

/// The frames waiting to be written to one connection, and how far the front one has gone out.
///
/// Pure value logic: ``fill(_:capacity:)`` packs as many whole frames as fit into one socket
/// write, each still its own WebSocket frame; a frame bigger than the batch goes out as
/// continuation fragments over several writes, so every write holds only complete frames (lws may
/// then put its own ping or pong between two writes safely).
struct ConnectionQueue {
    private(set) var frames = Deque<OutboundFrame>()
    /// Payload bytes of the front frame already written as fragments.
    private var sentOfFront = 0
    /// Bytes (encoded) currently queued.
    private(set) var queuedBytes = 0
    /// A close requested once the queue drains: code and reason.
    var closeAfterDrain: (code: Int, reason: String)?
    /// A close to send before anything else (slow consumer); the queue was dropped.
    var closeNow: (code: Int, reason: String)?

    /// Frames still queued.
    var count: Int { frames.count }
    /// Whether nothing is left to write.
    var isEmpty: Bool { frames.isEmpty }
    /// Whether a close has been requested (new frames are then refused).
    var isClosing: Bool { closeAfterDrain != nil || closeNow != nil }

    /// Adds a frame at the back.
    mutating func append(_ frame: OutboundFrame) {
        frames.append(frame)
        queuedBytes += frame.encodedCount
    }

    /// Drops everything queued; returns how many frames were dropped.
    mutating func removeAll() -> Int {
        let n = count
        frames.removeAll()
        sentOfFront = 0
        queuedBytes = 0
        return n
    }

    /// Copies the next frames into `buffer` (at most `capacity` bytes, which must be at least
    /// `FrameHeader.maxLength + 1`) and removes the ones written completely.
    ///
    /// - Returns: bytes written and whole frames removed.
    /// - Complexity: O(frames written + their bytes).
    mutating func fill(_ buffer: UnsafeMutablePointer<UInt8>, capacity: Int) -> (bytes: Int, frames: Int) {
        var used = 0
        var popped = 0
        while let frame = frames.first {
            let payload = frame.payloadCount
            if sentOfFront == 0 && frame.encodedCount <= capacity - used {
                used += FrameHeader.write(opcode: frame.isText ? 1 : 2, fin: true, length: payload, to: buffer + used)
                frame.copyPayload(from: 0, count: payload, to: buffer + used)
                used += payload
            } else {
                // Fragment: one frame holding as much of the remaining payload as fits.
                let room = capacity - used - FrameHeader.maxLength
                if room <= 0 || (used > 0 && room < 1024) { break }
                let remaining = payload - sentOfFront
                let chunk = min(room, remaining)
                let opcode: UInt8 = sentOfFront == 0 ? (frame.isText ? 1 : 2) : 0
                let fin = chunk == remaining
                used += FrameHeader.write(opcode: opcode, fin: fin, length: chunk, to: buffer + used)
                frame.copyPayload(from: sentOfFront, count: chunk, to: buffer + used)
                used += chunk
                if !fin {
                    sentOfFront += chunk
                    break
                }
            }
            sentOfFront = 0
            queuedBytes -= frame.encodedCount
            frames.removeFirst()
            frame.delivery?.counted()
            popped += 1
        }
        return (used, popped)
    }
}
