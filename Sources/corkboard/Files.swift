import ArgumentParser
import CorkboardApp
import CorkboardCommandLine
import Foundation

extension Corkboard {
    /// `corkboard files`: the uploaded files of a data folder.
    struct Files: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Manage uploaded files: remove those no board refers to any more.",
            subcommands: [Collect.self],
            defaultSubcommand: Collect.self)

        struct Collect: ParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Remove uploaded files that no board, Trash or undo history refers to any more.",
                discussion: """
                    Reads every board of the store (its cards, Trash, undo histories and the operations \
                    kept for resuming clients) and removes the files of DATA/files that none of them \
                    mentions and that are older than --file-grace-days. If a board cannot be read, nothing \
                    is removed. Safe while the server runs; `corkboard serve` also does this every \
                    --file-collection-hours.
                    """)

            @OptionGroup var data: StoreLocationOption
            @OptionGroup var collection: FileCollectionOptions

            @Flag(help: "List what would be removed; remove nothing.")
            var dryRun = false

            func run() throws {
                guard let store = try data.openStoreForReading()?.store else {
                    throw CommandFailure("There is no board store in \(data.place); check --data.")
                }
                let folder = (data.folder as NSString).appendingPathComponent("files")
                let collector = FileCollector(folder: folder, grace: collection.grace)
                let report: FileCollector.Report
                do {
                    report = try collector.collect(store: store, dryRun: dryRun) { print($0) }
                } catch {
                    throw CommandFailure("Could not read every board (\(error)); nothing was removed.")
                }
                for name in report.removed { print("\(dryRun ? "would remove" : "removed") \(name)") }
                print(report.summary)
            }
        }
    }
}
