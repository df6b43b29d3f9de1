import CorkboardModel
import CorkboardProtocol
import CorkboardTesting
import Testing

@testable import CorkboardServer

/// A person keeps one colour per board across visits (issue 44): `hello.color` is given when it is a
/// palette colour no member here has now; otherwise the member gets the next colour in join order.
@Suite("Member colours")
struct MemberColorTests {
    static func joined(_ members: inout Members, _ n: UInt64, asking color: String?) -> String {
        members.add(conn(n), clientId: "c\(n)", name: "N\(n)", role: .editor, preferred: color).color
    }

    @Test("a free palette colour asked for is given; a taken one or one outside the palette is not")
    func preferredColor() {
        let palette = ProtocolLimits.memberColors
        var members = Members()
        // The first member asks for the fourth colour: free, so given (join order would give the first).
        #expect(Self.joined(&members, 1, asking: palette[3]) == palette[3])
        // The second asks for the same: taken now, so the next in join order (the second).
        #expect(Self.joined(&members, 2, asking: palette[3]) == palette[1])
        // A colour outside the palette is ignored.
        #expect(Self.joined(&members, 3, asking: "#000000") == palette[2])
        // None asked: join order.
        #expect(Self.joined(&members, 4, asking: nil) == palette[3])
        // Once its holder left, the colour is free again for whoever asks for it.
        _ = members.remove(conn(1))
        #expect(Self.joined(&members, 5, asking: palette[3]) == palette[4], "member 4 still has it")
        _ = members.remove(conn(4))
        #expect(Self.joined(&members, 6, asking: palette[3]) == palette[3])
    }
}
