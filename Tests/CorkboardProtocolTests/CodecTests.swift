import CorkboardModel
import CorkboardProtocol
import Foundation
import Testing

/// One of every client message, with every optional field set.
let everyClientMessage: [ClientMessage] = {
    let destination = Destination(
        collection: "c", section: "s", index: 2, after: "a", before: "b", intent: .insertAtDestinationIndexPath)
    let target = DragTarget(
        board: "other", collection: "c", section: "s", index: 1, intent: .insertIntoDestinationIndexPath)
    return [
        .hello(.init(ref: "r1", board: "demo", key: "k", name: "Ada", clientId: "c-1", lastSeq: 4)),
        .hello(.init(board: "demo", key: nil, name: "Ada")),
        .submit(
            .init(
                ref: "r2", opId: "o1", base: 3,
                op: .move(.init(items: ["i1", "i2"], destination: destination, session: "d1")), session: "d1")),
        .submit(
            .init(
                opId: "o2", base: 0,
                op: .insert(
                    .init(
                        items: [
                            NewItem(
                                representations: [Representation(type: "public.url", value: "https://example.com/a/b")],
                                children: [NewItem(representations: [])])
                        ], destination: destination)))),
        .submit(
            .init(opId: "o3", base: 0, op: .insertPlaceholder(.init(destination: destination, representations: [])))),
        .submit(.init(opId: "o4", base: 0, op: .setAccepts(.init(collection: "c", accepts: ["public.image"])))),
        .dragBegin(.init(ref: "r3", session: "d1", items: ["i1"], external: [["public.url", "public.plain-text"]])),
        .dragBegin(.init(session: "d2", items: [], external: [["public.image"]])),
        .dragAdd(.init(ref: "r4", session: "d1", items: ["i2", "i3"])),
        .dropUpdate(.init(ref: "r5", session: "d1", target: target, copy: true, key: "k2")),
        .drop(
            .init(
                ref: "r6", session: "d1", opId: "o5", base: 7, destination: .into("i9", collection: "c", section: "s"),
                copy: false, board: "other", key: "k2")),
        .dragEnd(.init(ref: "r7", session: "d1")),
        .cursor(.init(x: -12.5, y: 900, collection: "c")),
        .cursor(.init(x: 0, y: 0)),
        .presence(.init(state: .away)),
        .sync(.init(ref: "r8", lastSeq: 12)),
        .ping(.init(ref: "r9")),
        .ping(.init()),
        .editBegin(.init(ref: "r10", item: "i1")),
        .editEnd(.init(item: "i1")),
        .hello(
            .init(
                board: "demo", key: nil, name: "Bea", invite: "t-" + String(repeating: "5", count: 32),
                device: "d-" + String(repeating: "a", count: 32))),
        .people(.listPeople(.init(ref: "p1"))),
        .people(.createInvite(.init(ref: "p2", name: "Bea", role: .commenter, expiresAt: 1_900_000_000, oneUse: true))),
        .people(.createInvite(.init(name: "Cy", role: .editor))),
        .people(.updateInvite(.init(ref: "p3", invite: "i-1", disabled: true))),
        .people(.setRole(.init(ref: "p4", person: "p-1", role: .viewer))),
        .people(.removePerson(.init(person: "p-1"))),
        .people(.setLinks(.init(ref: "p5", enabled: false))),
        .people(.rotateLinks(.init())),
        .undo(.init(ref: "r11", opId: "u1", base: 9)),
        .redo(.init(opId: "u2", base: 10)),
        .submit(
            .init(
                opId: "o6", base: 0,
                op: .updateItem(.init(item: "i1", representations: [Representation(type: "t", value: "v")], version: 3))
            )
        ),
        .submit(.init(opId: "o7", base: 0, op: .setLayout(.init(collection: "c", layout: .list)))),
        .submit(.init(opId: "o8", base: 0, op: .renameBoard(.init(title: "Trip")))),
        .submit(
            .init(
                opId: "o9", base: 0,
                op: .createCollection(
                    .init(id: "c2", title: "Ideas", layout: .list, sections: [.init(id: "s2", title: "Now")])))),
        .listMembers(.init(ref: "r12", ids: ["m1", "m7"])),
        .listMembers(.init(ref: "r13", after: "m32", limit: 50)),
        .activity(.init(ref: "r14", limit: 30, live: true)),
        .activity(.init(ref: "r15", before: 40, item: "i1", limit: 10, live: false)),
    ]
}()

