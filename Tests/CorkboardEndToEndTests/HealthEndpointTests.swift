import CorkboardClient
import CorkboardTesting
import Foundation
import Testing

@testable import CorkboardApp

/// `GET /healthz`, which the application layer answers (the transport has no built-in routes).
@Suite("GET /healthz")
struct HealthEndpointTests {
    @Test("healthz answers JSON: status, version, uptime, connections, then the service's fields")
    func healthzAnswersJSON() async throws {
        try await withServer(endpoints: HTTPEndpoints(version: "test")) { server in
            _ = try await server.connect("b1", name: "Ada")
            let response = try #require(await RawHTTP.request(port: server.service.boundPort, "GET", "/healthz"))
            #expect(response.status == 200)
            #expect(response.fields["content-type"] == "application/json")
            #expect(response.fields["cache-control"] == "no-store")
            let json = response.json
            #expect(json["status"] as? String == "ok")
            #expect(json["version"] as? String == "test")
            #expect(json["connections"] as? Int == 1)
            #expect((json["uptimeSeconds"] as? Double ?? -1) >= 0)
            #expect(json["store"] as? String == "memory")
            #expect(json["boards"] as? Int == 1)
            #expect(json["members"] as? Int == 1)
        }
    }

    @Test("the health JSON keeps the built-in fields first and escapes strings")
    func healthJSON() {
        let json = HealthEndpoint.json(
            version: "1.2", uptimeSeconds: 1.5, connections: 3,
            extra: ["store": .string("ok \"q\""), "status": .int(1)])
        #expect(json == #"{"status":"ok","version":"1.2","uptimeSeconds":1.5,"connections":3,"store":"ok \"q\""}"#)
    }
}
