public import CorkboardModel

// The messages of who is on the board: members joining and leaving, the member list, cursors and
// presence.
extension ServerMessage {
    /// `membersChanged`: who joined and who left since the last one, at most one per tick, with the
    /// number of members now. Leaves come first: a client resuming on a new connection appears in
    /// `left` (its old member) and `joined` (its new one).
    public struct MembersChanged: Hashable, Codable, Sendable {
        /// How many members are connected now.
        public var count: Int
        /// Members who joined, in join order; at most `ProtocolLimits.rosterJoins`.
        public var joined: [Member]
        /// The ids of members who left.
        public var left: [String]
        /// `true` when more members joined than `joined` lists (`listMembers` fetches them).
        public var more: Bool?

        /// Creates the message.
        public init(count: Int, joined: [Member], left: [String], more: Bool? = nil) {
            self.count = count
            self.joined = joined
            self.left = left
            self.more = more
        }
    }

    /// `memberList`: the answer to `listMembers`.
    public struct MemberList: Hashable, Codable, Sendable {
        /// The request's ref.
        public var ref: String?
        /// The members asked for that are connected, in join order.
        public var members: [Member]
        /// How many members are connected.
        public var count: Int
        /// When a page was asked for and more follow: pass it as `after` for the next page.
        public var next: String?

        /// Creates the message.
        public init(ref: String?, members: [Member], count: Int, next: String? = nil) {
            self.ref = ref
            self.members = members
            self.count = count
            self.next = next
        }
    }

    /// `cursor`: a peer's pointer.
    public struct CursorMessage: Hashable, Codable, Sendable {
        /// The member.
        public var member: String
        /// Horizontal position.
        public var x: Double
        /// Vertical position.
        public var y: Double
        /// The collection under the pointer.
        public var collection: CollectionID?
        /// The checklist item the peer drags in an open card, and where it would land.
        public var checklist: ChecklistDrag?

        /// Creates the message.
        public init(
            member: String, x: Double, y: Double, collection: CollectionID? = nil, checklist: ChecklistDrag? = nil
        ) {
            self.member = member
            self.x = x
            self.y = y
            self.collection = collection
            self.checklist = checklist
        }
    }

    /// `presence`: a peer's presence state.
    public struct PresenceMessage: Hashable, Codable, Sendable {
        /// The member.
        public var member: String
        /// The state.
        public var state: PresenceState

        /// Creates the message.
        public init(member: String, state: PresenceState) {
            self.member = member
            self.state = state
        }
    }
}
