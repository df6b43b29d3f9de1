public import CorkboardProtocol
public import CorkboardServer
import Synchronization
public import Testing

/// A connection sink with no sockets, like tldraw's `makeSocket()`: it decodes and records every
/// message sent to each handle and every close, in order, and lets a test set each handle's
/// unsent byte count (R11).
///
/// Every handle has one read position: `take`, `takeEvents` and `takeMessages` return what
/// arrived since the last of them. Tests wait for deliveries with `wait(timeout:until:)`, which
/// wakes on each one instead of polling.
public final class RecordingSink: ConnectionSink {
    /// One recorded close.
    public struct Close: Hashable, Sendable {
        public var handle: ConnectionHandle
        public var code: Int
        public var reason: String
        /// Whether the room asked to close at once, dropping what the connection had not read.
        public var discardingPending = false

        public init(handle: ConnectionHandle, code: Int, reason: String, discardingPending: Bool = false) {
            self.handle = handle
            self.code = code
            self.reason = reason
            self.discardingPending = discardingPending
        }
    }

    /// One recorded delivery: the decoded message, whether the room marked it ephemeral, and the
    /// encoded message as the room handed it over.
    public struct Delivery: Sendable {
        public var message: ServerMessage
        public var isEphemeral: Bool
        /// The bytes as sent, in their pieces (tests of what rooms share between recipients).
        public var encoded: EncodedMessage
    }

    /// What a connection was sent, in order: messages and its close.
    public enum Event: Equatable, Sendable {
        case message(ServerMessage)
        case closed(code: Int)
    }

    private struct State {
        var deliveries: [ConnectionHandle: [Delivery]] = [:]
        var events: [ConnectionHandle: [Event]] = [:]
        var read: [ConnectionHandle: Int] = [:]
        var pending: [ConnectionHandle: Int] = [:]
        var closes: [Close] = []
        var undecodable: [String] = []
    }

    private let state = Mutex(State())
    private let changes = ChangeSignal()
    /// Whether every message sent adds its size to the handle's unsent bytes, as a transport whose
    /// peer reads nothing would (tests then `read` bytes off).
    public let accumulatesPending: Bool

    /// A sink; with `accumulatesPending`, unsent bytes grow with every message until `read`.
    public init(accumulatesPending: Bool = false) { self.accumulatesPending = accumulatesPending }

    public func send(_ message: EncodedMessage, to handles: [ConnectionHandle]) {
        let decoded: ServerMessage
        do {
            decoded = try WireCodec.decodeServerMessage(message.bytes)
        } catch {
            state.withLock { $0.undecodable.append("\(message.text): \(error)") }
            Issue.record("the room sent undecodable JSON: \(message.text)")
            return
        }
        state.withLock { state in
            for handle in handles {
                state.deliveries[handle, default: []].append(
                    Delivery(message: decoded, isEphemeral: message.isEphemeral, encoded: message))
                state.events[handle, default: []].append(.message(decoded))
                if accumulatesPending { state.pending[handle, default: 0] += message.count }
            }
        }
        changes.notify()
    }

    public func pendingBytes(of handle: ConnectionHandle) -> Int { state.withLock { $0.pending[handle] ?? 0 } }

    public func close(_ handle: ConnectionHandle, code: Int, reason: String, discardingPending: Bool) {
        state.withLock {
            $0.closes.append(Close(handle: handle, code: code, reason: reason, discardingPending: discardingPending))
            $0.events[handle, default: []].append(.closed(code: code))
        }
        changes.notify()
    }

    /// The peer reads `bytes` (all, by default) of what is unsent.
    public func read(_ bytes: Int = .max, of handle: ConnectionHandle) {
        state.withLock { $0.pending[handle] = max(0, ($0.pending[handle] ?? 0) - bytes) }
    }

    /// Sets a handle's unsent byte count, as the transport would report it.
    public func setPendingBytes(_ bytes: Int, of handle: ConnectionHandle) {
        state.withLock { $0.pending[handle] = bytes }
    }

    /// Every message sent to a handle, in order.
    public func messages(to handle: ConnectionHandle) -> [ServerMessage] {
        state.withLock { ($0.deliveries[handle] ?? []).map(\.message) }
    }

    /// Every delivery to a handle, in order, with the ephemeral flag.
    public func deliveries(to handle: ConnectionHandle) -> [Delivery] { state.withLock { $0.deliveries[handle] ?? [] } }

    /// The messages and closes of a handle since the last take for it.
    public func takeEvents(_ handle: ConnectionHandle) -> [Event] {
        state.withLock { state in
            let all = state.events[handle] ?? []
            let start = state.read[handle] ?? 0
            state.read[handle] = all.count
            return Array(all[start...])
        }
    }

    /// The messages sent to a handle since the last take for it (a close is skipped).
    public func take(_ handle: ConnectionHandle) -> [ServerMessage] {
        takeEvents(handle).compactMap { if case .message(let message) = $0 { message } else { nil } }
    }

    /// The messages sent to a handle since the last take for it, recording an issue if it was closed.
    public func takeMessages(_ handle: ConnectionHandle, sourceLocation: SourceLocation = #_sourceLocation)
        -> [ServerMessage]
    {
        takeEvents(handle).compactMap { event in
            switch event {
            case .message(let message): return message
            case .closed(let code):
                Issue.record("connection \(handle) was closed \(code)", sourceLocation: sourceLocation)
                return nil
            }
        }
    }

    /// Every close, in order.
    public var closes: [Close] { state.withLock { $0.closes } }

    /// The closes of one handle.
    public func closes(of handle: ConnectionHandle) -> [Close] { closes.filter { $0.handle == handle } }

    /// Messages that did not decode as a `ServerMessage` (should stay empty).
    public var undecodable: [String] { state.withLock { $0.undecodable } }

    /// Waits until `condition` holds, checking it after every delivery and close; `false` when it
    /// still does not hold after `timeout`.
    public func wait(timeout: Duration = .seconds(20), until condition: () -> Bool) async -> Bool {
        await changes.wait(timeout: timeout, until: condition)
    }

    /// Waits until a handle has `count` messages not yet taken, and takes them (fewer after
    /// `timeout`).
    public func next(_ handle: ConnectionHandle, count: Int = 1, timeout: Duration = .seconds(20)) async
        -> [ServerMessage]
    {
        var taken: [ServerMessage] = []
        _ = await wait(timeout: timeout) {
            taken += take(handle)
            return taken.count >= count
        }
        return taken
    }
}
