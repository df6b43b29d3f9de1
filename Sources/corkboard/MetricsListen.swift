import ArgumentParser
import Foundation

/// Where `corkboard serve --metrics-listen` serves `/metrics`: `HOST:PORT`, `[IPv6]:PORT`, or a
/// bare `PORT` on loopback (127.0.0.1).
struct MetricsListen: Equatable {
    var host: String
    var port: Int

    /// Parses `HOST:PORT`, `[IPv6]:PORT` or `PORT`.
    ///
    /// - Throws: `ValidationError` saying what is wrong with `text`.
    init(parsing text: String) throws {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        var host = "127.0.0.1"
        var portText = trimmed
        if trimmed.hasPrefix("[") {
            guard let close = trimmed.firstIndex(of: "]"), trimmed[trimmed.index(after: close)...].hasPrefix(":")
            else {
                throw ValidationError("--metrics-listen '\(text)': write an IPv6 address as [ADDRESS]:PORT.")
            }
            host = String(trimmed[trimmed.index(after: trimmed.startIndex)..<close])
            portText = String(trimmed[trimmed.index(close, offsetBy: 2)...])
        } else if let colon = trimmed.lastIndex(of: ":") {
            host = String(trimmed[..<colon])
            portText = String(trimmed[trimmed.index(after: colon)...])
        }
        guard !host.isEmpty else {
            throw ValidationError("--metrics-listen '\(text)' names no host; give HOST:PORT, or PORT for loopback.")
        }
        guard let port = Int(portText), (0...65535).contains(port) else {
            throw ValidationError(
                "--metrics-listen '\(text)': the port must be a number from 0 to 65535 (HOST:PORT, or PORT for loopback)."
            )
        }
        self.host = host
        self.port = port
    }
}
