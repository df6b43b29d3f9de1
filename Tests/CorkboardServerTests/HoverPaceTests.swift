import Testing

@testable import CorkboardServer

/// `HoverPace`: a drag's hovers reach peers at once at most once per tick on average, two in a row
/// after a quiet spell; the tick's own send always goes.
@Suite("Hover pace")
struct HoverPaceTests {
    static let t0 = BoardTime(secondsSince1970: 1_000_000)
    static let tick = Duration.milliseconds(33)

    /// Whether each hover, at `t0` plus its offset in milliseconds, was admitted.
    static func admissions(_ offsets: [Double], force: Bool = false, into pace: inout HoverPace) -> [Bool] {
        offsets.map { pace.admit(now: t0.advanced(by: .milliseconds($0)), tick: tick, force: force) }
    }

    @Test("a burst of two goes at once, the third waits; a tick later one goes again")
    func burstThenRefill() {
        var pace = HoverPace()
        #expect(Self.admissions([0, 0, 0, 20, 34], into: &pace) == [true, true, false, false, true])
    }

    @Test("hovers at the tick's own rate with jitter always go at once")
    func jitterAtTheTickRate() {
        var pace = HoverPace()
        // 33 ms apart on average: alternately 3 ms early and 3 ms late.
        let offsets = (1...300).map { Double($0 * 33 + ($0.isMultiple(of: 2) ? 3 : -3)) }
        #expect(Self.admissions(offsets, into: &pace).allSatisfy { $0 })
    }

    @Test("a drag hovering at 60 Hz gets about one at once per tick; forced sends leave no credit")
    func fastDragIsPaced() {
        var pace = HoverPace()
        let admitted = Self.admissions((1...600).map { Double($0) * 16.667 }, into: &pace).filter { $0 }.count
        #expect((300...305).contains(admitted), "\(admitted) of 600 in 10 s")
        var forced = HoverPace()
        #expect(Self.admissions([0, 0, 0], force: true, into: &forced) == [true, true, true], "the tick always sends")
        #expect(Self.admissions([0], into: &forced) == [false], "and leaves no credit")
    }
}
