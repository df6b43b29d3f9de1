import CorkboardModel
import CorkboardTesting
import Foundation
import Testing

/// One randomized concurrent history: a server, several clients with replicas making operations on
/// stale bases, undoing and redoing them (R13) and editing under edit leases (R12), a network that
/// delays and reorders client → server messages (each server → client stream stays in order, as
/// over one WebSocket), disconnects that lose messages, and resumes that resend unacknowledged
/// operations, undos and redos with the same opIds.
private struct History {
    enum Message {
        case committed(CommittedOperation)
        case answer(opId: String, Outcome)
    }

    /// What a client sends: an operation, or an undo or redo under its own opId.
    enum Request {
        case op(ClientOperation)
        case reverse(UndoHistory.Direction, clientId: String, opId: String, base: Int)

        var opId: String {
            switch self {
            case .op(let op): op.opId
            case .reverse(_, _, let opId, _): opId
            }
        }
    }

    struct Client {
        var replica: ClientReplica
        var connected = true
        var inbox: [Message] = []
        var made = 0
        /// Undo and redo requests not answered yet, resent after a reconnect.
        var pendingReverses: [Request] = []
    }

    let seed: UInt64
    var rng: SplitMix64
    var server: Sequencer
    /// The drag and edit leases the server's room holds (R9, R12).
    var leases = ItemLeases()
    var undo = UndoHistory(boardTitle: "History", configuration: .init(depth: 6, guaranteed: 3))
    var mirror: Board
    var clients: [Client]
    var network: [(client: Int, request: Request)] = []
    var broadcastSeq = 0
    var now = 0.0
    var failure: String?
    var stats = Stats()

    /// What happened, so the test can show the histories exercise what they claim to.
    struct Stats {
        enum Event: Hashable {
            case commit, resentAnswer, snapshotResume, logResume, rebasedView, undone, redone, refusedReverse, batch
            case rejection(RejectCode)
        }

        var counts: [Event: Int] = [:]

        subscript(event: Event) -> Int { counts[event, default: 0] }

        mutating func count(_ event: Event) { counts[event, default: 0] += 1 }

        mutating func add(_ other: Stats) { counts.merge(other.counts, uniquingKeysWith: +) }
    }

    init(seed: UInt64) {
        self.seed = seed
        rng = SplitMix64(seed: seed)
        var main: [Section] = []
        var next = 0
        for s in 0..<3 {
            let items = (0..<Int.random(in: 0...4, using: &rng)).map { _ -> Item in
                next += 1
                return Item(id: ItemID("i\(next)"), representations: next % 3 == 0 ? image("\(next)") : text("\(next)"))
            }
            main.append(Section(id: SectionID("s\(s)"), items: items))
        }
        let photos = BoardCollection(id: "p", accepts: ["public.image"], sections: [Section(id: "p0")])
        let board = try! Board(collections: [BoardCollection(id: "c", sections: main), photos])
        let logRetention = Int.random(in: 0..<2, using: &rng) == 0 ? 4 : 1000
        server = Sequencer(board: board, configuration: .init(outcomeRetention: 10_000, logRetention: logRetention))
        mirror = board
        clients = (0..<Int.random(in: 2...4, using: &rng)).map {
            Client(replica: ClientReplica(clientId: "u\($0)", board: board))
        }
    }

    mutating func fail(_ message: String) {
        if failure == nil { failure = message }
    }

    mutating func run(steps: Int) {
        for _ in 0..<steps where failure == nil {
            now += 0.1
            let roll = Int.random(in: 0..<100, using: &rng)
            let c = Int.random(in: 0..<clients.count, using: &rng)
            switch roll {
            case 0..<30: if clients[c].connected { act(c) }
            case 30..<60: deliverToServer()
            case 60..<90: deliverToClient(c)
            case 90..<95: disconnect(c)
            default: reconnect(c)
            }
        }
        // Quiesce: everyone back, everything delivered.
        for c in clients.indices where !clients[c].connected { reconnect(c) }
        var rounds = 0
        while failure == nil, !network.isEmpty || clients.contains(where: { !$0.inbox.isEmpty }) {
            rounds += 1
            if rounds > 100_000 { return fail("did not quiesce") }
            if !network.isEmpty { deliverToServer() }
            for c in clients.indices { while !clients[c].inbox.isEmpty { deliverToClient(c) } }
        }
        guard failure == nil else { return }
        for client in clients {
            let name = client.replica.clientId
            if !client.replica.pending.isEmpty { fail("\(name) still has pending operations") }
            if client.replica.confirmedSeq != server.head { fail("\(name) stopped at \(client.replica.confirmedSeq)") }
            if client.replica.view != server.board { fail("\(name)'s view differs from the server's board") }
        }
        if mirror != server.board { fail("the mirror replica differs from the server") }
    }

