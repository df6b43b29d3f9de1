/// Checks `condition` every `interval` until it holds or `deadline` passes; returns whether it
/// held. The load tool's waits for joins, deliveries and threads to finish are all this loop.
func waitUntil(
    _ deadline: ContinuousClock.Instant, every interval: Duration, _ condition: () -> Bool
) async throws -> Bool {
    while !condition() {
        guard ContinuousClock.now < deadline else { return false }
        try await Task.sleep(for: interval)
    }
    return true
}
