/// A run that could not start or had to stop (the board cannot be joined): printed as `Error: …`,
/// exit status 1.
struct CommandFailure: Error, CustomStringConvertible {
    /// What went wrong and what to do.
    var description: String

    init(_ description: String) { self.description = description }
}