    // MARK: Clients

    mutating func act(_ c: Int) {
        let me = clients[c].replica.clientId
        let view = clients[c].replica.view
        clients[c].made += 1
        let opId = "o\(clients[c].made)"
        switch Int.random(in: 0..<100, using: &rng) {
        case 0..<14:
            // R13: undo (mostly) or redo this client's own operations.
            let direction: UndoHistory.Direction = Int.random(in: 0..<3, using: &rng) == 0 ? .redo : .undo
            let request = Request.reverse(
                direction, clientId: me, opId: opId, base: clients[c].replica.confirmedSeq)
            clients[c].pendingReverses.append(request)
            network.append((c, request))
            return
        case 14..<20:
            // R12: an edit lease taken or given back on the server.
            guard let item = view.allItemIDs.sorted().randomElement(using: &rng) else { return }
            if Bool.random(using: &rng) {
                _ = leases.edits.begin(item: item, client: me, member: me, holder: me, on: server.board, now: now)
            } else {
                leases.edits.end(item: item, member: me)
            }
            return
        default:
            break
        }
        guard var op = randomOperation(on: view, me: me) else { return }
        // Half the moves come from a drag: dragBegin leases the items on the server (R9).
        if case .move(var m) = op, Bool.random(using: &rng) {
            let session = "\(me)-drag\(clients[c].made)"
            let grant = leases.drags.begin(
                session: session, client: me, holder: me, items: m.items, on: server.board, now: now)
            if grant.granted.isEmpty {
                leases.drags.end(session: session)
                return
            }
            m.items = grant.granted
            m.session = session
            op = .move(m)
        }
        let envelope = clients[c].replica.submitLocal(op, opId: opId)
        network.append((c, .op(envelope)))
    }

