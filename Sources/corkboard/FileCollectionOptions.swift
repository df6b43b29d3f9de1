import ArgumentParser
import CorkboardApp

/// How uploaded files no board refers to any more are removed (`FileCollector`): by
/// `corkboard serve` every few hours, or at once by `corkboard files collect`.
struct FileCollectionOptions: ParsableArguments {
    @Option(
        help: """
            Days an uploaded file is kept whatever refers to it: uploads come before the edits that \
            attach them, and a client working offline may attach one later. (7)
            """)
    var fileGraceDays: Double = FileCollector.defaultGrace / 86_400

    func validate() throws {
        guard fileGraceDays >= 0, fileGraceDays.isFinite else {
            throw ValidationError("--file-grace-days must be 0 or more, got \(fileGraceDays).")
        }
    }

    /// The grace period in seconds.
    var grace: Double { fileGraceDays * 86_400 }
}

/// `corkboard serve`'s schedule of file collections.
struct FileCollectionSchedule: ParsableArguments {
    @OptionGroup var collection: FileCollectionOptions

    @Option(
        help: """
            Hours between removals of uploaded files that no board, Trash or undo history refers to \
            any more (the first one period after the start). 0 turns them off. (6)
            """)
    var fileCollectionHours: Double = 6

    func validate() throws {
        guard fileCollectionHours >= 0, fileCollectionHours.isFinite else {
            throw ValidationError("--file-collection-hours must be 0 (off) or more, got \(fileCollectionHours).")
        }
    }

    /// The period between collections, `nil` when off.
    var interval: Duration? {
        fileCollectionHours > 0 ? .milliseconds(Int64(fileCollectionHours * 3_600_000)) : nil
    }
}
