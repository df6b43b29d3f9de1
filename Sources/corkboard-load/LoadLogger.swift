import Logging

extension Logger {
    /// The load tool's logger: errors only, so that the clients' notices do not break up the
    /// progress line and the report.
    static func loadTool() -> Logger {
        var logger = Logger(label: "corkboard-load")
        logger.logLevel = .error
        return logger
    }
}
