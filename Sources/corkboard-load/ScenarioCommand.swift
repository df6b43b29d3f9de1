import ArgumentParser

/// A load scenario's command: the options every scenario shares, and the plan it makes of its own
/// options; running it runs the plan with ``LoadRunner``.
protocol ScenarioCommand: AsyncParsableCommand {
    var run: RunOptions { get }
    var selection: BoardSelection { get }

    /// The scenario to run, from the command's options.
    func plan() -> ScenarioPlan
}

extension ScenarioCommand {
    func run() async throws {
        try await LoadRunner(options: run, selection: selection).run(plan())
    }
}
