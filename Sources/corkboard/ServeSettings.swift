import ArgumentParser
import CLinuxShim
import CorkboardCommandLine
import CorkboardTransport
import Foundation
import Logging

/// The `serve` options resolved against their environment fallbacks and defaults.
struct ServeSettings {
    let host: String
    let port: Int
    let webRoot: String
    let dataFolder: String
    let tlsCertificate: String?
    let tlsPrivateKey: String?
    let allowedOrigins: [String]
    let maxMessageBytes: Int
    let maxConnections: Int
    let maxConnectionsPerIP: Int
    let maxPendingPerIP: Int
    let maxPendingPerThread: Int
    let trustedProxies: TrustedProxies
    let echoPath: String?
    let threads: Int
    let eventLoop: ServerConfiguration.EventLoop
    let scheduling: ThreadScheduling
    /// Whether `scheduling` was asked for (flag or environment) rather than the default.
    let schedulingIsExplicit: Bool
    let logLevel: Logger.Level
    let logFormat: LogFormat
    /// Where `/metrics` is served, or `nil` for no metrics.
    let metricsListen: MetricsListen?
    /// Whether to serve even when the frame guard is not in libwebsockets' read path.
    let allowUnguardedReads: Bool

    init(_ options: Corkboard.Serve, environment: EnvironmentFallback = EnvironmentFallback()) throws {
        host = environment.string(options.host, "CORKBOARD_HOST", default: "127.0.0.1")
        port = try environment.int(options.port, "CORKBOARD_PORT", default: 8080)
        guard (0...65535).contains(port) else {
            throw ValidationError("CORKBOARD_PORT must be between 0 and 65535, got \(port).")
        }
        webRoot = environment.string(options.web, "CORKBOARD_WEB", default: "web")
        dataFolder = environment.string(options.data, "CORKBOARD_DATA", default: "data")
        tlsCertificate = environment.optionalString(options.tlsCert, "CORKBOARD_TLS_CERT")
        tlsPrivateKey = environment.optionalString(options.tlsKey, "CORKBOARD_TLS_KEY")
        if (tlsCertificate == nil) != (tlsPrivateKey == nil) {
            throw ValidationError("A TLS certificate and key go together: give both, or neither.")
        }
        allowedOrigins = environment.list(options.allowOrigins, "CORKBOARD_ALLOW_ORIGINS")
        maxMessageBytes = options.maxMessageBytes
        maxConnections = options.maxConnections
        maxConnectionsPerIP = options.maxConnectionsPerIP
        maxPendingPerIP = options.maxPendingPerIP
        maxPendingPerThread = try environment.int(options.maxPending, "CORKBOARD_MAX_PENDING", default: 768)
        guard (0...ServerConfiguration.maxPendingPerThreadLimit).contains(maxPendingPerThread) else {
            throw ValidationError(
                "--max-pending must be 0 (no limit) or at most \(ServerConfiguration.maxPendingPerThreadLimit) "
                    + "(below a service thread's \(ServerConfiguration.headerPoolPerThread) request buffers), "
                    + "got \(maxPendingPerThread).")
        }
        do {
            trustedProxies = try TrustedProxies(
                parsing: environment.list(options.trustedProxies, "CORKBOARD_TRUSTED_PROXIES"))
        } catch {
            throw ValidationError("--trusted-proxy: \(error.message).")
        }
        echoPath = options.echoPath
        threads = try environment.int(
            options.threads, "CORKBOARD_THREADS", default: Int(clinux_allowed_cpus()))
        guard (1...ServerConfiguration.maxThreads).contains(threads) else {
            throw ValidationError("--threads must be between 1 and \(ServerConfiguration.maxThreads), got \(threads).")
        }
        let loopName = environment.string(options.eventLoop, "CORKBOARD_EVENT_LOOP", default: "libuv")
        guard let loop = ServerConfiguration.EventLoop(rawValue: loopName.lowercased()) else {
            let names = ServerConfiguration.EventLoop.allCases.map(\.rawValue).joined(separator: " or ")
            throw ValidationError("--event-loop must be \(names), got '\(loopName)'.")
        }
        eventLoop = loop
        let givenScheduling = environment.optionalString(options.scheduling, "CORKBOARD_SCHEDULING")
        let schedulingName = givenScheduling ?? "batch"
        guard let scheduling = ThreadScheduling(rawValue: schedulingName.lowercased()) else {
            let names = ThreadScheduling.allCases.map(\.rawValue).joined(separator: ", ")
            throw ValidationError("--scheduling must be one of \(names), got '\(schedulingName)'.")
        }
        self.scheduling = scheduling
        schedulingIsExplicit = givenScheduling != nil
        let levelName = environment.string(options.logLevel, "CORKBOARD_LOG_LEVEL", default: "info")
        guard let level = Logger.Level(rawValue: levelName.lowercased()) else {
            let names = Logger.Level.allCases.map(\.rawValue).joined(separator: ", ")
            throw ValidationError("Unknown log level '\(levelName)'; use one of: \(names).")
        }
        logLevel = level
        let formatName = environment.string(options.logFormat, "CORKBOARD_LOG_FORMAT", default: "text")
        guard let format = LogFormat(rawValue: formatName.lowercased()) else {
            throw ValidationError("--log-format must be text or json, got '\(formatName)'.")
        }
        logFormat = format
        metricsListen = try environment.optionalString(options.metricsListen, "CORKBOARD_METRICS_LISTEN").map {
            try MetricsListen(parsing: $0)
        }
        if let metricsListen, metricsListen.port != 0, metricsListen.port == port {
            throw ValidationError(
                "--metrics-listen must not use the public port \(port): metrics get a listener of their own.")
        }
        allowUnguardedReads = try environment.flag(options.allowUnguardedReads, "CORKBOARD_ALLOW_UNGUARDED_READS")

        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: webRoot, isDirectory: &isFolder), isFolder.boolValue else {
            throw ValidationError(
                "The web folder '\(webRoot)' does not exist; pass --web with the folder holding index.html.")
        }
        for path in [tlsCertificate, tlsPrivateKey].compactMap({ $0 })
        where !FileManager.default.isReadableFile(atPath: path) {
            throw ValidationError("Cannot read TLS file '\(path)'; check the path and its permissions.")
        }
    }

    var scheme: String { tlsCertificate == nil ? "http" : "https" }

    /// The host to print in URLs: a wildcard address is reachable as 127.0.0.1 on this machine.
    var displayHost: String { Self.displayHost(host) }

    /// How `host` (a listening address) is written in a URL: a wildcard address is reachable as
    /// 127.0.0.1 on this machine, and an IPv6 address goes in brackets.
    static func displayHost(_ host: String) -> String {
        if ["0.0.0.0", "::", "", "*"].contains(host) { return "127.0.0.1" }
        return host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
    }

    var serverConfiguration: ServerConfiguration {
        ServerConfiguration(
            host: host,
            port: port,
            webRoot: webRoot,
            allowedOrigins: allowedOrigins,
            maxMessageBytes: maxMessageBytes,
            // The queue must hold a whole message or two (an echoed 16 MiB message, say).
            maxQueuedBytes: max(16 << 20, 2 * maxMessageBytes + 1024),
            threads: threads,
            eventLoop: eventLoop,
            tlsCertificatePath: tlsCertificate,
            tlsPrivateKeyPath: tlsPrivateKey,
            echoPath: echoPath,
            maxConnections: maxConnections,
            maxConnectionsPerAddress: maxConnectionsPerIP,
            maxPendingConnectionsPerAddress: maxPendingPerIP,
            maxPendingConnectionsPerThread: maxPendingPerThread,
            trustedProxies: trustedProxies,
            allowUnguardedReads: allowUnguardedReads
        )
    }

    /// Creates the data folder if needed and checks the server can write there, so a bad `--data`
    /// fails at start-up rather than at the first save.
    func prepareDataFolder() throws {
        do {
            try FileManager.default.createDirectory(atPath: dataFolder, withIntermediateDirectories: true)
        } catch {
            throw ValidationError("Cannot create the data folder '\(dataFolder)': \(error.localizedDescription)")
        }
        guard FileManager.default.isWritableFile(atPath: dataFolder) else {
            throw ValidationError(
                "The data folder '\(dataFolder)' is not writable; fix its permissions or pass --data.")
        }
    }
}
