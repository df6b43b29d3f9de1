import ArgumentParser

/// `corkboard-load`: load generators and transport benchmarks for Corkboard.
@main
struct CorkboardLoad: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "corkboard-load",
        abstract: "Load generators and benchmarks for Corkboard.",
        discussion: """
            The scenarios (crowd, boards, storm, idle) run against a separately started `corkboard serve`: \
            pass its WebSocket URL with --url and its process id with --pid for CPU and memory. See \
            docs/BENCHMARKS.md for the commands and pinning. `relay` runs the same hover load against \
            another relay (the lws mirror or y-websocket) for comparison.
            """,
        subcommands: [
            CrowdCommand.self, BoardsCommand.self, StormCommand.self, IdleCommand.self, FloodCommand.self,
            SoakCommand.self,
            SetupCommand.self, RelayCommand.self,
            TransportBenchCommand.self, TransportServerCommand.self,
        ]
    )
}
