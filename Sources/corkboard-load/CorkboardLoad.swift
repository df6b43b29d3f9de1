import ArgumentParser

/// `corkboard-load`: load generators and transport benchmarks for Corkboard.
@main
struct CorkboardLoad: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "corkboard-load",
        abstract: "Load generators and benchmarks for Corkboard.",
        subcommands: [TransportServerCommand.self, TransportBenchCommand.self]
    )
}
