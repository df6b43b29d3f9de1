import ArgumentParser
import CorkboardModel
import Foundation

/// `corkboard-load crowd`: one board, many clients; a few drag with proposals at 30 Hz and the
/// drops come at a fixed total rate.
struct CrowdCommand: ScenarioCommand {
    static let configuration = CommandConfiguration(
        commandName: "crowd",
        abstract: "One board, many watching clients, a few dragging with proposals; drops at a fixed rate.",
        discussion: """
            performance.md: 1 board, 1,000 clients, 20 of them dragging with proposals at 30 Hz, 10 drops/s. \
            Each dragger drags one of its own items for (draggers ÷ drops/s) seconds, hovering at --hover-hz, \
            then drops it somewhere random and begins again. Watch p99 drop → every peer, p99 proposal → peers \
            and the server's CPU (--pid).
            """)

    @OptionGroup var run: RunOptions
    @OptionGroup var selection: BoardSelection

    @Option(help: "Clients (WebSocket connections) on the board.") var clients = 1000
    @Option(help: "Clients among them that drag.") var draggers = 20
    @Option(help: "Hovers (dropUpdate) per second per dragger.") var hoverHz = 30.0
    @Option(
        help: """
            Drops per second, all draggers together (0: each dragger hovers for the whole run and never \
            drops, the load `relay` puts on other relays).
            """)
    var dropsPerSecond = 10.0
    @Option(help: "Items the board must hold (inserted over the protocol if missing).") var items = 200

    func validate() throws {
        guard draggers >= 1, draggers <= clients, hoverHz > 0, hoverHz <= 1000, dropsPerSecond >= 0 else {
            throw ValidationError("Need 1 ≤ --draggers ≤ --clients, 0 < --hover-hz ≤ 1000 and --drops-per-second ≥ 0.")
        }
        guard items <= 100_000 else { throw ValidationError("--items is capped at 100,000.") }
    }

    func plan() -> ScenarioPlan {
        let hz = hoverHz
        // Without drops a drag never ends, and the draggers start within one hover interval.
        let cycle = dropsPerSecond > 0 ? Double(draggers) / dropsPerSecond : nil
        let timing =
            cycle.map { DragDriver.Timing(hoverHz: hz, dragSeconds: $0, cycleSeconds: $0) }
            ?? DragDriver.Timing(hoverInterval: UInt64(1e9 / hz), dragDuration: 1 << 62, cycle: UInt64(1e9 / hz))
        return ScenarioPlan(
            name: "crowd",
            shape: "\(clients) clients, \(draggers) dragging at \(hz) Hz, \(dropsPerSecond) drops/s "
                + (cycle.map { String(format: "(each drag %.2f s)", $0) } ?? "(one drag each, for the whole run)"),
            parameters: [
                "clients": "\(clients)", "draggers": "\(draggers)", "hoverHz": "\(hz)",
                "dropsPerSecond": "\(dropsPerSecond)", "items": "\(items)",
            ],
            clients: clients, duration: run.duration ?? 20, warmup: run.warmup ?? 5,
            minItems: max(items, draggers), itemType: "corkboard.card"
        ) { [draggers] context in
            DragDriver.started(context, draggers: draggers, timing: timing)
        }
    }
}

/// `corkboard-load boards`: many small boards; every client drags then drops, over and over.
struct BoardsCommand: ScenarioCommand {
    static let configuration = CommandConfiguration(
        commandName: "boards",
        abstract: "Many boards of a few clients; each client drags at 30 Hz for 1 s then drops, every 5 s.",
        discussion: """
            performance.md: 10,000 clients in 1,000 boards of 10. The boards must exist: create them with \
            `corkboard-load setup --boards N --data DIR` before starting the server on DIR, and pass \
            --data DIR here (the keys are read with `corkboard boards list --json`). Watch p99 drop → peers \
            and the server's RSS per connection (--pid).
            """)

    @OptionGroup var run: RunOptions
    @OptionGroup var selection: BoardSelection

    @Option(help: "Clients per board.") var clientsPerBoard = 10
    @Option(help: "Seconds each drag lasts.") var dragSeconds = 1.0
    @Option(help: "Seconds from one drag's start to the next.") var cycleSeconds = 5.0
    @Option(help: "Hovers (dropUpdate) per second while dragging.") var hoverHz = 30.0

    func validate() throws {
        guard clientsPerBoard >= 1, dragSeconds >= 0, cycleSeconds > 0, dragSeconds <= cycleSeconds, hoverHz > 0,
            hoverHz <= 1000
        else {
            throw ValidationError(
                "Need --clients-per-board ≥ 1, 0 ≤ --drag-seconds ≤ --cycle-seconds, 0 < --hover-hz ≤ 1000.")
        }
    }

    func plan() -> ScenarioPlan {
        let boardCount = selection.boards ?? 1000
        let clients = boardCount * clientsPerBoard
        let (drag, cycle, hz) = (dragSeconds, cycleSeconds, hoverHz)
        return ScenarioPlan(
            name: "boards",
            shape: "\(clients) clients in \(boardCount) boards of \(clientsPerBoard); each drags \(drag) s at "
                + "\(hz) Hz then drops, every \(cycle) s",
            parameters: [
                "boards": "\(boardCount)", "clientsPerBoard": "\(clientsPerBoard)", "dragSeconds": "\(drag)",
                "cycleSeconds": "\(cycle)", "hoverHz": "\(hz)",
            ],
            defaultBoards: 1000, clients: clients, duration: run.duration ?? 30, warmup: run.warmup ?? cycle,
            minItems: clientsPerBoard, itemType: "corkboard.card"
        ) { context in
            DragDriver.started(
                context, draggers: context.peerBoards.count,
                timing: DragDriver.Timing(hoverHz: hz, dragSeconds: drag, cycleSeconds: cycle))
        }
    }
}

