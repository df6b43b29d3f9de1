public import Testing

/// Waits until `condition` holds, checking it every 2 ms, for at most `timeout`; returns whether
/// it held. With `what`, a timeout also records an issue naming it.
///
/// For state no event announces (an actor's fields, a process's files); deliveries to a
/// `RecordingSink` are better awaited with `RecordingSink.wait(timeout:until:)`.
@discardableResult
public func eventually(
    _ what: String? = nil, timeout: Duration = .seconds(20), sourceLocation: SourceLocation = #_sourceLocation,
    _ condition: () async throws -> Bool
) async rethrows -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try? await Task.sleep(for: .milliseconds(2))
    }
    let held = try await condition()
    if !held, let what {
        Issue.record("timed out after \(timeout) waiting for \(what)", sourceLocation: sourceLocation)
    }
    return held
}
