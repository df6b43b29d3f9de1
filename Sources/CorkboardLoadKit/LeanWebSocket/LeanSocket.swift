/// One connection, as the loop thread keeps it.
final class LeanSocket {
    enum State {
        case connecting
        case handshaking
        case open
        /// A close frame was sent (ours, or our answer to the server's); waiting for the end.
        case closing
        case closed
    }

    let slot: Int
    let url: LeanURL
    let handshake: ClientHandshake
    var fd: Int32 = -1
    var state = State.connecting
    /// The server's answer to the upgrade, until its head is complete.
    var answer: [UInt8] = []
    var reader: ServerFrameReader
    /// Bytes to write, of which `written` are gone.
    var out: [UInt8] = []
    var written = 0
    /// Frames queued before the connection opened.
    var held: [UInt8] = []
    /// Level-triggered mode: `EPOLLOUT` is in the registered events.
    var writeArmed = false
    var inFlushList = false
    /// When connecting or closing gives up (monotonic nanoseconds).
    var deadline: UInt64 = 0
    /// The delegate heard how it ended.
    var reported = false
    /// The close code this side sent, reported if the server never answers.
    var sentCloseCode: UInt16?

    init(slot: Int, url: LeanURL, subprotocol: String?, maxMessageBytes: Int) {
        self.slot = slot
        self.url = url
        handshake = ClientHandshake(key: ClientHandshake.randomKey(), subprotocol: subprotocol)
        reader = ServerFrameReader(maxMessageBytes: maxMessageBytes)
    }

    var hasPendingWrite: Bool { written < out.count }

    var id: LeanConnectionID { LeanConnectionID(slot: slot) }
}