/// `corkboard-load storm`: a few dozen clients on one big board, each sending its next move as
/// soon as the last is acknowledged.
struct StormCommand: ScenarioCommand {
    static let configuration = CommandConfiguration(
        commandName: "storm",
        abstract: "Clients on one large board, each sending its next move as soon as the last is acknowledged.",
        discussion: """
            performance.md: 50 clients on a board of 5,000 items. Items are inserted over the protocol until \
            the board holds --items (they stay on a SQLite store). Every move is a single-item submit to a \
            random place; every other client receives it as an op. Watch committed ops/s and p99 ack.
            """)

    @OptionGroup var run: RunOptions
    @OptionGroup var selection: BoardSelection

    @Option(help: "Clients on the board, every one of them sending.") var clients = 50
    @Option(help: "Items the board must hold (inserted over the protocol if missing).") var items = 5000
    @Option(help: "Moves each client keeps in flight.") var window = 1

    func validate() throws {
        guard window >= 1, window <= 1000, items >= 1, items <= 100_000 else {
            throw ValidationError("Need 1 ≤ --window ≤ 1000 and 1 ≤ --items ≤ 100,000.")
        }
    }

    func plan() -> ScenarioPlan {
        let window = self.window
        return ScenarioPlan(
            name: "storm",
            shape: "\(clients) clients on a board of ≥ \(items) items, \(window) move(s) in flight each",
            parameters: ["clients": "\(clients)", "items": "\(items)", "window": "\(window)"],
            clients: clients, duration: run.duration ?? 20, warmup: run.warmup ?? 3,
            minItems: items, itemType: "corkboard.card"
        ) { context in
            var movers: [Int: Int] = [:]
            for (peer, board) in context.peerBoards.enumerated() where context.owns(peer) { movers[peer] = board }
            let driver = StormDriver(context, movers: movers)
            driver.start(window: window)
            return driver
        }
    }
}

/// `corkboard-load idle`: connections that join and stay quiet, to measure memory per connection.
struct IdleCommand: ScenarioCommand {
    static let configuration = CommandConfiguration(
        commandName: "idle",
        abstract: "Idle connections: join, then stay quiet; reports the server's RSS per connection (--pid).",
        discussion: """
            With --boards N the clients spread over N boards made by `corkboard-load setup` (each join is \
            announced to the board's members, so thousands on one board cost a broadcast each); otherwise \
            they all join --board.
            """)

    @OptionGroup var run: RunOptions
    @OptionGroup var selection: BoardSelection

    @Option(help: "Idle connections.") var clients = 1000

    func plan() -> ScenarioPlan {
        return ScenarioPlan(
            name: "idle", shape: "\(clients) idle connections", parameters: ["clients": "\(clients)"],
            clients: clients, duration: run.duration ?? 10, warmup: run.warmup ?? 0, minItems: 0,
            itemType: "corkboard.card"
        ) { _ in nil }
    }
}

/// `corkboard-load setup`: creates the boards the `boards` and `idle` scenarios use, with the
/// corkboard CLI, in a data folder (before the server starts on it, or while it runs).
struct SetupCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "setup",
        abstract: "Create N empty boards named PREFIX0000… in a data folder with `corkboard boards create`.")

    @Option(help: "How many boards should exist.") var boards = 1000
    @Option(help: "The id prefix.") var boardPrefix = "load-"
    @Option(help: "The server's data folder.") var data: String
    @Option(help: "The corkboard executable (default: the one next to this binary).") var corkboard: String?
    @Flag(help: "Only print the commands.") var print = false

    func validate() throws {
        guard boards >= 1, boards <= 100_000 else { throw ValidationError("--boards must be in 1…100,000.") }
    }

    func run() throws {
        let tool = BoardList.corkboardPath(corkboard)
        let existing: Set<String> =
            print || !FileManager.default.fileExists(atPath: data + "/corkboard.sqlite")
            ? []
            : Set(try BoardList.read(file: nil, data: data, corkboard: tool).map(\.id))
        let width = max(4, String(boards - 1).count)
        let ids = (0..<boards).map { n in
            boardPrefix + String(repeating: "0", count: max(0, width - String(n).count)) + String(n)
        }
        let missing = ids.filter { !existing.contains($0) }
        if print {
            for id in missing { Swift.print("\(tool) boards create \(id) --template empty --data \(data)") }
            return
        }
        for (n, id) in missing.enumerated() {
            _ = try Shell.run(tool, ["boards", "create", id, "--template", "empty", "--data", data])
            if n % 100 == 99 { FileHandle.standardError.write(Data("created \(n + 1) of \(missing.count)\n".utf8)) }
        }
        Swift.print("\(boards) boards named \(boardPrefix)… in \(data) (\(missing.count) created)")
    }
}
