/// Rebuilds one connection's messages from the chunks libwebsockets delivers, enforcing the size
/// limit before anything over it is buffered.
struct Reassembly {
    /// The largest message accepted, in bytes.
    let limit: Int
    private var buffer: [UInt8] = []
    private var isText = false

    init(limit: Int) {
        self.limit = limit
    }

    /// What a chunk produced.
    enum Outcome: Equatable {
        /// More chunks are needed.
        case partial
        /// A whole message.
        case complete(bytes: [UInt8], isText: Bool)
        /// The message would exceed the limit: close with 1009; nothing was buffered past the limit.
        case tooLarge
    }

    /// What ``append(_:first:final:binary:remainingInFrame:)`` returns for a chunk that is a whole
    /// message (`first` and `final`), without the connection's state: almost every message comes
    /// so, and the receive path then skips the lookup of its reassembly. A partial message the
    /// peer left open stays buffered until its next chunk that starts a message goes through
    /// `append` (which clears it) or the connection closes.
    static func whole(_ chunk: UnsafeRawBufferPointer, binary: Bool, limit: Int) -> Outcome {
        chunk.count > limit ? .tooLarge : .complete(bytes: Array(chunk), isText: !binary)
    }

    /// Adds one received chunk.
    ///
    /// - Parameters:
    ///   - chunk: the bytes delivered.
    ///   - first: whether this chunk starts a message.
    ///   - final: whether it ends the message.
    ///   - binary: whether the message is binary.
    ///   - remainingInFrame: payload bytes of the current frame still to come (lets a single big
    ///     frame be refused on its first chunk).
    mutating func append(
        _ chunk: UnsafeRawBufferPointer, first: Bool, final: Bool, binary: Bool, remainingInFrame: Int
    ) -> Outcome {
        if first {
            buffer.removeAll(keepingCapacity: buffer.capacity <= 64 * 1024)
            isText = !binary
        }
        if buffer.count + chunk.count + remainingInFrame > limit {
            buffer = []
            return .tooLarge
        }
        if first && final {
            return .complete(bytes: Array(chunk), isText: isText)
        }
        buffer.append(contentsOf: chunk)
        if final {
            let out = buffer
            buffer.removeAll(keepingCapacity: buffer.capacity <= 64 * 1024)
            return .complete(bytes: out, isText: isText)
        }
        return .partial
    }
}
