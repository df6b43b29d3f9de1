import CorkboardModel
import CorkboardProtocol
import Logging

/// Snapshots in parts (R14): a `welcome` or `synced` with `snapshotParts` announces the board, the
/// `snapshotPart` messages that follow carry it, and everything else that arrives meanwhile (the
/// operations committed after the snapshot's seq among it) waits until the board is whole.
extension BoardConnection {
    /// Starts assembling an announced snapshot. A `synced` that replaces a transfer in progress
    /// keeps the messages that were waiting for it.
    func beginLoad(_ descriptor: ServerMessage.SnapshotParts, welcome: ServerMessage.Welcome?, _ core: inout Core) {
        let waiting = core.loading?.buffered ?? []
        core.loading = SnapshotLoad(assembler: SnapshotAssembler(descriptor), welcome: welcome, buffered: waiting)
        core.state.snapshotLoad = SnapshotProgress(descriptor)
        core.state.snapshotLoads += 1
        logger.debug(
            "snapshot in parts",
            metadata: ["seq": "\(descriptor.seq)", "parts": "\(descriptor.parts)", "bytes": "\(descriptor.bytes)"])
    }

    /// Adds a part; installs the snapshot and handles the waiting messages once the last arrives.
    func continueLoad(
        _ part: ServerMessage.SnapshotPart, bytes: Int, _ core: inout Core, _ effects: inout Effects
    ) {
        do throws(SnapshotAssembler.Failure) {
            try core.loading!.assembler.add(part, bytes: bytes)
        } catch {
            failLoad(error, &core, &effects)
            return
        }
        let assembler = core.loading!.assembler
        core.state.snapshotLoad?.partsReceived = assembler.partsReceived
        core.state.snapshotLoad?.bytesReceived = assembler.bytesReceived
        guard assembler.isComplete else { return }
        let snapshot: Snapshot
        do throws(SnapshotAssembler.Failure) {
            snapshot = try assembler.snapshot()
        } catch {
            failLoad(error, &core, &effects)
            return
        }
        let load = core.loading!
        core.loading = nil
        if var welcome = load.welcome {
            // The welcome is handled (and delivered to subscribers) as if it had carried the board.
            welcome.snapshot = snapshot
            process(.welcome(welcome), &core, &effects)
        } else {
            core.state.replica.reset(board: snapshot.board, seq: snapshot.seq)
            core.state.joinedWith = .snapshot(seq: snapshot.seq)
        }
        for message in load.buffered {
            if core.loading != nil {
                core.loading!.buffered.append(message)
            } else {
                process(message, &core, &effects)
            }
        }
    }

    private func failLoad(_ error: SnapshotAssembler.Failure, _ core: inout Core, _ effects: inout Effects) {
        logger.error("a snapshot in parts did not assemble; joining again", metadata: ["error": "\(error)"])
        core.state.streamProblems.append(error.description)
        core.loading = nil
        restartFromSnapshot(&core, &effects)
    }
}

extension ServerMessage {
    /// Whether this is a `welcome` or `synced` whose board follows in parts.
    var announcesSnapshotParts: Bool {
        switch self {
        case .welcome(let welcome): welcome.snapshotParts != nil && welcome.snapshot == nil
        case .synced(let synced): synced.snapshotParts != nil && synced.snapshot == nil
        default: false
        }
    }
}
