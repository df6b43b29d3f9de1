import Crypto
import Foundation

/// Why a claim, a device's arrival or an admin's change of a board's people was refused: a code
/// (the wire's error code, `docs/PROTOCOL.md`), a sentence saying what to do, and the field.
public struct PeopleRefusal: Error, Hashable, Sendable, CustomStringConvertible {
    /// The refusals, by their wire codes.
    public enum Code: String, Hashable, Sendable {
        /// The token is no invite of this board.
        case inviteUnknown = "invite-unknown"
        /// The invite is past its expiry.
        case inviteExpired = "invite-expired"
        /// The invite was claimed as often as it may be.
        case inviteUsed = "invite-used"
        /// An admin disabled the invite.
        case inviteRevoked = "invite-revoked"
        /// The device's person was removed.
        case removed
        /// The device has no person on the board (answered like a wrong key).
        case unknownDevice = "bad-key"
        /// An admin's change names no person (or a removed one).
        case unknownPerson = "unknown-person"
        /// An admin's change names no invite.
        case unknownInvite = "unknown-invite"
        /// The change would leave the board without its last person admin.
        case lastAdmin = "last-admin"
        /// A field of the change is out of range.
        case invalidField = "invalid-field"
    }

    /// The code.
    public var code: Code
    /// What went wrong and what to do.
    public var message: String
    /// The offending field, when there is one.
    public var field: String?

    /// Creates a refusal.
    public init(_ code: Code, _ message: String, field: String? = nil) {
        self.code = code
        self.message = message
        self.field = field
    }

    /// `code: message`.
    public var description: String { "\(code.rawValue): \(message)" }
}

/// A device key (`d-` and 32 hex digits) as a board keeps it: its SHA-256 in lowercase hex, so
/// the record (and a leaked copy of it) holds nothing that opens the board.
public enum DeviceKey {
    /// Whether `key` is `d-` followed by 32 lowercase hex digits.
    public static func isValid(_ key: String) -> Bool {
        let bytes = Array(key.utf8)
        guard bytes.count == 34, bytes[0] == UInt8(ascii: "d"), bytes[1] == UInt8(ascii: "-") else { return false }
        return bytes.dropFirst(2).allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }

    /// The SHA-256 of the key's UTF-8, 64 lowercase hex digits.
    public static func digest(_ key: String) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(64)
        for byte in SHA256.hash(data: Array(key.utf8)) {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0xF)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}

extension BoardPeople {
    /// Claims the invite with `token` for the device whose key's digest is `device` (`hello` with
    /// `invite`), or finds the person this device already is for that invite (no new use). A new
    /// person gets the invite's name and role, and the invite one more use. Every invite's token
    /// is compared in constant time, so the time taken does not tell how much of a token was right.
    ///
    /// - Throws: `PeopleRefusal` (`invite-unknown`, `removed`, `invite-revoked`, `invite-expired`,
    ///   `invite-used`); nothing changes then.
    public mutating func claim(token: String, device: String, now: Double) throws(PeopleRefusal) -> Person {
        var found: Int?
        for index in invites.indices where BoardKeys.constantTimeEquals(token, invites[index].token) {
            found = found ?? index
        }
        guard let index = found else {
            throw PeopleRefusal(.inviteUnknown, "This invite link is not valid; ask the board's admin for a new one.")
        }
        let invite = invites[index]
        if let mine = people.lastIndex(where: { $0.invite == invite.id && $0.device == device }) {
            guard !people[mine].removed else { throw Self.removedRefusal }
            people[mine].lastSeen = now
            revision += 1
            return people[mine]
        }
        if invite.disabled {
            throw PeopleRefusal(
                .inviteRevoked, "This invite was disabled by an admin; ask the board's admin for a new one.")
        }
        if let expiresAt = invite.expiresAt, expiresAt <= now {
            throw PeopleRefusal(
                .inviteExpired,
                "This invite expired on \(Self.describe(expiresAt)); ask the board's admin for a new one.")
        }
        if invite.isUsedUp {
            throw PeopleRefusal(.inviteUsed, "This invite was already used; ask the board's admin for a new one.")
        }
        guard people.count < Self.maxPeople else {
            throw PeopleRefusal(
                .inviteUsed, "This board already has \(Self.maxPeople) people; ask its admin to remove some first.")
        }
        let person = Person(
            id: RandomToken.make(prefix: "p-", bytes: 8), name: invite.name, role: invite.role, device: device,
            invite: invite.id, joinedAt: now, lastSeen: now)
        people.append(person)
        invites[index].uses += 1
        revision += 1
        return person
    }

    /// The person the device whose key's digest is `device` is on this board (`hello` with only
    /// `device`): the newest of its persons not removed; their `lastSeen` becomes `now`.
    ///
    /// - Throws: `PeopleRefusal` `removed` when every person of the device was removed,
    ///   `bad-key` when the device has none here (naming `board`).
    public mutating func arrive(device: String, now: Double, board: String) throws(PeopleRefusal) -> Person {
        let mine = people.indices.filter { people[$0].device == device }
        guard let newest = mine.filter({ !people[$0].removed }).max(by: { people[$0].joinedAt < people[$1].joinedAt })
        else {
            if !mine.isEmpty { throw Self.removedRefusal }
            throw PeopleRefusal(
                .unknownDevice, "This browser has no invite for board \(board); open your invite link or a share link.",
                field: "device")
        }
        people[newest].lastSeen = now
        revision += 1
        return people[newest]
    }

    private static let removedRefusal = PeopleRefusal(
        .removed, "You were removed from this board; ask an admin of the board if this is a mistake.")

    /// A time as people read it: "2026-12-01 10:00 UTC".
    static func describe(_ seconds: Double) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm"
        return formatter.string(from: Date(timeIntervalSince1970: seconds)) + " UTC"
    }
}
