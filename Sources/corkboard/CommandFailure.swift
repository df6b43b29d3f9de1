/// A command that could not do its work (as opposed to malformed arguments, which are
/// `ValidationError`s and print the usage): printed as `Error: …`, exit status 1.
struct CommandFailure: Error, CustomStringConvertible {
    /// What went wrong and what to do.
    var description: String

    init(_ description: String) { self.description = description }
}
