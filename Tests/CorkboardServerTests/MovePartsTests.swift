import CorkboardModel
import CorkboardProtocol
import Testing

@testable import CorkboardServer

/// The values moves between boards are made of (R14), without a room.
@Suite("Move parts")
struct MovePartsTests {
    static let one = MoveID(value: "a#1")
    static let two = MoveID(value: "a#2")

    static func release(_ id: MoveID) -> RoomEvent { .crossBoard(CrossBoardEvent(.release(id, appended: nil))) }

    @Test("BoardHold: while a move holds the room only its own events pass; the rest come back in order")
    func hold() {
        var hold = BoardHold()
        #expect(hold.admits(.tick) && !hold.isHeld, "a free room handles everything")
        hold.take(Self.one)
        #expect(hold.admits(Self.release(Self.one)), "the holder's own events")
        #expect(!hold.admits(Self.release(Self.two)), "another move's")
        #expect(!hold.admits(.tick) && !hold.admits(.sweep))
        #expect(!hold.admits(.crossBoard(CrossBoardEvent(.reserve(Self.two, from: "b")))), "a reservation waits")
        hold.keep(.tick)
        hold.keep(.sweep)
        #expect(hold.release(Self.two).isEmpty && hold.holder == Self.one, "only the holder lets go")
        let back = hold.release(Self.one)
        #expect(back.count == 2 && !hold.isHeld)
        if case .tick = back[0], case .sweep = back[1] {} else { Issue.record("not in order: \(back)") }
        #expect(hold.release(Self.one).isEmpty, "nothing twice")
    }

    @Test("CrossBoardMoves: ids are the source's and unique; what waits for the store is taken up to a seq, in order")
    func moves() {
        var moves = CrossBoardMoves()
        let first = moves.newID(from: "a")
        let second = moves.newID(from: "a")
        #expect(first != second && first.value.hasPrefix("a#"))
        moves.afterDurable = [(3, .moveStored(first)), (5, .moveStored(second)), (4, .moveStored(Self.two))]
        let ready = moves.takeAfterDurable(upTo: 4).map { waiting -> MoveID? in
            if case .moveStored(let id) = waiting { id } else { nil }
        }
        #expect(ready == [first, Self.two] && moves.afterDurable.count == 1)
        #expect(moves.attemptsOnNodes == 0)
    }
}
