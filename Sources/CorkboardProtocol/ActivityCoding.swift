import CorkboardJSON
public import CorkboardModel
import Foundation

/// The activity feed on the wire and on disk (issue 43): an entry is encoded once, by hand, into
/// the JSON the store keeps and every message that carries it splices in
/// (`{"seq":12,"at":…,"actor":"Ada","clientId":"…","color":"#1971c2","verb":"moved","text":"…","items":[…]}`).
public enum ActivityCoding {
    /// The entry's JSON.
    ///
    /// - Complexity: O(size of the entry).
    public static func record(_ entry: ActivityEntry) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(entry.estimatedBytes + 64)
        bytes += #"{"seq":"#.utf8
        bytes += String(entry.seq).utf8
        bytes += #","at":"#.utf8
        bytes += String(entry.at).utf8
        for (name, value) in [
            ("actor", entry.actor), ("clientId", entry.clientId), ("color", entry.color),
            ("verb", entry.verb.rawValue), ("text", entry.text),
        ] {
            bytes.append(UInt8(ascii: ","))
            JSONString.append(name, to: &bytes)
            bytes.append(UInt8(ascii: ":"))
            JSONString.append(value, to: &bytes)
        }
        bytes += #","items":["#.utf8
        for (index, item) in entry.items.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            JSONString.append(item.rawValue, to: &bytes)
        }
        bytes += "]}".utf8
        return bytes
    }

    /// An entry from its JSON (`record`), or `nil` when the bytes are not one.
    public static func entry(_ record: [UInt8]) -> ActivityEntry? {
        try? JSONDecoder().decode(ActivityEntry.self, from: Data(record))
    }

    /// The live message for a new entry: `{"type":"activity","entry":{…}}`.
    public static func live(_ record: [UInt8]) -> EncodedMessage {
        EncodedMessage(
            pieces: [Array(#"{"type":"activity","entry":"#.utf8), record, [UInt8(ascii: "}")]], isEphemeral: false,
            type: "activity")
    }

    /// A page answering `activity`: `{"type":"activityPage","ref":"r9","entries":[…],"more":true}`,
    /// the entries newest first.
    public static func page(ref: String?, records: [[UInt8]], more: Bool) -> EncodedMessage {
        var head: [UInt8] = Array(#"{"type":"activityPage","#.utf8)
        if let ref {
            head += #""ref":"#.utf8
            JSONString.append(ref, to: &head)
            head.append(UInt8(ascii: ","))
        }
        head += #""entries":["#.utf8
        for (index, record) in records.enumerated() {
            if index > 0 { head.append(UInt8(ascii: ",")) }
            head += record
        }
        head += #"],"more":\#(more)}"#.utf8
        return EncodedMessage(bytes: head, isEphemeral: false, type: "activityPage")
    }
}

extension ServerMessage {
    /// `activity`: a new entry of the feed (`{"type":"activity","entry":{…}}`), sent to the
    /// members that asked with `live: true`. The server writes it by hand (`ActivityCoding.live`).
    public struct ActivityLive: Hashable, Codable, Sendable {
        /// The entry.
        public var entry: ActivityEntry
        /// Creates the message.
        public init(entry: ActivityEntry) { self.entry = entry }
    }

    /// `activityPage`: entries newest first, and whether older ones match too (`more`: ask again
    /// with `before` set to the last entry's `seq`).
    public struct ActivityPage: Hashable, Codable, Sendable {
        /// Echoed from `activity`.
        public var ref: String?
        /// The entries, newest first.
        public var entries: [ActivityEntry]
        /// Whether older entries match.
        public var more: Bool
        /// Creates a page.
        public init(ref: String? = nil, entries: [ActivityEntry], more: Bool) {
            self.ref = ref
            self.entries = entries
            self.more = more
        }
    }
}