/// A small board with a list collection, an edited item, a group, a placeholder, an empty section
/// and a title that needs escaping.
let sampleBoard = try! Board(
    collections: [
        BoardCollection(
            id: "c", title: "Cards", layout: .list, accepts: ["public.plain-text"],
            sections: [
                Section(
                    id: "s", title: "Top",
                    items: [
                        Item(
                            id: "a", representations: [.init(type: "public.plain-text", value: "A \"q\"")],
                            version: 2),
                        Item(id: "g", children: [Item(id: "b")]),
                        Item(id: "p", placeholder: PlaceholderInfo(owner: "c-1", createdAt: 12.5)),
                    ]),
                Section(id: "t"),
            ])
    ])

/// One of every server message.
let everyServerMessage: [ServerMessage] = {
    let member = Member(id: "m1", name: "Ada", color: "#d9480f", role: .editor, clientId: "c-1")
    let board = sampleBoard
    let position = Position(collection: "c", section: "s", index: 0)
    let committed = CommittedOperation(
        seq: 5, opId: "o1", clientId: "c-1",
        op: .move(.init(items: ["i1"], destination: Destination(collection: "c", section: "s", index: 1))),
        effect: Effect(
            changes: [
                ItemChange(
                    item: "i1", from: position, to: Position(collection: "c", section: "s", group: "g", index: 0))
            ],
            skipped: ["gone"], removed: [Item(id: "x", representations: [])]))
    let target = DragTarget(collection: "c", section: "s", index: 0)
    let proposal = Proposal(operation: .forbidden, intent: .insertAtDestinationIndexPath, reason: "no")
    let drag = DragState(
        session: "d1", member: "m1", items: ["i1"], external: [["public.url"]], target: target, proposal: proposal)
    return [
        .welcome(
            .init(
                ref: "r1", board: BoardInfo(id: "b", title: "B"), member: member, head: 5,
                snapshot: Snapshot(seq: 5, board: board), ops: nil, members: [member], drags: [drag],
                tickMilliseconds: 33, resumeToken: "r-1", history: "h-1",
                edits: [.init(item: "i1", member: "m2")], undoable: .init(undo: true, redo: false),
                keys: .init(view: "v-1", edit: "e-1"))),
        .welcome(
            .init(
                ref: nil, board: BoardInfo(id: "b", title: "B"), member: member, head: 5, snapshot: nil,
                ops: [committed],
                members: [], drags: [], tickMilliseconds: 33, resumeToken: "r-2", history: "h-1")),
        .ack(.init(ref: "r2", opId: "o1", outcome: .committed(committed))),
        .ack(
            .init(
                ref: nil, opId: "o2", board: "other",
                outcome: .rejected(Rejection(.locked, "held", field: "items", item: "i1")))),
        .op(committed),
        .dragGranted(
            .init(
                ref: "r3", session: "d1", granted: ["i1"],
                refused: [.init(item: "i2", code: .locked, message: "by Ada")])),
        .proposal(.init(ref: "r4", session: "d1", target: target, proposal: proposal)),
        .dragStarted(drag),
        .dragItems(.init(session: "d1", member: "m1", items: ["i1", "i2"])),
        .dragHover(
            .init(
                session: "d1", member: "m1", target: target, proposal: Proposal(operation: .move, intent: .unspecified))
        ),
        .dragEnded(.init(session: "d1", member: "m1", reason: .dropped, seq: 5)),
        .dragEnded(.init(session: "d2", member: "m1", reason: .expired)),
        .membersChanged(.init(count: 3, joined: [member], left: ["m1"])),
        .membersChanged(.init(count: 40, joined: [member], left: [], more: true)),
        .memberList(.init(ref: "r8", members: [member], count: 40, next: "m2")),
        .cursor(.init(member: "m1", x: 1.5, y: -2, collection: "c")),
        .presence(.init(member: "m1", state: .idle)),
        .synced(.init(ref: "r5", head: 5, snapshot: nil, ops: [committed])),
        .synced(.init(ref: nil, head: 5, snapshot: Snapshot(seq: 5, board: board), ops: nil)),
        .pong(.init(ref: "r6", head: 5)),
        .error(ProtocolError(.invalidField, "bad", field: "target.index", ref: "r7")),
        .editGranted(.init(ref: "r8", item: "i1", version: 2)),
        .editRefused(.init(ref: "r9", item: "i1", code: .locked, member: "m2", message: "Bob is editing “A”.")),
        .editStarted(.init(item: "i1", member: "m2")),
        .editEnded(.init(item: "i1", member: "m2", reason: .saved)),
        .undoable(.init(undo: true, redo: true)),
        .people(
            .init(
                ref: "p1",
                people: [
                    .init(
                        id: "p-1", name: "Bea", role: .commenter, online: true, joinedAt: 1, lastSeen: 2, removed: true,
                        alias: "Beatrice", invite: "i-1")
                ],
                invites: [
                    .init(
                        id: "i-1", name: "Bea", role: .commenter, token: "t-1", createdAt: 1, expiresAt: 9, maxUses: 1,
                        uses: 1, disabled: true)
                ], linksEnabled: false, keys: .init(view: "v-1", edit: "e-1", comment: "c-1", admin: "a-1"),
                created: .init(
                    id: "i-2", name: "Cy", role: .editor, token: "t-2", createdAt: 3, uses: 0, disabled: false)
            )),
        .roleChanged(.init(role: .viewer, keys: .init(view: ""))),
        .welcome(
            .init(
                ref: nil, board: BoardInfo(id: "b", title: "B"),
                member: Member(
                    id: "m3", name: "Bea", color: "#1971c2", role: .commenter, clientId: "c-3", person: "p-1",
                    alias: "Beatrice"), head: 0, snapshot: nil, ops: [], members: [], drags: [], tickMilliseconds: 33,
                resumeToken: "r-3", history: "h-1",
                person: .init(id: "p-1", name: "Bea", role: .commenter, online: true, joinedAt: 1, invite: "i-1"))),
        .op(
            CommittedOperation(
                seq: 6, opId: "u1", clientId: "c-1",
                op: .batch(
                    .init(ops: [
                        .move(.init(items: ["i1"], destination: Destination(collection: "c", section: "s", index: 0))),
                        .insert(
                            .init(
                                items: [NewItem(id: "x", representations: [], version: 4)],
                                destination: Destination(collection: "c", section: "s", index: 1))),
                    ])), effect: Effect())),
    ]
}()