    mutating func randomOperation(on view: Board, me: String) -> BoardOperation? {
        var sections: [(CollectionID, SectionID)] = []
        for collection in view.collectionIDs {
            for section in view.sectionIDs(in: collection) ?? [] { sections.append((collection, section)) }
        }
        let items = view.allItemIDs.sorted() + ["ghost"]
        func destination() -> Destination? {
            guard let (collection, section) = sections.randomElement(using: &rng) else { return nil }
            let list = view.itemIDs(in: section) ?? []
            let index = Int.random(in: 0...list.count, using: &rng)
            return Destination(
                collection: collection, section: section, index: index, after: index > 0 ? list[index - 1] : nil,
                before: index < list.count ? list[index] : nil)
        }
        func some() -> [ItemID] {
            Array(items.shuffled(using: &rng).prefix(Int.random(in: 1...3, using: &rng)))
        }
        let roll = Int.random(in: 0..<106, using: &rng)
        switch roll {
        case 100..<105:
            // R15: a restore of an entry the client sees (maybe restored or emptied meanwhile).
            let entry = view.trash.entries.randomElement(using: &rng)?.id ?? "nobody:op"
            return .restore(.init(entry: entry))
        case 105:
            return .emptyTrash(.init())
        case 0..<40:
            guard let d = destination() else { return nil }
            return .move(.init(items: some(), destination: d))
        case 40..<48:
            guard let target = items.randomElement(using: &rng), let d = destination() else { return nil }
            return .move(.init(items: some(), destination: .into(target, collection: d.collection, section: d.section)))
        case 48..<54:
            guard let d = destination() else { return nil }
            return .copy(.init(items: some(), destination: d))
        case 54..<62:
            guard let d = destination() else { return nil }
            let child = NewItem(representations: text("child"))
            let new = NewItem(
                representations: Bool.random(using: &rng) ? image("n") : text("n"),
                children: Bool.random(using: &rng) ? [child] : nil)
            return .insert(.init(items: [new], destination: d))
        case 62..<70:
            return .delete(.init(items: some()))
        case 70..<76:
            guard let d = destination() else { return nil }
            return .insertPlaceholder(.init(destination: d, createdAt: now))
        case 76..<84:
            guard let mine = view.placeholders(ownedBy: me).randomElement(using: &rng) else { return nil }
            if Bool.random(using: &rng) { return .deletePlaceholder(.init(item: mine)) }
            return .commitPlaceholder(
                .init(item: mine, representations: Bool.random(using: &rng) ? image("d") : text("d")))
        case 84..<86:
            // R12: made on the version the client sees (a stale one when someone edited meanwhile),
            // now and then on a version the item is not at (refused conflict).
            guard let item = items.randomElement(using: &rng) else { return nil }
            let seen = view.item(item)?.version
            let stale = Int.random(in: 0..<8, using: &rng) == 0 ? 1 : 0
            let version = Bool.random(using: &rng) ? seen.map { $0 > 0 ? $0 - stale : $0 + stale } : nil
            return .updateItem(.init(item: item, representations: text("u\(now)"), version: version))
        case 86..<88:
            // R16: a card's details, made on the versions the client sees; assignees as sets.
            guard let item = items.randomElement(using: &rng) else { return nil }
            let seen = view.details(of: item) ?? CardDetails()
            let people = ["Ada", "Bob", "Cy"]
            let labels: [LabelID] = ["red", "blue", "green"]
            switch Int.random(in: 0..<8, using: &rng) {
            case 0:
                let id = labels.randomElement(using: &rng)!
                return .setLabel(.init(label: Label(id: id, name: "\(id) \(now)", color: .green)))
            case 1:
                return .deleteLabel(.init(label: labels.randomElement(using: &rng)!))
            case 2:
                return .addComment(.init(item: item, text: "said \(now)", name: me))
            case 3:
                // R16: one's own comment edited or deleted; someone else's is refused not-owner.
                guard let comment = seen.comments.randomElement(using: &rng) else { return nil }
                return Bool.random(using: &rng)
                    ? .deleteComment(.init(item: item, comment: comment.id))
                    : .editComment(
                        .init(item: item, comment: comment.id, text: "edited \(now)", version: comment.version))
            case 6, 7:
                return BoardOperation.randomChecklistChange(on: item, seen: seen, me: me, step: Int(now * 10)) {
                    Int.random(in: 0..<$0, using: &rng)
                }
            default:
                break
            }
            return .updateCard(
                .init(
                    item: item,
                    description: Bool.random(using: &rng) ? .init("d\(now)", version: seen.descriptionVersion) : nil,
                    dates: Bool.random(using: &rng) ? .init(due: Int(now), version: seen.datesVersion) : nil,
                    done: Bool.random(using: &rng), assign: [people.randomElement(using: &rng)!],
                    unassign: Bool.random(using: &rng) ? [people.randomElement(using: &rng)!] : nil,
                    addLabels: Bool.random(using: &rng) ? [labels.randomElement(using: &rng)!] : nil,
                    removeLabels: Bool.random(using: &rng) ? [labels.randomElement(using: &rng)!] : nil))
        case 88..<92:
            return .createSection(
                .init(collection: "c", id: SectionID("\(me)-\(Int.random(in: 0..<3, using: &rng))"), index: 0))
        case 92..<94:
            guard let (_, section) = sections.randomElement(using: &rng) else { return nil }
            return .deleteSection(.init(section: section))
        case 94..<97:
            guard let (_, section) = sections.randomElement(using: &rng) else { return nil }
            return .moveSection(.init(section: section, index: Int.random(in: 0..<4, using: &rng)))
        default:
            return .moveOut(.init(items: some()))
        }
    }

    mutating func deliverToClient(_ c: Int) {
        guard clients[c].connected, !clients[c].inbox.isEmpty else { return }
        switch clients[c].inbox.removeFirst() {
        case .committed(let op):
            if !clients[c].replica.pending.isEmpty { stats.count(.rebasedView) }
            do { try clients[c].replica.applyCommitted(op) } catch { fail("\(error)") }
        case .answer(let opId, let outcome):
            clients[c].replica.acknowledge(opId: opId, outcome: outcome)
            clients[c].pendingReverses.removeAll { $0.opId == opId }
        }
        // The optimistic view is always confirmed + pending re-applied in order.
        let replica = clients[c].replica
        var expected = replica.confirmed
        for op in replica.pending { _ = try? expected.apply(op.op, clientId: op.clientId, opId: op.opId) }
        if replica.view != expected { fail("\(replica.clientId)'s view is not confirmed + pending") }
    }

