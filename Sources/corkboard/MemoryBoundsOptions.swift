import ArgumentParser
import CorkboardModel
import CorkboardServer
import CorkboardStore

/// `corkboard serve`'s byte budgets of what boards and clients keep of the past (R18): each
/// bound by bytes as well as by count, so big operations cannot grow memory or the data folder
/// without bound.
struct MemoryBoundsOptions: ParsableArguments {
    @Option(
        help: """
            Bytes of recent operations each board keeps in memory for resuming clients (its newest \
            operation always); a client further behind gets a snapshot. Also the most of the stored log \
            kept behind a board's latest snapshot. (32 MiB)
            """)
    var resumeLogBytes: Int = Sequencer.Configuration().logBytes

    @Option(
        help: """
            Bytes each board keeps to answer resent operations; it keeps outcomes (seq, ids, positions, \
            types), never content. (16 MiB)
            """)
    var resendMemoryBytes: Int = Sequencer.Configuration().outcomeBytes

    @Option(
        help: """
            Bytes of deleted content all undo and redo histories of one board hold together; past it the \
            board's oldest steps are forgotten, whoever's they are, and their clients told. (64 MiB)
            """)
    var undoBoardBytes: Int = UndoHistory.Configuration().boardBytes

    @Option(
        help: """
            Bytes of deleted content one client's undo (or redo) history holds beyond its newest 100 steps. \
            (64 MiB)
            """)
    var undoClientBytes: Int = UndoHistory.Configuration().heldBytes

    @Option(
        help: """
            Bytes of deleted cards, sections and collections each board's Trash keeps, beside the board's \
            own size limit; past it the oldest entries go for good (the newest always stays). (8 MiB)
            """)
    var trashBytes: Int = Trash.maxBytes

    @Option(
        help: """
            With a store, also save a board's snapshot once the operations since the last one hold this \
            many bytes, so the stored log stays small when operations are big. (32 MiB)
            """)
    var snapshotBytes: Int = RoomConfiguration.defaultSnapshotBytes

    @Option(
        help: """
            sqlite: bytes of operations waiting in the store's journal (and in memory) that start moving \
            them into the boards' logs, whichever comes first of this and --journal-fold-rows. (32 MiB)
            """)
    var journalFoldBytes: Int = SQLiteBoardStore.defaultFoldBytes

    func validate() throws {
        for (value, flag) in [
            (resumeLogBytes, "--resume-log-bytes"), (resendMemoryBytes, "--resend-memory-bytes"),
            (undoBoardBytes, "--undo-board-bytes"), (undoClientBytes, "--undo-client-bytes"),
            (snapshotBytes, "--snapshot-bytes"), (journalFoldBytes, "--journal-fold-bytes"),
            (trashBytes, "--trash-bytes"),
        ] where value < 1 {
            throw ValidationError("\(flag) must be at least 1 (bytes), got \(value).")
        }
    }

    /// The sequencer's bounds with these budgets, the board size limit given.
    func sequencer(maxSnapshotBytes: Int) -> Sequencer.Configuration {
        Sequencer.Configuration(
            maxSnapshotBytes: maxSnapshotBytes, logBytes: resumeLogBytes, outcomeBytes: resendMemoryBytes,
            trash: Trash.Limits(bytes: trashBytes))
    }

    /// The undo histories' bounds with these budgets.
    var undoHistory: UndoHistory.Configuration {
        UndoHistory.Configuration(heldBytes: undoClientBytes, boardBytes: undoBoardBytes)
    }
}
