/// Limits every message is checked against after decoding; a value over a limit is
/// `invalid-field` naming the field.
public enum ProtocolLimits {
    /// The protocol version this code speaks in `hello` and `welcome`.
    public static let version = 1
    /// The WebSocket subprotocol.
    public static let subprotocol = "corkboard.v1"
    /// Longest `ref`, `opId`, `session`, `clientId`, board id or key, in UTF-8 bytes.
    public static let maxTokenBytes = 128
    /// The character a client's `opId` may not contain: the server names the halves of a drop
    /// across boards with it (`<opId>@to:<board>` for the `moveOut` on the source board,
    /// `<opId>@from:<board>` for the insert on the destination), so no client operation can share
    /// their identity (R14).
    public static let reservedOpIdCharacter: Character = "@"
    /// Longest display name, in characters (names are trimmed; empty names are refused).
    public static let maxNameCharacters = 64
    /// The member colours, given in join order; readable on white, distinct from one another. A
    /// `hello.color` among them that no member here has is given instead (a person keeps a colour).
    public static let memberColors = [
        "#d9480f", "#1971c2", "#2f9e44", "#ae3ec9", "#e8590c", "#0c8599", "#c2255c", "#5c940d", "#6741d9", "#f08c00",
    ]
    /// The most members a `welcome` lists (`memberCount` gives the total; `listMembers` fetches
    /// the rest), so a join costs the same on a board of ten and of ten thousand.
    public static let welcomeMembers = 32
    /// The most joined members one `membersChanged` lists; `more` says when others were left out.
    public static let rosterJoins = 32
    /// The most members one `memberList` holds: `listMembers.limit`'s maximum and the most `ids`
    /// one `listMembers` may name.
    public static let memberListPage = 200
    /// Most items one drag may hold (dragBegin plus every dragAdd), and one operation may name.
    public static let maxItemsPerDrag = 1_000
    /// Most external type lists in one drag.
    public static let maxExternalItems = 100
    /// Largest index accepted in a target or destination.
    public static let maxIndex = 1_000_000
    /// Largest cursor coordinate, in either direction.
    public static let maxCoordinate = 1_000_000.0
    /// Deepest nesting of JSON objects and arrays in one message, checked before decoding.
    public static let maxJSONDepth = 32
    /// Longest collection or section title, in UTF-8 bytes (may be empty).
    public static let maxTitleBytes = 512
    /// Longest type identifier (a representation's `type`, an `accepts` entry, an external
    /// drag's type), in UTF-8 bytes; must not be empty.
    public static let maxTypeBytes = 128
    /// Longest representation value (a card's text, a URL), in UTF-8 bytes.
    public static let maxValueBytes = 65_536
    /// Most representations one item carries.
    public static let maxRepresentations = 16
    /// Most entries in a collection's `accepts` list.
    public static let maxAccepts = 64
    /// Most types in one external item of a drag.
    public static let maxExternalTypes = 16
    /// Deepest nesting of groups in inserted items (an item with children is one level).
    public static let maxGroupDepth = 8
    /// Most sections a `createCollection` may create with its collection.
    public static let maxNewSections = 100
}