    mutating func disconnect(_ c: Int) {
        guard clients[c].connected else { return }
        clients[c].connected = false
        clients[c].inbox.removeAll()
        leases.drags.end(client: clients[c].replica.clientId)
        leases.edits.end(member: clients[c].replica.clientId)
        // Some messages still in flight are lost with the connection; others arrive anyway.
        network.removeAll { $0.client == c && Bool.random(using: &rng) }
    }

    mutating func reconnect(_ c: Int) {
        guard !clients[c].connected else { return }
        clients[c].connected = true
        // R10: the missing operations when the log still holds them, else a snapshot.
        if let missed = server.operations(after: clients[c].replica.confirmedSeq) {
            stats.count(.logResume)
            for op in missed {
                do { try clients[c].replica.applyCommitted(op) } catch { fail("\(error)") }
            }
        } else {
            stats.count(.snapshotResume)
            let snapshot = server.snapshot
            clients[c].replica.reset(board: snapshot.board, seq: snapshot.seq)
        }
        for op in clients[c].replica.pending { network.append((c, .op(op))) }
        for request in clients[c].pendingReverses { network.append((c, request)) }
    }

    // MARK: Server

    mutating func deliverToServer() {
        guard !network.isEmpty else { return }
        let (c, request) = network.remove(at: Int.random(in: 0..<network.count, using: &rng))
        let before = server.board
        leases.drags.expire(now: now, quietPeriod: 3)
        leases.edits.expire(now: now, quietPeriod: 4)
        let outcome: Outcome
        let known: Bool
        switch request {
        case .op(let op):
            known = server.outcome(clientId: op.clientId, opId: op.opId) != nil
            outcome = undo.submit(op, to: &server, now: now, leases: leases)
            if let session = op.op.session { leases.drags.end(session: session) }  // the drop ends the drag
        case .reverse(let direction, let clientId, let opId, let base):
            switch undo.perform(
                direction, clientId: clientId, opId: opId, base: base, sequencer: &server, now: now, leases: leases)
            {
            case .committed(let committed):
                known = false
                outcome = .committed(committed)
                stats.count(direction == .undo ? .undone : .redone)
                if case .batch = committed.op { stats.count(.batch) }
            case .rejected(let rejection):
                known = false
                outcome = .rejected(rejection)
                stats.count(.refusedReverse)
                if rejection.message.contains("demo-") || !rejection.message.hasSuffix(".") {
                    fail("an undo refusal is not a sentence: \(rejection.message)")
                }
            case .resend(let first):
                known = true
                outcome = first
            }
        }
        leases.edits.endVanished(on: server.board)
        if known {
            stats.count(.resentAnswer)
            if server.board != before { fail("a resent operation changed the board") }
        } else if case .rejected(let r) = outcome {
            stats.count(.rejection(r.code))
        }
        if case .committed(let committed) = outcome, committed.seq > broadcastSeq {
            stats.count(.commit)
            broadcastSeq = committed.seq
            check(committed, before: before)
            for k in clients.indices where clients[k].connected { clients[k].inbox.append(.committed(committed)) }
        } else if case .rejected = outcome, server.board != before {
            fail("a rejection changed the board")
        }
        if clients[c].connected { clients[c].inbox.append(.answer(opId: request.opId, outcome)) }
    }

