import ArgumentParser

/// The `corkboard` command: the Corkboard server and its administration subcommands.
@main
struct Corkboard: AsyncParsableCommand {
    static let version = "0.1.0"

    static let configuration = CommandConfiguration(
        commandName: "corkboard",
        abstract: "A multi-user drag-and-drop board served over WebSocket.",
        discussion: """
            Options fall back to CORKBOARD_* environment variables (see each option's help), then to \
            the defaults shown.
            """,
        version: version,
        subcommands: [Serve.self, Boards.self, Files.self, Export.self, Import.self, Check.self, Migrate.self],
        defaultSubcommand: Serve.self
    )
}
