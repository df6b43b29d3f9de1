import CorkboardLoadKit
import Testing

/// `LeanLoopStats`: the lean loop's busy time and round lengths, which load reports use to say how
/// much of a latency was the tool's own queueing.
@Suite struct LeanLoopStatsTests {
    private func stats(roundsMicroseconds: [UInt64]) -> LeanLoopStats {
        var stats = LeanLoopStats()
        for micros in roundsMicroseconds { stats.record(roundNanos: micros * 1000 + 400) }
        return stats
    }

    @Test func nothingCountedReadsAsZero() {
        let empty = LeanLoopStats()
        #expect(empty.rounds == 0 && empty.busyNanos == 0)
        #expect(empty.roundMicroseconds(atPercentile: 50) == 0)
        #expect(empty.roundMicroseconds(atTimePercentile: 50) == 0)
        #expect(empty.longestRoundMicroseconds == 0)
        #expect(empty.since(empty) == empty)
    }

    @Test func aRoundReadsBackAtMostAnEighthLong() {
        var lengths: [UInt64] = Array(0...3000)
        var power: UInt64 = 4096
        while power < 1 << 26 {
            lengths += [power - 1, power, power + 1, power + power / 3]
            power <<= 1
        }
        for micros in lengths {
            let read = stats(roundsMicroseconds: [micros]).roundMicroseconds(atPercentile: 50)
            #expect(read >= micros && Double(read) <= Double(micros) * 1.125 + 1, "\(micros) µs read as \(read)")
        }
    }

    @Test func percentilesCountRoundsAndTimePercentilesWeighThemByLength() {
        // 99 short rounds and one long one: by count the long one is the last percent; by time it
        // is most of the busy time, so a message arriving while the loop is busy most likely meets it.
        let stats = stats(roundsMicroseconds: Array(repeating: 100, count: 99) + [50_000])
        #expect(stats.rounds == 100)
        #expect(stats.busyNanos == 99 * 100_400 + 50_000_400)
        #expect((100...112).contains(stats.roundMicroseconds(atPercentile: 50)))
        #expect((100...112).contains(stats.roundMicroseconds(atPercentile: 99)))
        #expect((50_000...56_250).contains(stats.roundMicroseconds(atPercentile: 99.5)))
        #expect((50_000...56_250).contains(stats.longestRoundMicroseconds))
        #expect((50_000...56_250).contains(stats.roundMicroseconds(atTimePercentile: 50)))
        #expect((100...112).contains(stats.roundMicroseconds(atTimePercentile: 10)))
    }

    @Test func anIntervalIsTheDifferenceOfTwoSnapshotsAndAddsBackUp() {
        var stats = stats(roundsMicroseconds: [5, 70, 900])
        let first = stats
        for micros: UInt64 in [70, 20_000] { stats.record(roundNanos: micros * 1000) }
        let interval = stats.since(first)
        #expect(interval.rounds == 2)
        #expect(interval.busyNanos == 20_070_000)
        #expect(interval.roundCounts.reduce(0, +) == 2)
        #expect((20_000...22_500).contains(interval.longestRoundMicroseconds))
        #expect(first.adding(interval) == stats)
        #expect(LeanLoopStats().adding(interval) == interval)
        // From nothing counted (a loop that had not run a round at the first snapshot).
        #expect(stats.since(LeanLoopStats()) == stats)
    }
}
