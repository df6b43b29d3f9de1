import Foundation
public import NIOCore
import NIOSSL
public import PostgresNIO

/// A PostgreSQL connection URL, `postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE[?sslmode=MODE]`
/// (`postgresql://` too), as libpq reads it: port 5432 unless given, `sslmode` `disable`, `prefer`
/// (the default: TLS when the server offers it) or `require`.
public struct PostgresURL: Sendable, CustomStringConvertible {
    /// How TLS is used.
    public enum TLSMode: String, Sendable {
        /// Never.
        case disable
        /// When the server offers it.
        case prefer
        /// Always; a server without TLS is refused.
        case require
    }

    /// The server's host name or address.
    public var host: String
    /// The server's port.
    public var port: Int
    /// The role to log in as.
    public var username: String
    /// The role's password, if any.
    public var password: String?
    /// The database.
    public var database: String
    /// How TLS is used.
    public var tls: TLSMode

    /// Parses a URL.
    ///
    /// - Throws: `PostgresURLError` saying what is wrong with it.
    public init(_ text: String) throws(PostgresURLError) {
        guard let components = URLComponents(string: text),
            let scheme = components.scheme, ["postgres", "postgresql"].contains(scheme.lowercased())
        else {
            throw PostgresURLError(
                "'\(PostgresURL.redacted(text))' is not a PostgreSQL URL; write "
                    + "postgres://USER:PASSWORD@HOST:PORT/DATABASE (for example "
                    + "postgres://corkboard@127.0.0.1:5432/corkboard).")
        }
        guard let host = components.host, !host.isEmpty else {
            throw PostgresURLError("The PostgreSQL URL '\(PostgresURL.redacted(text))' names no host.")
        }
        guard let user = components.user, !user.isEmpty else {
            throw PostgresURLError(
                "The PostgreSQL URL '\(PostgresURL.redacted(text))' names no user; write postgres://USER@HOST/DATABASE."
            )
        }
        let database = String(components.path.drop { $0 == "/" })
        guard !database.isEmpty, !database.contains("/") else {
            throw PostgresURLError(
                "The PostgreSQL URL '\(PostgresURL.redacted(text))' names no database; add it after the host, "
                    + "e.g. postgres://\(user)@\(host)/corkboard.")
        }
        var mode = TLSMode.prefer
        for item in components.queryItems ?? [] {
            switch item.name {
            case "sslmode":
                guard let value = item.value, let parsed = TLSMode(rawValue: value) else {
                    throw PostgresURLError(
                        "sslmode must be disable, prefer or require, got '\(item.value ?? "")'.")
                }
                mode = parsed
            default:
                throw PostgresURLError(
                    "The PostgreSQL URL's parameter '\(item.name)' is not supported; only sslmode is.")
            }
        }
        self.host = host
        self.port = components.port ?? 5432
        self.username = user.removingPercentEncoding ?? user
        self.password = components.password.map { $0.removingPercentEncoding ?? $0 }
        self.database = database.removingPercentEncoding ?? database
        self.tls = mode
    }

    /// The URL without its password, for logs and messages.
    public var description: String {
        "postgres://\(username)\(password == nil ? "" : ":***")@\(host):\(port)/\(database)?sslmode=\(tls.rawValue)"
    }

    /// The connection configuration for postgres-nio.
    ///
    /// - Throws: `PostgresURLError` when TLS cannot be set up.
    public func configuration(connectTimeout: TimeAmount = .seconds(3)) throws(PostgresURLError)
        -> PostgresConnection.Configuration
    {
        let tlsSetting: PostgresConnection.Configuration.TLS
        switch tls {
        case .disable:
            tlsSetting = .disable
        case .prefer, .require:
            do {
                let context = try NIOSSLContext(configuration: .makeClientConfiguration())
                tlsSetting = tls == .prefer ? .prefer(context) : .require(context)
            } catch {
                throw PostgresURLError("TLS for PostgreSQL cannot be set up: \(error).")
            }
        }
        var configuration = PostgresConnection.Configuration(
            host: host, port: port, username: username, password: password, database: database, tls: tlsSetting)
        configuration.options.connectTimeout = connectTimeout
        return configuration
    }

    /// A URL text with any password replaced by `***`.
    static func redacted(_ text: String) -> String {
        guard var components = URLComponents(string: text), components.password != nil else { return text }
        components.password = "***"
        return components.string ?? text
    }
}

/// A malformed PostgreSQL URL, as a sentence saying what to write instead.
public struct PostgresURLError: Error, CustomStringConvertible {
    /// What is wrong and what to do.
    public var description: String

    init(_ description: String) { self.description = description }
}
