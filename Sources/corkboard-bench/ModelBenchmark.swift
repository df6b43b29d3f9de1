import ArgumentParser
import CorkboardModel
import Foundation

/// `corkboard-bench model`: single-item moves, sequenced submits, a mixed workload and snapshots on
/// a board of `--items` items in `--sections` sections.
struct ModelBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "model",
        abstract: "Apply operations to a large board and encode/decode its snapshot.")

    @Option(help: "Items on the board.") var items = 10_000
    @Option(help: "Sections the items are spread over (one collection).") var sections = 100
    @Option(help: "Single-item moves per run (Board.apply).") var ops = 2_000_000
    @Option(help: "Operations per run for the sequencer and mixed figures.") var sequencedOps = 500_000
    @Option(help: "Runs of each measurement; the median and spread are reported.") var runs = 3
    @Option(help: "Random seed for the generated operations.") var seed: UInt64 = 42

    func run() throws {
        print("board: \(items) items in \(sections) sections; runs: \(runs); seed: \(seed)")
        let board = Self.makeBoard(items: items, sections: sections)
        var rng = SplitMix64(seed: seed)
        let pool = (0..<65_536).map { _ in randomMove(&rng) }

        var applyRates: [Double] = []
        var checksum = 0
        for run in 1...runs {
            var b = board
            let start = ContinuousClock.now
            for n in 0..<ops {
                if let effect = try? b.apply(pool[n & 0xFFFF], clientId: "bench", opId: "") {
                    checksum &+= effect.changes[0].to!.index
                }
            }
            let seconds = (ContinuousClock.now - start).seconds
            applyRates.append(Double(ops) / seconds)
            print("  run \(run): Board.apply single-item moves: \(Self.format(Double(ops) / seconds)) moves/s")
            precondition(b.checkInvariants().isEmpty, "invariants broken by the benchmark")
        }
        Self.report("Board.apply, single-item moves", applyRates, unit: "moves/s")

        var submitRates: [Double] = []
        for run in 1...runs {
            var sequencer = Sequencer(board: board)
            let start = ContinuousClock.now
            for n in 0..<sequencedOps {
                let op = ClientOperation(opId: String(n), clientId: "bench", base: sequencer.head, op: pool[n & 0xFFFF])
                if case .committed(let c) = sequencer.submit(op, now: 0) { checksum &+= c.seq }
            }
            let seconds = (ContinuousClock.now - start).seconds
            submitRates.append(Double(sequencedOps) / seconds)
            print("  run \(run): Sequencer.submit single-item moves: \(Self.format(submitRates.last!)) ops/s")
        }
        Self.report("Sequencer.submit, single-item moves (dedupe + log + leases)", submitRates, unit: "ops/s")

        var mixedRates: [Double] = []
        for run in 1...runs {
            var sequencer = Sequencer(board: board)
            var mixedRng = SplitMix64(seed: seed &+ UInt64(run))
            let mixed = (0..<65_536).map { _ in randomMixed(&mixedRng) }
            var committed = 0
            let start = ContinuousClock.now
            for n in 0..<sequencedOps {
                let op = ClientOperation(
                    opId: String(n), clientId: "bench", base: sequencer.head, op: mixed[n & 0xFFFF])
                if case .committed = sequencer.submit(op, now: 0) { committed += 1 }
            }
            let seconds = (ContinuousClock.now - start).seconds
            mixedRates.append(Double(sequencedOps) / seconds)
            print(
                "  run \(run): mixed operations: \(Self.format(mixedRates.last!)) ops/s "
                    + "(\(committed) committed, board now \(sequencer.board.itemCount) items)")
            precondition(sequencer.board.checkInvariants().isEmpty, "invariants broken by the benchmark")
        }
        Self.report("Sequencer.submit, mixed operations", mixedRates, unit: "ops/s")

        var proposalRates: [Double] = []
        let proposals = 1_000_000
        for _ in 1...runs {
            var proposalRng = SplitMix64(seed: seed)
            let hovers = (0..<4096).map { _ in
                HoverTarget(
                    collection: "c", section: SectionID("s\(Int.random(in: 0..<sections, using: &proposalRng))"),
                    index: Int.random(in: 0..<100, using: &proposalRng),
                    intent: Bool.random(using: &proposalRng)
                        ? .insertIntoDestinationIndexPath : .insertAtDestinationIndexPath)
            }
            let dragged: [ItemID] = ["i1", "i2", "i3"]
            var moves = 0
            let start = ContinuousClock.now
            for n in 0..<proposals where board.proposal(items: dragged, at: hovers[n & 4095]).operation == .move {
                moves += 1
            }
            let seconds = (ContinuousClock.now - start).seconds
            proposalRates.append(Double(proposals) / seconds)
            checksum &+= moves
        }
        Self.report("Board.proposal, 3 dragged items", proposalRates, unit: "proposals/s")

        var encodeTimes: [Double] = []
        var decodeTimes: [Double] = []
        var size = 0
        for _ in 1...runs {
            let snapshot = Snapshot(seq: 1, board: board)
            var start = ContinuousClock.now
            let data = try snapshot.jsonData()
            encodeTimes.append((ContinuousClock.now - start).seconds * 1000)
            size = data.count
            start = ContinuousClock.now
            let decoded = try Snapshot(jsonData: data)
            decodeTimes.append((ContinuousClock.now - start).seconds * 1000)
            precondition(decoded.board.itemCount == board.itemCount)
        }
        Self.report("Snapshot JSON encode", encodeTimes, unit: "ms")
        Self.report("Snapshot JSON decode", decodeTimes, unit: "ms")
        print("Snapshot JSON size: \(size) bytes (\(size / max(1, items)) bytes per item)")
        print("(checksum \(checksum))")
    }

    func randomMove(_ rng: inout SplitMix64) -> BoardOperation {
        let item = ItemID("i\(Int.random(in: 0..<items, using: &rng))")
        let section = Int.random(in: 0..<sections, using: &rng)
        // An anchor as a client would send it: an item that was in that section at the start.
        let perSection = max(1, items / sections)
        let anchor = ItemID("i\(section * perSection + Int.random(in: 0..<perSection, using: &rng))")
        let destination = Destination(
            collection: "c", section: SectionID("s\(section)"), index: Int.random(in: 0..<perSection, using: &rng),
            after: anchor)
        return .move(.init(items: [item], destination: destination))
    }

    func randomMixed(_ rng: inout SplitMix64) -> BoardOperation {
        let roll = Int.random(in: 0..<100, using: &rng)
        let section = SectionID("s\(Int.random(in: 0..<sections, using: &rng))")
        let destination = Destination(collection: "c", section: section, index: Int.random(in: 0..<100, using: &rng))
        func someItems(_ k: Int) -> [ItemID] {
            (0..<k).map { _ in ItemID("i\(Int.random(in: 0..<items, using: &rng))") }
        }
        switch roll {
        case 0..<70: return randomMove(&rng)
        case 70..<80:
            var seen = Set<ItemID>()
            let distinct = someItems(3).filter { seen.insert($0).inserted }
            return .move(.init(items: distinct, destination: destination))
        case 80..<87:
            return .insert(
                .init(
                    items: [NewItem(representations: [.init(type: "public.plain-text", value: "n")])],
                    destination: destination))
        case 87..<92: return .delete(.init(items: someItems(1)))
        case 92..<95: return .copy(.init(items: someItems(1), destination: destination))
        default:
            return .move(
                .init(items: someItems(1), destination: .into(someItems(1)[0], collection: "c", section: section)))
        }
    }

    static func makeBoard(items: Int, sections: Int) -> Board {
        let perSection = max(1, items / sections)
        let list = (0..<sections).map { s in
            Section(
                id: SectionID("s\(s)"), title: "Section \(s)",
                items: (0..<perSection).map { k in
                    let n = s * perSection + k
                    return Item(
                        id: ItemID("i\(n)"), representations: [.init(type: "public.plain-text", value: "card \(n)")])
                })
        }
        return try! Board(collections: [BoardCollection(id: "c", title: "Bench", sections: list)])
    }

    static func report(_ name: String, _ values: [Double], unit: String) {
        let sorted = values.sorted()
        let median = sorted[sorted.count / 2]
        let spread = median > 0 ? (sorted.last! - sorted.first!) / median * 100 : 0
        print(
            "\(name): median \(format(median)) \(unit), min \(format(sorted.first!)), max \(format(sorted.last!)) "
                + "(spread \(String(format: "%.1f", spread))%)")
    }

    static func format(_ value: Double) -> String {
        value >= 1000 ? String(format: "%.0f", value) : String(format: "%.2f", value)
    }
}

extension Duration {
    var seconds: Double {
        let (s, attoseconds) = components
        return Double(s) + Double(attoseconds) / 1e18
    }
}
