import CorkboardModel
import CorkboardProtocol
import CorkboardTesting
import Testing

@testable import CorkboardBots

/// The bad-input catalog must say what the protocol really answers: each case that fails while
/// decoding fails with one of its expected codes, and the cases the room refuses decode cleanly.
@Suite("Bad input catalog")
struct BadInputTests {
    static let demo = DemoIDs(board: "demo")
    static let context = BadInput.Context(
        ref: "bad-1-1", item: demo.gc(1), collection: demo.caches, section: demo.toFind, board: demo.board)

    /// Codes the room gives (the message itself decodes).
    static let roomCodes: Set<ErrorCode> = [.alreadyJoined, .unknownSession]

    @Test("decoding refuses each case with an expected code, or leaves it to the room")
    func codesMatchTheCodec() {
        for badCase in BadInput.catalog where badCase.isText {
            let frame = badCase.frame(Self.context)
            do {
                let message = try WireCodec.decodeClientMessage(frame)
                // Decoded: the room must refuse it.
                let roomRefuses =
                    !badCase.expected.isDisjoint(with: Self.roomCodes)
                    || ["client moveOut", "insert naming an id"].contains(badCase.name)
                #expect(roomRefuses, "\(badCase.name) decoded as \(message.type) and nothing would refuse it")
            } catch {
                #expect(badCase.expected.contains(error.code), "\(badCase.name): got \(error)")
                if badCase.echoesRef { #expect(error.ref == Self.context.ref, "\(badCase.name) lost its ref") }
            }
        }
    }

    @Test("every case has a distinct name and stays under the server's message limit")
    func casesAreDistinctAndSmall() {
        let names = BadInput.catalog.map(\.name)
        #expect(Set(names).count == names.count)
        for badCase in BadInput.catalog {
            #expect(badCase.frame(Self.context).count < 1 << 20, "\(badCase.name) would be closed 1009")
        }
    }
}
