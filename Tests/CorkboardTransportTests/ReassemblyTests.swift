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

    @Test func aWholeMessageNeedsNoStateAndComesOutAsAppendWouldGiveIt() {
        for (bytes, binary) in [([UInt8](repeating: 7, count: 10), false), ([1, 2, 3], true), ([], false)] {
            var r = Reassembly(limit: 10)
            let appended = bytes.withUnsafeBytes {
                r.append($0, first: true, final: true, binary: binary, remainingInFrame: 0)
            }
            let whole = bytes.withUnsafeBytes { Reassembly.whole($0, binary: binary, limit: 10) }
            #expect(whole == appended)
            #expect(whole == .complete(bytes: bytes, isText: !binary))
        }
        let over = [UInt8](repeating: 0, count: 11).withUnsafeBytes { Reassembly.whole($0, binary: false, limit: 10) }
        #expect(over == .tooLarge)
    }

    @Test func aPartialLeftOpenNeverLeaksIntoTheNextFragmentedMessage() {
        // The receive path hands whole messages to `whole`, past the state: a partial the peer
        // left open must not prefix the next message that does go through `append`.
        var r = Reassembly(limit: 100)
        let left = [UInt8]([9, 9]).withUnsafeBytes {
            r.append($0, first: true, final: false, binary: false, remainingInFrame: 0)
        }
        #expect(left == .partial)
        let first = [UInt8]([1]).withUnsafeBytes {
            r.append($0, first: true, final: false, binary: true, remainingInFrame: 0)
        }
        let last = [UInt8]([2]).withUnsafeBytes {
            r.append($0, first: false, final: true, binary: true, remainingInFrame: 0)
        }
        #expect([first, last] == [.partial, .complete(bytes: [1, 2], isText: false)])
    }
}
