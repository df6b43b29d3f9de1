import CorkboardModel
public import CorkboardStorage
public import Foundation
import Logging

/// Removes uploaded files no board refers to any more (R16: a detached or deleted attachment's
/// file goes once nothing refers to it; undo and the Trash bring it back while they can).
///
/// A file stays while any board mentions it (`StoredFileReferences`: cards, covers, image cards,
/// descriptions and comments, the Trash, undo and redo histories, the operations kept for resuming
/// clients), and while it is younger than the grace period, whatever refers to it: an upload is
/// stored before the operation that attaches it, and a client working offline may attach a file it
/// uploaded earlier. Candidates are listed before the boards are read, so a file uploaded during a
/// collection is never among them. If any board cannot be read, nothing is removed.
public struct FileCollector: Sendable {
    /// What a collection found and did.
    public struct Report: Sendable, Equatable {
        /// Boards whose state was read.
        public var boards = 0
        /// Stored files looked at.
        public var files = 0
        /// Files kept because a board refers to them.
        public var referenced = 0
        /// Files kept because they are younger than the grace period.
        public var young = 0
        /// Files removed (or that would be, in a dry run), as `<board>/<name>`, in order.
        public var removed: [String] = []
        /// Their bytes.
        public var removedBytes = 0

        /// One line for people and logs.
        public var summary: String {
            "\(files) file\(files == 1 ? "" : "s") on \(boards) board\(boards == 1 ? "" : "s"): \(referenced) in use, "
                + "\(young) too recent to judge, \(removed.count) unused (\(removedBytes) bytes)"
        }
    }

    /// Where uploads are stored: `<data>/files`, one folder per board.
    public let folder: String
    /// Files modified more recently than this are kept.
    public let grace: TimeInterval

    /// A collector of `folder` keeping files younger than `grace` seconds.
    public init(folder: String, grace: TimeInterval) {
        self.folder = folder
        self.grace = grace
    }

    /// The default grace period: 7 days.
    public static let defaultGrace: TimeInterval = 7 * 24 * 3600

    /// Lists the unused files older than the grace period (in the folder of board `only`, or of
    /// every board), reading every board of `store`, and removes them unless `dryRun`.
    ///
    /// - Throws: `StoreError` or an encoding error when a board cannot be read (nothing is removed).
    public func collect(
        store: any BoardStore, only: String? = nil, dryRun: Bool = false, now: Date = Date(),
        progress: (String) -> Void = { _ in }
    ) throws -> Report {
        var report = Report()
        let candidates = listCandidates(olderThan: now.addingTimeInterval(-grace), only: only, report: &report)
        var references = StoredFileReferences()
        let boards = try store.load()
        for (index, record) in boards.enumerated() {
            if let board = try store.load(board: record.id) { try references.scan(board) }
            report.boards += 1
            if boards.count >= 20, (index + 1) % max(1, boards.count / 10) == 0 {
                progress("read \(index + 1) of \(boards.count) boards")
            }
        }
        for candidate in candidates {
            if references.contains(String(candidate.file.name)) {
                report.referenced += 1
                continue
            }
            if !dryRun {
                do {
                    try FileManager.default.removeItem(atPath: candidate.path)
                } catch {
                    progress("could not remove \(candidate.path): \(error.localizedDescription)")
                    continue
                }
            }
            report.removed.append("\(candidate.file.board)/\(candidate.file.name)")
            report.removedBytes += candidate.bytes
        }
        return report
    }

    /// A stored file old enough to be judged.
    private struct Candidate {
        var path: String
        var file: Attachment.StoredFile
        var bytes: Int
    }

    /// The stored files modified before `cutoff`, in a stable order; counts every stored file and
    /// the young ones in `report`. Anything else in the folder (a partial upload) is left alone.
    private func listCandidates(olderThan cutoff: Date, only: String?, report: inout Report) -> [Candidate] {
        let manager = FileManager.default
        var candidates: [Candidate] = []
        let boards = only.map { [$0] } ?? ((try? manager.contentsOfDirectory(atPath: folder)) ?? []).sorted()
        for board in boards {
            let boardFolder = folder + "/" + board
            for name in ((try? manager.contentsOfDirectory(atPath: boardFolder)) ?? []).sorted() {
                let relative = board + "/" + name
                guard let file = Attachment.StoredFile(path: Substring(relative)) else { continue }
                let path = boardFolder + "/" + name
                guard let attributes = try? manager.attributesOfItem(atPath: path),
                    attributes[.type] as? FileAttributeType == .typeRegular,
                    let modified = attributes[.modificationDate] as? Date
                else { continue }
                report.files += 1
                guard modified < cutoff else {
                    report.young += 1
                    continue
                }
                let bytes = (attributes[.size] as? NSNumber)?.intValue ?? 0
                candidates.append(Candidate(path: path, file: file, bytes: bytes))
            }
        }
        return candidates
    }
}

extension FileCollector {
    /// Collects on a thread of its own (reading every board and the folder blocks), logging what
    /// it removed, or why it removed nothing.
    func collectInBackground(store: any BoardStore, logger: Logger) async {
        let outcome: Result<Report, any Error> = await withCheckedContinuation { done in
            Thread.detachNewThread {
                done.resume(returning: Result { try collect(store: store) })
            }
        }
        switch outcome {
        case .success(let report) where !report.removed.isEmpty:
            logger.info("removed uploaded files nothing refers to", metadata: ["files": "\(report.summary)"])
        case .success(let report):
            logger.debug("no uploaded file to remove", metadata: ["files": "\(report.summary)"])
        case .failure(let error):
            logger.warning(
                "uploaded files were not collected: a board could not be read; nothing was removed",
                metadata: ["error": "\(error)"])
        }
    }
}