/// The fields of a JSON object.
func object(_ bytes: some Collection<UInt8>) throws -> [String: Any] {
    try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
}

/// Decodes a client message and returns the error, recording an issue if it decoded.
func decodingError(_ json: String, sourceLocation: SourceLocation = #_sourceLocation) -> ProtocolError? {
    do {
        let message = try WireCodec.decodeClientMessage(Array(json.utf8))
        Issue.record("decoded \(message) from \(json)", sourceLocation: sourceLocation)
        return nil
    } catch {
        return error
    }
}

@Suite("WireCodec")
struct CodecTests {
    @Test("every client message type round-trips through the codec", arguments: everyClientMessage)
    func clientRoundTrip(_ message: ClientMessage) throws {
        let bytes = WireCodec.encode(message)
        #expect(try object(bytes)["type"] as? String == message.type)
        #expect(try WireCodec.decodeClientMessage(bytes) == message)
    }

    @Test("the round-trip list covers every client message type")
    func clientCoverage() {
        #expect(Set(everyClientMessage.map(\.type)) == Set(ClientMessage.types))
    }

    @Test("every server message type round-trips and is encoded once with its type and durability")
    func serverRoundTrip() throws {
        let types = Set(everyServerMessage.map(\.type))
        #expect(types.count == 23)
        let ephemeral: Set = ["dragStarted", "dragItems", "dragHover", "dragEnded", "cursor", "presence"]
        for message in everyServerMessage {
            let encoded = WireCodec.encode(message)
            #expect(encoded.type == message.type)
            #expect(encoded.isEphemeral == ephemeral.contains(message.type), "\(message.type)")
            #expect(try object(encoded.bytes)["type"] as? String == message.type)
            #expect(try WireCodec.decodeServerMessage(encoded.bytes) == message)
        }
    }

