/// A command that could not do its work (as opposed to malformed arguments, which are
/// `ValidationError`s and print the usage): printed as `Error: …`, exit status 1.
///
/// Shared by `corkboard`, `corkboard-bot` and `corkboard-load`.
public struct CommandFailure: Error, CustomStringConvertible {
    /// What went wrong and what to do.
    public var description: String

    /// A failure with a sentence saying what went wrong and what to do.
    public init(_ description: String) { self.description = description }
}

extension CommandFailure {
    /// Runs `work` and turns anything it throws into a `CommandFailure` that prints the error as it
    /// is: for errors that already say what went wrong and what to do (a store's, a URL parser's).
    public static func reporting<Value>(_ work: () throws -> Value) throws -> Value {
        do {
            return try work()
        } catch {
            throw CommandFailure("\(error)")
        }
    }
}