    /// After every seq: invariants, a replica's identical effect, and item conservation.
    mutating func check(_ committed: CommittedOperation, before: Board) {
        let problems = server.board.checkInvariants()
        if !problems.isEmpty { return fail("seq \(committed.seq) \(committed.op.kind): \(problems)") }
        do {
            let effect = try mirror.apply(committed)
            if effect != committed.effect { fail("seq \(committed.seq): replica effect differs") }
        } catch {
            return fail("seq \(committed.seq) does not replay: \(error)")
        }
        // R15: replicas keep the same Trash; nothing is both on the board and in it, or in it twice.
        if mirror.trash != server.board.trash { fail("seq \(committed.seq): replica Trash differs") }
        var trashed = Set<ItemID>()
        for entry in server.board.trash.entries {
            for id in entry.allItemIDs where !trashed.insert(id).inserted || server.board.contains(id) {
                fail("seq \(committed.seq) \(committed.op.kind): \(id) is duplicated by the Trash")
            }
        }
        let old = Set(before.allItemIDs)
        let new = Set(server.board.allItemIDs)
        let vanished = old.subtracting(new)
        let appeared = new.subtracting(old)
        var allowedToVanish = Set<ItemID>()
        var allowedToAppear = Set<ItemID>()
        func allow(_ op: BoardOperation) {
            switch op {
            case .delete(let d), .moveOut(let d):
                for id in d.items { allowedToVanish.formUnion(before.item(id)?.allIDs ?? []) }
            case .deletePlaceholder(let d):
                allowedToVanish.insert(d.item)
            case .deleteSection(let d):
                for id in before.itemIDs(in: d.section) ?? [] { allowedToVanish.formUnion(before.item(id)!.allIDs) }
            case .deleteCollection(let d):
                for section in before.sectionIDs(in: d.collection) ?? [] {
                    for id in before.itemIDs(in: section) ?? [] { allowedToVanish.formUnion(before.item(id)!.allIDs) }
                }
            case .batch(let batch):
                for part in batch.ops { allow(part) }
            default:
                break
            }
        }
        allow(committed.op)
        // Only what the operation reports as created appears (an undo brings back ids it deleted).
        for change in committed.effect.changes where change.from == nil {
            allowedToAppear.formUnion(server.board.item(change.item)?.allIDs ?? [])
        }
        // An item deleted and brought back by one batch neither vanished nor appeared.
        allowedToVanish.subtract(new)
        allowedToAppear.subtract(old)
        if vanished != allowedToVanish {
            fail(
                "seq \(committed.seq) \(committed.op.kind): items vanished \(vanished.sorted()), expected \(allowedToVanish.sorted())"
            )
        }
        if appeared != allowedToAppear {
            fail(
                "seq \(committed.seq) \(committed.op.kind): items appeared \(appeared.sorted()), expected \(allowedToAppear.sorted())"
            )
        }
    }
}

@Suite("Randomized concurrent histories")
struct RandomHistoryTests {
    static let chunks = 8

    static var baseSeed: UInt64 {
        ProcessInfo.processInfo.environment["CORKBOARD_FUZZ_SEED"].flatMap { UInt64($0) } ?? 20_261_121
    }

    static var histories: Int {
        ProcessInfo.processInfo.environment["CORKBOARD_FUZZ_HISTORIES"].flatMap { Int($0) } ?? 10_000
    }

    @Test(
        "Concurrent histories: invariants after every seq, replicas converge, nothing lost or duplicated",
        arguments: 0..<chunks)
    func histories(chunk: Int) async {
        let total = Self.histories
        var failures = 0
        var stats = History.Stats()
        defer { check(stats, histories: total / Self.chunks) }
        for n in stride(from: chunk, to: total, by: Self.chunks) {
            // Seconds of CPU: yield now and then so the suites running beside it (rooms, sockets)
            // are not starved of the cooperative pool's two threads.
            if n % 16 == chunk % 16 { await Task.yield() }
            let seed = Self.baseSeed &+ UInt64(n)
            var history = History(seed: seed)
            history.run(steps: 60)
            stats.add(history.stats)
            if let failure = history.failure {
                failures += 1
                Issue.record(
                    "history seed \(seed): \(failure). Reproduce with CORKBOARD_FUZZ_SEED=\(seed) CORKBOARD_FUZZ_HISTORIES=1"
                )
                if failures >= 3 { return }
            }
        }
    }

    /// The histories must actually exercise conflicts, rejections, resends and both resume paths.
    private func check(_ stats: History.Stats, histories: Int) {
        guard histories >= 500 else { return }
        #expect(stats[.commit] > histories * 5, "commits: \(stats[.commit])")
        for code in [
            RejectCode.gone, .destinationGone, .forbidden, .cycle, .duplicateID, .notFound, .locked, .notOwner,
        ] {
            #expect(stats[.rejection(code)] > 0, "no \(code.rawValue) rejection in \(stats.counts)")
        }
        #expect(stats[.resentAnswer] > 0 && stats[.snapshotResume] > 0 && stats[.logResume] > 0, "\(stats.counts)")
        // R12 and R13: stale edits refused, undos and redos committed (some as batches) and refused.
        #expect(stats[.rejection(.conflict)] > 0, "no conflict in \(stats.counts)")
        #expect(stats[.undone] > histories / 2 && stats[.redone] > 0 && stats[.batch] > 0, "\(stats.counts)")
        #expect(stats[.refusedReverse] > 0, "\(stats.counts)")
        #expect(stats[.rebasedView] > histories, "\(stats.counts)")
    }
}
