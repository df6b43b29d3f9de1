import CorkboardModel
import Testing

@testable import CorkboardProtocol

/// Every field a client fills has a limit, checked when the message is decoded (issue 19: a 1 MiB
/// card text or collection title was accepted and saved; a 64-bit overflow read "not valid JSON").
@Suite struct ContentLimitTests {
    /// The error decoding `json` throws, or `nil` when it decodes.
    static func refusal(_ json: String) -> ProtocolError? {
        do {
            _ = try WireCodec.decodeClientMessage(Array(json.utf8))
            return nil
        } catch {
            return error
        }
    }

    static func submit(_ op: String) -> String {
        #"{"type":"submit","ref":"r1","opId":"o1","base":0,"op":"# + op + "}"
    }

    static let destination = #""destination":{"collection":"c","section":"s","index":0,"intent":"unspecified"}"#

    static func text(_ bytes: Int) -> String { String(repeating: "x", count: bytes) }

    @Test func aMebibyteCardTextIsRefusedNamingTheField() throws {
        let value = Self.text(1 << 20)
        let insert = Self.submit(
            #"{"kind":"insert","items":[{"representations":[{"type":"public.plain-text","value":""#
                + value + #""}]}],"# + Self.destination + "}")
        let error = try #require(Self.refusal(insert))
        #expect(error.code == .invalidField)
        #expect(error.field == "op.items.0.representations.0.value")
        #expect(error.message.contains("65536"))
        #expect(error.ref == "r1")
        let update = Self.submit(
            #"{"kind":"updateItem","item":"i","representations":[{"type":"t","value":""# + value + #""}]}"#)
        #expect(Self.refusal(update)?.field == "op.representations.0.value")
        let fits = Self.submit(
            #"{"kind":"updateItem","item":"i","representations":[{"type":"t","value":""#
                + Self.text(ProtocolLimits.maxValueBytes) + #""}]}"#)
        #expect(Self.refusal(fits) == nil, "exactly the limit is accepted")
    }

    @Test func titlesAreLimited() {
        let long = Self.text(ProtocolLimits.maxTitleBytes + 1)
        let ops = [
            (
                #"{"kind":"createCollection","id":"c","title":""# + long + #"","layout":"grid","accepts":[]}"#,
                "op.title"
            ),
            (#"{"kind":"renameCollection","collection":"c","title":""# + long + #""}"#, "op.title"),
            (#"{"kind":"createSection","collection":"c","id":"s","title":""# + long + #""}"#, "op.title"),
            (#"{"kind":"renameSection","section":"s","title":""# + long + #""}"#, "op.title"),
        ]
        for (op, field) in ops {
            let error = Self.refusal(Self.submit(op))
            #expect(error?.code == .invalidField)
            #expect(error?.field == field)
        }
    }

    @Test func idsTypesAndAcceptsAreLimited() {
        let longID = Self.text(ProtocolLimits.maxTokenBytes + 1)
        let cases = [
            (#"{"kind":"createCollection","id":""# + longID + #"","title":"t","layout":"grid","accepts":[]}"#, "op.id"),
            (#"{"kind":"createSection","collection":"c","id":"","title":"t"}"#, "op.id"),
            (#"{"kind":"deleteSection","section":""# + longID + #""}"#, "op.section"),
            (#"{"kind":"setAccepts","collection":"c","accepts":[""# + Self.text(129) + #""]}"#, "op.accepts.0"),
            (
                #"{"kind":"setAccepts","collection":"c","accepts":["#
                    + Array(repeating: #""t""#, count: ProtocolLimits.maxAccepts + 1).joined(separator: ",") + "]}",
                "op.accepts"
            ),
            (
                #"{"kind":"move","items":["i"],"destination":{"collection":"c","section":""# + longID
                    + #"","index":0,"intent":"unspecified"}}"#, "op.destination.section"
            ),
            (
                #"{"kind":"commitPlaceholder","item":"p","representations":["#
                    + Array(repeating: #"{"type":"t","value":"v"}"#, count: 17).joined(separator: ",") + "]}",
                "op.representations"
            ),
        ]
        for (op, field) in cases {
            let error = Self.refusal(Self.submit(op))
            #expect(error?.code == .invalidField, "\(field)")
            #expect(error?.field == field)
        }
        let external = #"{"type":"dragBegin","session":"d","items":[],"external":[[""# + Self.text(200) + #""]]}"#
        #expect(Self.refusal(external)?.field == "external.0.0")
    }

    @Test func groupsNestAtMostEightLevels() {
        func item(depth: Int) -> String {
            depth == 1
                ? #"{"representations":[]}"# : #"{"representations":[],"children":["# + item(depth: depth - 1) + "]}"
        }
        let fits = Self.submit(#"{"kind":"insert","items":["# + item(depth: 8) + #"],"# + Self.destination + "}")
        #expect(Self.refusal(fits) == nil)
        let deep = Self.submit(#"{"kind":"insert","items":["# + item(depth: 9) + #"],"# + Self.destination + "}")
        #expect(Self.refusal(deep)?.code == .invalidField)
    }

    @Test func nestingDeeperThanTheLimitIsRefusedBeforeDecoding() throws {
        let deep =
            #"{"type":"ping","ref":"r","x":"# + String(repeating: "[", count: 40) + String(repeating: "]", count: 40)
            + "}"
        let error = try #require(Self.refusal(deep))
        #expect(error.code == .badJSON)
        #expect(error.message.contains("\(ProtocolLimits.maxJSONDepth)"))
        #expect(error.ref == "r", "the refusal answers the ref without decoding the message")
        // A million brackets are refused without recursing (this would overflow a recursive decoder).
        let huge = String(repeating: "[", count: 1 << 20)
        #expect(Self.refusal(huge)?.code == .badJSON)
    }

    @Test(arguments: ["9223372036854775808", "1e30", "-9223372036854775809", "1.5"])
    func numbersOutsideSixtyFourBitsNameTheFieldTheLimitAndTheValue(_ literal: String) throws {
        let error = try #require(Self.refusal(#"{"type":"sync","ref":"r9","lastSeq":"# + literal + "}"))
        #expect(error.code == .invalidField)
        #expect(error.field == "lastSeq")
        #expect(error.message.contains("9223372036854775807"))
        #expect(error.message.contains(literal))
        #expect(error.ref == "r9")
        let nested = try #require(
            Self.refusal(
                Self.submit(
                    #"{"kind":"move","items":["i"],"destination":{"collection":"c","section":"s","index":"#
                        + literal + #","intent":"unspecified"}}"#)))
        #expect(nested.field == "op.destination.index")
    }

    @Test func thePrecheckNeverReadsPastTheBuffer() {
        for text in ["", "\"", "{\"a", "[[[", "-", "{\"k\":1e", "\"\\", "{\"a\":\"\\\"}"] {
            let bytes = Array(text.utf8)
            _ = bytes.withUnsafeBufferPointer { JSONPrecheck.scan($0) }
        }
    }
}
