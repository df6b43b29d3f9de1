public import ArgumentParser

/// How a client tool reaches a Corkboard server: `--url` (repeatable: the entry URLs of a
/// cluster) and `--allow-self-signed`, the same in `corkboard-bot` and `corkboard-load`.
public struct ConnectionOptions: ParsableArguments, Sendable {
    /// The entry URLs given, in order.
    @Option(
        name: .customLong("url"),
        help: """
            The server's WebSocket URL (wss:// for TLS). Repeat it to give several entry URLs of a cluster: \
            when one cannot be reached the next is tried, and every server redirects to the node that \
            sequences the board. (default: ws://127.0.0.1:8080/ws)
            """)
    public var urls: [String] = []

    /// The first entry URL.
    public var url: String { urls.first ?? "ws://127.0.0.1:8080/ws" }

    /// The entry URLs after the first.
    public var alternateURLs: [String] { Array(urls.dropFirst()) }

    /// Whether a `wss://` server may present a self-signed certificate.
    @Flag(help: "Accept a self-signed certificate from a wss:// server (tests only).")
    public var allowSelfSigned = false

    /// Options with the defaults.
    public init() {}

    /// Checks `--url` is a WebSocket URL.
    public func validate() throws {
        for url in urls where !(url.hasPrefix("ws://") || url.hasPrefix("wss://")) {
            throw ValidationError("--url must start with ws:// or wss://, e.g. ws://127.0.0.1:8080/ws; got '\(url)'.")
        }
        if Set(urls.map { $0.hasPrefix("wss://") }).count > 1 {
            throw ValidationError("--url: give either ws:// or wss:// URLs, not both.")
        }
    }
}