    @Test("a welcome or synced with the board spliced in as a shared piece decodes like one encoded whole")
    func sharedBoardPiece() throws {
        var spliced = 0
        for message in everyServerMessage {
            let (withoutBoard, snapshot): (ServerMessage, Snapshot)
            switch message {
            case .welcome(var welcome) where welcome.snapshot != nil:
                snapshot = welcome.snapshot!
                welcome.snapshot = nil
                withoutBoard = .welcome(welcome)
            case .synced(var synced) where synced.snapshot != nil:
                snapshot = synced.snapshot!
                synced.snapshot = nil
                withoutBoard = .synced(synced)
            default:
                continue
            }
            let board = WireCodec.encode(snapshot)
            let encoded = WireCodec.encode(withoutBoard, snapshot: board)
            // Three pieces, the middle one the very bytes given (shared, not copied).
            #expect(encoded.pieces.count == 3)
            #expect(
                encoded.pieces[1].withUnsafeBufferPointer { $0.baseAddress }
                    == board.withUnsafeBufferPointer { $0.baseAddress })
            #expect(encoded.count == encoded.bytes.count && encoded.type == message.type && !encoded.isEphemeral)
            #expect(try WireCodec.decodeServerMessage(encoded.bytes) == message)
            spliced += 1
        }
        #expect(spliced == 2)
    }

    @Test("payload fields sit next to type; errors carry code, message, field and ref")
    func wireShapes() throws {
        let drag = try object(WireCodec.encode(ClientMessage.dragBegin(.init(ref: "r1", session: "d1", items: ["i1"]))))
        #expect(drag["session"] as? String == "d1")
        #expect(drag["items"] as? [String] == ["i1"])
        #expect(drag["ref"] as? String == "r1")
        let error = try object(
            WireCodec.encode(ServerMessage.error(ProtocolError(.invalidField, "m", field: "target.index", ref: "r7")))
                .bytes)
        #expect(error["type"] as? String == "error")
        #expect(error["code"] as? String == "invalid-field")
        #expect(error["field"] as? String == "target.index")
        #expect(error["ref"] as? String == "r7")
        #expect(error["message"] as? String == "m")
        let parsed = try WireCodec.decodeClientMessage(
            Array(#"{"type":"dragBegin","ref":"r1","session":"d1","items":["i1"]}"#.utf8))
        #expect(parsed == .dragBegin(.init(ref: "r1", session: "d1", items: ["i1"])))
        let url = WireCodec.encode(everyClientMessage[3])
        #expect(String(decoding: url, as: UTF8.self).contains("https://example.com/a/b"), "slashes stay readable")
    }

    @Test(
        "decoding errors map to codes with dotted field paths and keep the ref",
        arguments: [
            ("{nope", ErrorCode.badJSON, nil, nil),
            ("", .badJSON, nil, nil),
            ("[1,2]", .badJSON, nil, nil),
            ("null", .badJSON, nil, nil),
            (#""hello""#, .badJSON, nil, nil),
            (#"{"ref":"r0"}"#, .unknownType, "type", "r0"),
            (#"{"type":"wave","ref":"r1"}"#, .unknownType, "type", "r1"),
            (#"{"type":7,"ref":"r1"}"#, .invalidField, "type", "r1"),
            (#"{"type":"dragBegin","ref":"r2","session":"d"}"#, .missingField, "items", "r2"),
            (#"{"type":"dragBegin","ref":"r3","session":"d","items":[1]}"#, .invalidField, "items.0", "r3"),
            (#"{"type":"dragBegin","ref":"r4","session":"d","items":["a",""]}"#, .invalidField, "items.1", "r4"),
            (#"{"type":"dragBegin","ref":"r5","session":"d","items":[]}"#, .invalidField, "items", "r5"),
            (#"{"type":"dragBegin","ref":"r6","session":null,"items":["a"]}"#, .invalidField, "session", "r6"),
            (
                #"{"type":"submit","ref":"r7","opId":"o","base":0,"op":{"kind":"move","items":["a"],"destination":{"collection":"c","section":"s","index":-2,"intent":"unspecified"}}}"#,
                .invalidField, "op.destination.index", "r7"
            ),
            (
                #"{"type":"submit","ref":"r8","opId":"o","base":0,"op":{"kind":"move","items":["a"],"destination":{"collection":"c","section":"s","index":"x","intent":"unspecified"}}}"#,
                .invalidField, "op.destination.index", "r8"
            ),
            (
                #"{"type":"submit","ref":"r9","opId":"o","base":0,"op":{"kind":"move","items":["a"],"destination":{"collection":"c","section":"s","index":0,"intent":"sideways"}}}"#,
                .invalidField, "op.destination.intent", "r9"
            ),
            // R16: a card update's bounds, each naming its field.
            (
                #"{"type":"submit","ref":"c1","opId":"o","base":0,"op":{"kind":"updateCard","item":"a"}}"#,
                .invalidField, "op.item", "c1"
            ),
            (
                #"{"type":"submit","ref":"c2","opId":"o","base":0,"op":{"kind":"updateCard","item":"a","dates":{"due":5,"start":6}}}"#,
                .invalidField, "op.dates", "c2"
            ),
            (
                #"{"type":"submit","ref":"c3","opId":"o","base":0,"op":{"kind":"updateCard","item":"a","assign":[" "]}}"#,
                .invalidField, "op.assign", "c3"
            ),
            (
                #"{"type":"submit","ref":"c4","opId":"o","base":0,"op":{"kind":"updateCard","item":"a","done":"yes"}}"#,
                .invalidField, "op.done", "c4"
            ),
            (
                #"{"type":"submit","ref":"c5","opId":"o","base":0,"op":{"kind":"updateCard","item":"a","description":{"text":"x","version":-1}}}"#,
                .invalidField, "op.description.version", "c5"
            ),
            (
                #"{"type":"submit","ref":"c6","opId":"o","base":0,"op":{"kind":"insert","items":[{"representations":[],"details":{"assignees":["Ada","Ada"]}}],"destination":{"collection":"c","section":"s","index":0,"intent":"unspecified"}}}"#,
                .invalidField, "op.items.0.details.assignees", "c6"
            ),
            (
                #"{"type":"submit","ref":"c7","opId":"o","base":0,"op":{"kind":"addComment","item":"a","text":"x","restore":{"id":"u:o","author":"u","name":"U","at":0,"text":"x"}}}"#,
                .invalidField, "op.restore", "c7"
            ),
            (
                #"{"type":"submit","ref":"c8","opId":"o","base":0,"op":{"kind":"addComment","item":"a","text":" "}}"#,
                .invalidField, "op.text", "c8"
            ),
            (
                #"{"type":"submit","ref":"c9","opId":"o","base":0,"op":{"kind":"checklist","item":"a","checklist":"k1","action":"addItem","entry":"e1","text":" "}}"#,
                .invalidField, "op.text", "c9"
            ),
            (
                #"{"type":"submit","ref":"c10","opId":"o","base":0,"op":{"kind":"checklist","item":"a","checklist":"k1","action":"check","entry":"e1"}}"#,
                .invalidField, "op.done", "c10"
            ),
            (
                #"{"type":"cursor","x":1,"y":2,"checklist":{"item":"a","checklist":"","entry":"e1"}}"#,
                .invalidField, "checklist.checklist", nil
            ),
            (
                #"{"type":"submit","ref":"r10","opId":"o","base":0,"op":{"kind":"copy","items":["a"],"destination":{"section":"s","index":0,"intent":"unspecified"}}}"#,
                .missingField, "op.destination.collection", "r10"
            ),
            (
                #"{"type":"submit","ref":"r11","opId":"o","base":0,"op":{"items":["a"]}}"#, .missingField, "op.kind",
                "r11"
            ),
            (
                #"{"type":"submit","ref":"r12","opId":"o","base":-1,"op":{"kind":"delete","items":["a"]}}"#,
                .invalidField, "base", "r12"
            ),
            (
                #"{"type":"submit","ref":"r13","opId":"","base":0,"op":{"kind":"delete","items":["a"]}}"#,
                .invalidField, "opId", "r13"
            ),
            (
                #"{"type":"submit","ref":"r14","opId":"o","base":0,"op":{"kind":"moveSection","section":"s","index":2000000}}"#,
                .invalidField, "op.index", "r14"
            ),
            (
                #"{"type":"dropUpdate","ref":"r15","session":"d","target":{"collection":"c","section":"s","index":-1,"intent":"unspecified"}}"#,
                .invalidField, "target.index", "r15"
            ),
            (
                #"{"type":"hello","ref":"r16","protocol":2,"board":"b","name":"A"}"#, .unsupportedProtocol, "protocol",
                "r16"
            ),
            (#"{"type":"hello","ref":"r17","protocol":1,"board":"b","name":" "}"#, .invalidField, "name", "r17"),
            (
                #"{"type":"hello","ref":"r19","protocol":1,"board":"b","name":"A","color":"red"}"#, .invalidField,
                "color", "r19"
            ),
            (
                ##"{"type":"hello","ref":"r20","protocol":1,"board":"b","name":"A","color":"#1971C2"}"##, .invalidField,
                "color",
                "r20"
            ),
            (#"{"type":"cursor","x":2e6,"y":0}"#, .invalidField, "x", nil),
            (#"{"type":"presence","state":"asleep"}"#, .invalidField, "state", nil),
            (#"{"type":"sync","ref":"r18","lastSeq":"x"}"#, .invalidField, "lastSeq", "r18"),
            (#"{"type":"ping","ref":5}"#, .invalidField, "ref", nil),
        ] as [(String, ErrorCode, String?, String?)])
    func errorMapping(_ json: String, _ code: ErrorCode, _ field: String?, _ ref: String?) throws {
        let error = try #require(decodingError(json))
        #expect(error.code == code, "\(error)")
        #expect(error.field == field, "\(error)")
        #expect(error.ref == ref, "\(error)")
        #expect(!error.message.isEmpty)
    }

    @Test("tokens and names over the limits are refused; a ref over the limit is not echoed")
    func limits() throws {
        let long = String(repeating: "x", count: ProtocolLimits.maxTokenBytes + 1)
        let session = try #require(decodingError(#"{"type":"dragEnd","ref":"r1","session":"\#(long)"}"#))
        #expect(session.field == "session")
        #expect(session.ref == "r1")
        let ref = try #require(decodingError(#"{"type":"dragEnd","ref":"\#(long)","session":"d"}"#))
        #expect(ref.code == .invalidField)
        #expect(ref.field == "ref")
        let unread = try #require(decodingError(#"{"type":"dragEnd","ref":"\#(long)"}"#))
        #expect(unread.ref == nil, "an over-long ref is not echoed back")
        let name = String(repeating: "n", count: ProtocolLimits.maxNameCharacters + 1)
        let hello = try #require(decodingError(#"{"type":"hello","protocol":1,"board":"b","name":"\#(name)"}"#))
        #expect(hello.field == "name")
        let exact = String(repeating: "n", count: ProtocolLimits.maxNameCharacters)
        let fine = try WireCodec.decodeClientMessage(
            Array(#"{"type":"hello","protocol":1,"board":"b","name":"\#(exact)"}"#.utf8))
        #expect(fine.type == "hello")
    }

    @Test("R14: a client opId may not contain the character that names the halves of a drop across boards")
    func reservedOpIdCharacter() throws {
        let submit = try #require(
            decodingError(
                #"{"type":"submit","ref":"r1","opId":"op-1@from:demo","base":0,"op":{"kind":"delete","items":["a"]}}"#
            ))
        #expect(submit.code == .invalidField)
        #expect(submit.field == "opId")
        #expect(submit.ref == "r1")
        #expect(submit.message.contains("@"))
        let drop = try #require(
            decodingError(
                #"{"type":"drop","session":"d","opId":"x@to:b","base":0,"destination":{"collection":"c","section":"s","index":0,"intent":"insertAtDestinationIndexPath"}}"#
            ))
        #expect(drop.field == "opId")
        let fine = try WireCodec.decodeClientMessage(
            Array(#"{"type":"submit","opId":"op-1/out","base":0,"op":{"kind":"delete","items":["a"]}}"#.utf8))
        #expect(fine.type == "submit")
    }

    @Test("server messages that do not decode name the field")
    func serverDecodingErrors() {
        func error(_ json: String) -> ProtocolError? {
            do {
                _ = try WireCodec.decodeServerMessage(Array(json.utf8))
                return nil
            } catch {
                return error
            }
        }
        #expect(error(#"{"type":"nope"}"#)?.code == .unknownType)
        let outcome = error(#"{"type":"ack","opId":"o","outcome":{"kind":"maybe"}}"#)
        #expect(outcome?.code == .invalidField)
        #expect(outcome?.field == "outcome.kind")
        #expect(error(#"{"type":"pong"}"#)?.field == "head")
    }
}
