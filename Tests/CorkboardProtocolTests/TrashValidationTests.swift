import CorkboardProtocol
import Testing

/// R15 on the wire: a `restore` names a Trash entry id within its bound, `emptyTrash` has no fields.
@Suite("Trash operations on the wire")
struct TrashValidationTests {
    @Test func aRestoreNeedsAnEntryIdWithinItsBound() throws {
        let empty = ContentLimitTests.refusal(ContentLimitTests.submit(#"{"kind":"restore","entry":""}"#))
        #expect(empty?.code == .invalidField && empty?.field == "op.entry")
        let long = ContentLimitTests.text(2 * ProtocolLimits.maxTokenBytes + 17)
        let tooLong = ContentLimitTests.refusal(ContentLimitTests.submit(#"{"kind":"restore","entry":"\#(long)"}"#))
        #expect(tooLong?.code == .invalidField && tooLong?.message.contains("Trash entry") == true)
        let wrongType = ContentLimitTests.refusal(ContentLimitTests.submit(#"{"kind":"restore","entry":7}"#))
        #expect(wrongType != nil)
        #expect(ContentLimitTests.refusal(ContentLimitTests.submit(#"{"kind":"restore","entry":"c-1:op-7"}"#)) == nil)
        #expect(ContentLimitTests.refusal(ContentLimitTests.submit(#"{"kind":"emptyTrash"}"#)) == nil)
    }
}
