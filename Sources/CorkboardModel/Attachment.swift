/// A file attached to a card (R16): an upload the server stores by its content, named for people.
///
/// The file itself lives on the server (`POST /api/boards/{board}/files?as=attachment`, see
/// docs/PROTOCOL.md "HTTP endpoints"); the card keeps where it is served and what to call it. The
/// `url` is the attachment's identity on its card: a card holds a file once.
///
/// JSON shape: `{"url":"/files/demo/<64 hex>.pdf","name":"Plan.pdf","type":"application/pdf","bytes":1234}`.
public struct Attachment: Hashable, Codable, Sendable {
    /// Where the server serves the file: `/files/<board>/<sha256 in hex>.<png|jpg|gif|webp|bin>`.
    public var url: String
    /// The file's name as it was attached, shown to people and used as the download's name.
    public var name: String
    /// The media type the file was uploaded with, as shown to people (never trusted to serve it).
    public var type: String
    /// The file's size in bytes.
    public var bytes: Int

    /// Creates an attachment.
    public init(url: String, name: String, type: String, bytes: Int) {
        self.url = url
        self.name = name
        self.type = type
        self.bytes = bytes
    }

    /// The stored-file extensions the server serves as images (inline, with a preview); anything
    /// else is stored as `bin` and served only as a download.
    public static let imageExtensions: Set<Substring> = ["png", "jpg", "gif", "webp"]

    /// Whether the server serves this file as an image, so that it can be a card's cover.
    public var isImage: Bool {
        url.split(separator: ".").last.map { Attachment.imageExtensions.contains($0) } ?? false
    }
}

extension Attachment {
    /// What is wrong with this attachment on its own (`field` names the list it came in), or `nil`:
    /// a URL that is not a stored file's, a blank or too long name, a malformed media type, a size
    /// out of range.
    ///
    /// - Complexity: O(length of its strings).
    public func problem(field: String) -> CardProblem? {
        if !Attachment.isStoredFileURL(url) {
            return CardProblem(
                field: field,
                message: "An attachment's url is where the server stored the upload: /files/<board>/<sha256>.<ext>; "
                    + "upload the file first and attach the url it answers.")
        }
        if name.allSatisfy(\.isWhitespace)
            || name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        {
            return CardProblem(
                field: field, message: "An attachment's name cannot be blank or hold control characters.")
        }
        if name.count > CardLimits.attachmentNameCharacters {
            return CardProblem(
                field: field,
                message: "An attachment's name has at most \(CardLimits.attachmentNameCharacters) characters.")
        }
        if !Attachment.isMediaType(type) {
            return CardProblem(
                field: field,
                message: "An attachment's type is a media type such as application/pdf (at most "
                    + "\(CardLimits.attachmentTypeCharacters) characters, lowercase).")
        }
        if bytes < 0 || bytes > CardLimits.attachmentBytes {
            return CardProblem(
                field: field, message: "An attachment's size is from 0 to \(CardLimits.attachmentBytes) bytes.")
        }
        return nil
    }

    /// Whether `url` is `/files/<board id>/<64 lowercase hex digits>.<png|jpg|gif|webp|bin>`.
    ///
    /// - Complexity: O(length of `url`).
    public static func isStoredFileURL(_ url: String) -> Bool {
        guard url.hasPrefix(filesPrefix) else { return false }
        return StoredFile(path: url.dropFirst(filesPrefix.count)) != nil
    }

    /// Where the server serves stored files: `/files/`.
    public static let filesPrefix = "/files/"

    /// The extension of stored files served only as downloads.
    public static let downloadExtension: Substring = "bin"

    /// Whether a stored file may end with `fileExtension`: an image's or `bin`.
    public static func isStoredExtension(_ fileExtension: Substring) -> Bool {
        imageExtensions.contains(fileExtension) || fileExtension == downloadExtension
    }

    /// Whether `byte` is a digit of a stored file's name: `0`-`9` or `a`-`f` (SHA-256 in lowercase hex).
    public static func isNameDigit(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte >= 0x61 && byte <= 0x66)
    }

    /// A stored file's place under `/files/`: `<board>/<sha256 in lowercase hex>.<ext>`, where
    /// `ext` is an image's (`imageExtensions`) or `bin`. The one parser of stored-file names, for
    /// the model's attachment check and the server's file route.
    public struct StoredFile: Sendable, Equatable {
        /// The board whose folder holds the file.
        public var board: Substring
        /// The file's name in that folder: `<sha256>.<ext>`.
        public var name: Substring
        /// `png`, `jpg`, `gif`, `webp` or `bin`.
        public var fileExtension: Substring

        /// Parses `<board>/<64 lowercase hex digits>.<ext>`; `nil` for anything else.
        public init?(path: Substring) {
            let parts = path.split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count == 2, BoardIDRule.isValid(parts[0]) else { return nil }
            let name = parts[1]
            guard let dot = name.firstIndex(of: "."), name.utf8.distance(from: name.startIndex, to: dot) == 64,
                name[..<dot].utf8.allSatisfy(Attachment.isNameDigit)
            else { return nil }
            let ext = name[name.index(after: dot)...]
            guard Attachment.isStoredExtension(ext) else { return nil }
            board = parts[0]
            self.name = name
            fileExtension = ext
        }
    }

    /// Whether `type` is a lowercase `type/subtype` of token characters, at most the limit long.
    public static func isMediaType(_ type: String) -> Bool {
        guard type.utf8.count <= CardLimits.attachmentTypeCharacters else { return false }
        let parts = type.split(separator: "/", omittingEmptySubsequences: false)
        let token: (Substring) -> Bool = { part in
            !part.isEmpty
                && part.utf8.allSatisfy {
                    ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || "!#$&^_.+-".utf8.contains($0)
                }
        }
        return parts.count == 2 && token(parts[0]) && token(parts[1])
    }
}
