import CorkboardJSON
import Foundation
public import Logging

/// How the executables write their logs: `text` (swift-log's stream format) or `json` (one object
/// per line: time, level, label, message, metadata), both to standard error and both with secrets
/// redacted.
public enum LogFormat: String, Sendable, CaseIterable {
    /// `2026-11-25T08:00:00+0000 info corkboard: key=value message`.
    case text
    /// `{"time":"…","level":"info","label":"corkboard","message":"…","board":"demo",…}`.
    case json

    /// Installs the format for the whole process (call once, before creating loggers).
    public func bootstrap(level: Logger.Level) {
        LoggingSystem.bootstrap { label in
            var base: any LogHandler
            switch self {
            case .text: base = StreamLogHandler.standardError(label: label)
            case .json: base = JSONLogHandler(label: label)
            }
            base.logLevel = level
            return RedactingLogHandler(base: base)
        }
    }
}

/// Redacts board keys and resume tokens (`e-…`, `v-…`, `r-…`: 32 hex digits) from log messages and
/// metadata: share keys are passwords, and logs travel further than the server.
public struct RedactingLogHandler: LogHandler {
    var base: any LogHandler

    public init(base: any LogHandler) { self.base = base }

    public var metadata: Logger.Metadata {
        get { base.metadata }
        set { base.metadata = newValue }
    }

    public var logLevel: Logger.Level {
        get { base.logLevel }
        set { base.logLevel = newValue }
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { base[metadataKey: key] }
        set { base[metadataKey: key] = newValue }
    }

    public func log(event: LogEvent) {
        var event = event
        event.message = "\(Secrets.redact(event.message.description))"
        event.metadata = event.metadata.map(Secrets.redact)
        base.log(event: event)
    }
}

/// Recognizes the secrets Corkboard hands out.
public enum Secrets {
    /// `e-`, `v-`, `a-`, `r-`, `t-` or `d-` followed by 32 lower-case hex digits: edit, view and
    /// admin keys, resume tokens, invite tokens and device keys (issue 45). Comment keys share
    /// their `c-` with client ids, which logs name on purpose: they are never logged instead.
    static let pattern = try! NSRegularExpression(pattern: "\\b[evartd]-[0-9a-f]{32}\\b")

    /// `text` with every secret replaced by `[redacted]`.
    public static func redact(_ text: String) -> String {
        guard text.contains("-") else { return text }
        let range = NSRange(text.startIndex..., in: text)
        return pattern.stringByReplacingMatches(in: text, range: range, withTemplate: "[redacted]")
    }

    /// Metadata with every secret in its values replaced.
    static func redact(_ metadata: Logger.Metadata) -> Logger.Metadata {
        metadata.mapValues(redact)
    }

    static func redact(_ value: Logger.Metadata.Value) -> Logger.Metadata.Value {
        switch value {
        case .string(let s): .string(redact(s))
        case .stringConvertible(let c): .string(redact(c.description))
        case .array(let values): .array(values.map(redact))
        case .dictionary(let values): .dictionary(values.mapValues(redact))
        }
    }
}

/// One JSON object per line on standard error: `time` (ISO 8601, UTC, milliseconds), `level`,
/// `label`, `message`, then the metadata (the handler's, then the event's) as string fields.
public struct JSONLogHandler: LogHandler {
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level = .info
    let label: String

    public init(label: String) { self.label = label }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var fields: [String: String] = [:]
        for (key, value) in metadata.merging(event.metadata ?? [:], uniquingKeysWith: { _, new in new }) {
            fields[key] = "\(value)"
        }
        fields["time"] = JSONLogHandler.timestamp()
        fields["level"] = event.level.rawValue
        fields["label"] = label
        fields["message"] = event.message.description
        if let source = event.source.isEmpty ? nil : event.source { fields["source"] = source }
        let ordered = ["time", "level", "label", "message"]
        var text = "{"
        for key in ordered + fields.keys.filter({ !ordered.contains($0) }).sorted() {
            guard let value = fields[key] else { continue }
            if text.count > 1 { text += "," }
            text += JSONLogHandler.quote(key) + ":" + JSONLogHandler.quote(value)
        }
        text += "}\n"
        FileHandle.standardError.write(Data(text.utf8))
    }

    private static func quote(_ value: String) -> String { JSONString.quoted(value) }

    private static func timestamp() -> String {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        var seconds = time_t(now.tv_sec)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        return String(
            format: "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", parts.tm_year + 1900, parts.tm_mon + 1, parts.tm_mday,
            parts.tm_hour, parts.tm_min, parts.tm_sec, now.tv_nsec / 1_000_000)
    }
}
