import Testing

@testable import CorkboardTransport

@Suite struct ReassemblyTests {
    @Test func threeChunksMakeOneMessage() {
        var r = Reassembly(limit: 100)
        let parts: [[UInt8]] = [[1, 2], [3], [4, 5]]
        var outcomes: [Reassembly.Outcome] = []
        for (i, p) in parts.enumerated() {
            outcomes.append(
                p.withUnsafeBytes {
                    r.append($0, first: i == 0, final: i == 2, binary: true, remainingInFrame: 0)
                })
        }
        #expect(outcomes == [.partial, .partial, .complete(bytes: [1, 2, 3, 4, 5], isText: false)])
    }

    @Test func oversizedFrameIsRefusedOnItsFirstChunk() {
        var r = Reassembly(limit: 10)
        let out = [UInt8](repeating: 0, count: 4).withUnsafeBytes {
            r.append($0, first: true, final: false, binary: false, remainingInFrame: 7)
        }
        #expect(out == .tooLarge)
    }
}
