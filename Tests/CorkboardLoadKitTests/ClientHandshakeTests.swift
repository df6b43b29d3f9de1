import CorkboardLoadKit
import Testing

@Suite struct ClientHandshakeTests {
    let handshake = ClientHandshake(key: "dGhlIHNhbXBsZSBub25jZQ==", subprotocol: "corkboard.v1")

    func answer(_ text: String, _ handshake: ClientHandshake? = nil) -> ClientHandshake.Answer {
        Array(text.utf8).withUnsafeBytes { (handshake ?? self.handshake).read($0) }
    }

    func refusal(_ text: String) -> HandshakeFailure? {
        if case .refused(let failure) = answer(text) { return failure }
        return nil
    }

    static let good =
        "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        + "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\nSec-WebSocket-Protocol: corkboard.v1\r\n\r\n"

    @Test func acceptIsTheRFCExample() {
        // RFC 6455 §1.3.
        #expect(ClientHandshake.accept(for: "dGhlIHNhbXBsZSBub25jZQ==") == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
        #expect(handshake.expectedAccept == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
    }

    @Test func randomKeysAreSixteenBytesInBase64AndDiffer() {
        let a = ClientHandshake.randomKey()
        let b = ClientHandshake.randomKey()
        #expect(a.count == 24 && a.hasSuffix("==") && a != b)
    }

    @Test func requestCarriesTheUpgradeHeaders() {
        let url = LeanURL(host: "127.0.0.1", port: 19700, path: "/ws?x=1")
        let text = String(decoding: handshake.request(for: url), as: UTF8.self)
        #expect(text.hasPrefix("GET /ws?x=1 HTTP/1.1\r\n"))
        for header in [
            "Host: 127.0.0.1:19700", "Upgrade: websocket", "Connection: Upgrade",
            "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==", "Sec-WebSocket-Version: 13",
            "Sec-WebSocket-Protocol: corkboard.v1",
        ] {
            #expect(text.contains("\r\n\(header)\r\n"), "\(header)")
        }
        #expect(!text.contains("Origin"))
        #expect(text.hasSuffix("\r\n\r\n"))
    }

    @Test func aGoodAnswerIsAcceptedAndFramesStartAfterItsHead() {
        let frames = "\u{81}\u{02}hi"
        #expect(answer(Self.good + frames) == .accepted(headBytes: Self.good.utf8.count))
    }

    @Test func headersAreCaseInsensitiveAndConnectionMayListTokens() {
        let text =
            "HTTP/1.1 101 Switching Protocols\r\nupgrade: WebSocket\r\nconnection: keep-alive, Upgrade\r\n"
            + "sec-websocket-accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\nsec-websocket-protocol: corkboard.v1\r\n\r\n"
        #expect(answer(text) == .accepted(headBytes: text.utf8.count))
    }

    @Test func anAnswerCutAnywhereBeforeItsEndIsIncomplete() {
        for cut in 0..<Self.good.utf8.count {
            #expect(answer(String(decoding: Array(Self.good.utf8)[..<cut], as: UTF8.self)) == .incomplete, "\(cut)")
        }
    }

    @Test func aWrongAcceptIsRefused() {
        let failure = refusal(
            Self.good.replacingOccurrences("s3pPLMBiTxaQ9kYGzzhZRbK+xOo=", "AAAAAAAAAAAAAAAAAAAAAAAAAAA="))
        #expect(failure?.status == 101)
        #expect(failure?.description.contains("Sec-WebSocket-Accept") == true)
    }

    @Test func aMissingOrOtherSubprotocolIsRefused() {
        #expect(
            refusal(Self.good.replacingOccurrences("Sec-WebSocket-Protocol: corkboard.v1\r\n", ""))?.description
                .contains("Sec-WebSocket-Protocol is missing") == true)
        #expect(
            refusal(Self.good.replacingOccurrences("corkboard.v1", "chat"))?.description.contains(
                "expected corkboard.v1")
                == true)
    }

    @Test func missingUpgradeOrConnectionIsRefused() {
        #expect(
            refusal(Self.good.replacingOccurrences("Upgrade: websocket\r\n", ""))?.description.contains("Upgrade")
                == true)
        #expect(
            refusal(Self.good.replacingOccurrences("Connection: Upgrade", "Connection: close"))?.description.contains(
                "Connection") == true)
    }

    @Test func anHTTPErrorIsRefusedWithItsStatusAndRetryAfter() {
        let failure = refusal("HTTP/1.1 503 Service Unavailable\r\nRetry-After: 2\r\nContent-Length: 0\r\n\r\n")
        #expect(failure?.status == 503)
        #expect(failure?.description == "HTTP 503 Service Unavailable, Retry-After: 2")
        #expect(refusal("HTTP/1.1 429 Too Many Requests\r\n\r\n")?.status == 429)
    }

    @Test func somethingElseThanHTTPIsRefused() {
        #expect(refusal("SSH-2.0-OpenSSH\r\n\r\n")?.status == nil)
    }

    @Test func anEndlessHeadIsRefused() {
        let long = "HTTP/1.1 101 OK\r\nX: " + String(repeating: "a", count: ClientHandshake.maxAnswerBytes)
        #expect(refusal(long)?.description.contains("longer") == true)
    }

    @Test func base64MatchesKnownVectors() {
        // RFC 4648 §10.
        let vectors = [
            "": "", "f": "Zg==", "fo": "Zm8=", "foo": "Zm9v", "foob": "Zm9vYg==", "fooba": "Zm9vYmE=",
            "foobar": "Zm9vYmFy",
        ]
        for (plain, encoded) in vectors { #expect(Base64.encode(Array(plain.utf8)) == encoded) }
    }

    @Test func urlsParse() throws {
        #expect(try LeanURL(parsing: "ws://127.0.0.1:8080/ws") == LeanURL(host: "127.0.0.1", port: 8080, path: "/ws"))
        #expect(try LeanURL(parsing: "ws://example.org") == LeanURL(host: "example.org", port: 80, path: "/"))
        #expect(try LeanURL(parsing: "ws://[::1]:9/x?y") == LeanURL(host: "::1", port: 9, path: "/x?y"))
        #expect(try LeanURL(parsing: "ws://[::1]:9/x").hostHeader == "[::1]:9")
        #expect(throws: LeanClientError.self) { try LeanURL(parsing: "wss://127.0.0.1/ws") }
        #expect(throws: LeanClientError.self) { try LeanURL(parsing: "http://127.0.0.1/") }
        #expect(throws: LeanClientError.self) { try LeanURL(parsing: "ws://127.0.0.1:0/") }
    }
}

extension String {
    fileprivate func replacingOccurrences(_ target: String, _ replacement: String) -> String {
        var out = ""
        var rest = self[...]
        while let range = rest.firstRange(of: target) {
            out += rest[..<range.lowerBound] + replacement
            rest = rest[range.upperBound...]
        }
        return out + rest
    }
}
