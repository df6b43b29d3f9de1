public import ArgumentParser

/// How a client tool reaches a Corkboard server: `--url` and `--allow-self-signed`, the same in
/// `corkboard-bot` and `corkboard-load`.
public struct ConnectionOptions: ParsableArguments, Sendable {
    /// The server's WebSocket URL.
    @Option(help: "The server's WebSocket URL (wss:// for TLS).")
    public var url = "ws://127.0.0.1:8080/ws"

    /// Whether a `wss://` server may present a self-signed certificate.
    @Flag(help: "Accept a self-signed certificate from a wss:// server (tests only).")
    public var allowSelfSigned = false

    /// Options with the defaults.
    public init() {}

    /// Checks `--url` is a WebSocket URL.
    public func validate() throws {
        guard url.hasPrefix("ws://") || url.hasPrefix("wss://") else {
            throw ValidationError("--url must start with ws:// or wss://, e.g. ws://127.0.0.1:8080/ws; got '\(url)'.")
        }
    }
}
