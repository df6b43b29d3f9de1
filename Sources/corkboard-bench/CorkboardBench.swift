import ArgumentParser

/// The benchmark tool's root command.
struct CorkboardBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "corkboard-bench",
        abstract: "CPU benchmarks of the Corkboard model (run a release build, pinned with taskset).",
        subcommands: [ModelBenchmark.self])
}
