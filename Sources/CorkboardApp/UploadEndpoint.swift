import CorkboardModel
import CorkboardProtocol
import CorkboardServer
import CorkboardStorage
import CorkboardTransport
import Crypto
import Foundation

/// Uploads for cards: `POST /api/boards/{board}/files?key=KEY` (or `?device=DEVICE` for a person,
/// issue 45) stores an image under
/// `<files>/<board>/<sha256>.<ext>` and answers its URL; with `&as=attachment` it takes any file
/// (what is not exactly a PNG, JPEG, GIF or WebP is stored as `<sha256>.bin`). `GET
/// /files/{board}/{name}` serves images inline and everything else only as a download.
///
/// See docs/PROTOCOL.md, "HTTP endpoints", for every status and error code.
struct UploadEndpoint: Sendable {
    /// The image types accepted, with their file extension and leading bytes.
    enum ImageType: String, CaseIterable, Sendable {
        case png = "image/png"
        case jpeg = "image/jpeg"
        case gif = "image/gif"
        case webp = "image/webp"

        var fileExtension: String {
            switch self {
            case .png: return "png"
            case .jpeg: return "jpg"
            case .gif: return "gif"
            case .webp: return "webp"
            }
        }

        /// Whether `bytes` start the way a file of this type does.
        func matches(_ bytes: [UInt8]) -> Bool {
            func starts(_ prefix: [UInt8], at offset: Int = 0) -> Bool {
                bytes.count >= offset + prefix.count && Array(bytes[offset..<(offset + prefix.count)]) == prefix
            }
            switch self {
            case .png: return starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
            case .jpeg: return starts([0xFF, 0xD8, 0xFF])
            case .gif: return starts(Array("GIF87a".utf8)) || starts(Array("GIF89a".utf8))
            case .webp: return starts(Array("RIFF".utf8)) && starts(Array("WEBP".utf8), at: 8)
            }
        }

        init?(fileExtension: Substring) {
            guard let type = Self.allCases.first(where: { $0.fileExtension == fileExtension }) else { return nil }
            self = type
        }
    }

    let directory: BoardDirectory
    /// `<data>/files`.
    let folder: String
    /// The largest upload accepted, in bytes.
    let maxBytes: Int

    /// The route prefix of uploads (`/api/boards/{board}/files`).
    static let uploadPrefix = "/api/boards/"
    /// The route prefix of stored files.
    static let servePrefix = Attachment.filesPrefix

    /// `POST /api/boards/{board}/files?key=KEY`.
    func upload(_ request: HTTPRequest) async -> HTTPResponse {
        let parts = request.path.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 5, parts[0].isEmpty, parts[1] == "api", parts[2] == "boards", parts[4] == "files",
            BoardIDRule.isValid(parts[3])
        else {
            return HTTPJSON.error(.notFound, "uploads go to /api/boards/{board}/files")
        }
        let board = String(parts[3])
        guard request.isOriginAllowed else {
            return HTTPJSON.error(
                .badOrigin,
                "uploads are accepted from this server's own pages only (Origin \(request.header("origin") ?? "-"))")
        }
        guard let room = await directory.openRoom(board) else {
            return HTTPJSON.error(.unknownBoard, "there is no board \"\(board)\"; check the link")
        }
        let key = request.query("key").flatMap { $0.isEmpty ? nil : $0 }
        let (keys, people) = (room.keys, room.people)
        var role = keys.role(for: key)
        var why: String?
        if let opened = role, opened != .admin, !people.linksEnabled, !keys.isOpen {
            // The anyone-with-the-link row is off: the edit key opens nothing (issue 45).
            role = nil
            why = "this board's share links were turned off; ask an admin for an invite"
        }
        if key == nil, let device = request.query("device"), DeviceKey.isValid(device) {
            // A person uploads with their device key, in their role (issue 45).
            let digest = DeviceKey.digest(device)
            role = people.people.last { $0.device == digest && !$0.removed }?.role
            why = role == nil ? "this browser has no invite for \(board)" : nil
        }
        guard role?.may(.edit) == true else {
            let reason =
                switch (key, role) {
                case (_, let role?): "a \(role.rawValue) cannot upload files to \(board); ask an admin for edit access"
                case (nil, nil): why ?? "uploading needs the board's edit key (?key=…) or an invited device (?device=…)"
                case (_, nil): why ?? "this key cannot edit \(board)"
                }
            return HTTPJSON.error(.badKey, reason)
        }
        let declared = (request.header("content-type") ?? "").split(separator: ";").first.map {
            $0.trimmingCharacters(in: .whitespaces).lowercased()
        }
        let asAttachment = request.query("as") == "attachment"
        if let kind = request.query("as"), !asAttachment {
            return HTTPJSON.error(
                .badRequest, "as=\(kind.prefix(40)) is not known; leave it out for an image, or send as=attachment")
        }
        let image = declared.flatMap(ImageType.init(rawValue:))
        if !asAttachment, image == nil {
            let accepted = ImageType.allCases.map(\.rawValue).joined(separator: ", ")
            return HTTPJSON.error(
                .unsupportedType,
                "Content-Type must be one of \(accepted), not \(request.header("content-type") ?? "none"); "
                    + "any other file is attached with ?as=attachment")
        }
        guard !request.body.isEmpty else { return HTTPJSON.error(.badRequest, "the body is empty: send the file") }
        guard request.body.count <= maxBytes else {
            return HTTPJSON.error(.tooLarge, "the file is \(request.body.count) bytes; the limit is \(maxBytes)")
        }
        let stored: String
        if let image, image.matches(request.body) {
            stored = image.fileExtension
        } else if asAttachment {
            // Anything that is not exactly the image it says it is (a PDF, HTML, SVG, an image with a
            // lying type) is kept as `bin` and only ever served as a download.
            stored = String(Attachment.downloadExtension)
        } else {
            return HTTPJSON.error(
                .unsupportedType,
                "the body is not a \(image!.fileExtension.uppercased()) image although Content-Type says \(image!.rawValue)"
            )
        }
        let name = SHA256.hex(request.body) + "." + stored
        do {
            try store(request.body, board: board, name: name)
        } catch {
            return HTTPJSON.error(.internal, "the file could not be stored: \(error.localizedDescription)")
        }
        let type = declared.flatMap { Attachment.isMediaType($0) ? $0 : nil } ?? "application/octet-stream"
        return HTTPJSON.response(
            Uploaded(
                url: Self.servePrefix + board + "/" + name, type: type, bytes: request.body.count,
                image: stored != Attachment.downloadExtension),
            status: 201)
    }

    /// The answer to an upload.
    struct Uploaded: Encodable {
        /// Where the image is served, relative to the server: `/files/<board>/<sha256>.<ext>`.
        var url: String
        /// Its content type as declared (`application/octet-stream` when none or malformed).
        var type: String
        /// Its size.
        var bytes: Int
        /// Whether it is served as an image (inline, able to be a card's cover); otherwise only as a
        /// download.
        var image: Bool
    }

    /// Writes the file unless it exists (the name is its content): a temporary file, then rename.
    private func store(_ bytes: [UInt8], board: String, name: String) throws {
        let dir = folder + "/" + board
        let path = dir + "/" + name
        if FileManager.default.fileExists(atPath: path) { return }
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let temporary = dir + "/.upload-" + UUID().uuidString
        do {
            try Data(bytes).write(to: URL(fileURLWithPath: temporary))
            if rename(temporary, path) != 0 {
                throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path])
            }
        } catch {
            try? FileManager.default.removeItem(atPath: temporary)
            throw error
        }
    }

    /// `GET /files/{board}/{sha256}.{ext}[?name=NAME]`: the stored file, cached for good (its name
    /// is its content). Images are served with their type; a `bin` file always as
    /// `application/octet-stream` with `Content-Disposition: attachment`, so that no upload ever runs
    /// as a page or a script on this origin. `name` is the download's file name.
    func serve(_ request: HTTPRequest) async -> HTTPResponse {
        guard let file = Attachment.StoredFile(path: request.path.dropFirst(Attachment.filesPrefix.count)) else {
            return HTTPJSON.error(.notFound, "no file \(request.path)")
        }
        // An image's type, or nil for a download (`bin`).
        let type = ImageType(fileExtension: file.fileExtension)
        let path = folder + "/" + file.board + "/" + file.name
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), !isFolder.boolValue else {
            return HTTPJSON.error(.notFound, "no file \(request.path)")
        }
        var headers = [
            HTTPHeader("cache-control", "public, max-age=31536000, immutable"),
            HTTPHeader("x-content-type-options", "nosniff"),
            HTTPHeader("content-security-policy", "default-src 'none'; sandbox"),
        ]
        let name = request.query("name")
        if type == nil || name != nil {
            headers.append(HTTPHeader("content-disposition", Self.attachmentDisposition(name ?? "download")))
        }
        return .file(path, contentType: type?.rawValue ?? "application/octet-stream", headers: headers)
    }

    /// `attachment; filename="…"; filename*=UTF-8''…` for a download named `name`: the plain
    /// `filename` keeps printable ASCII other than quotes and backslashes (others become `_`), the
    /// encoded one keeps the whole name, percent-encoded (RFC 6266, RFC 8187).
    static func attachmentDisposition(_ name: String) -> String {
        let trimmed = String(name.unicodeScalars.filter { $0.properties.generalCategory != .control }.prefix(255))
        let plain = String(
            trimmed.unicodeScalars.map { scalar -> Character in
                scalar.isASCII && scalar.value >= 0x20 && scalar != "\"" && scalar != "\\" ? Character(scalar) : "_"
            })
        let unreserved = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~".utf8)
        let encoded = trimmed.utf8.map {
            unreserved.contains($0) ? String(UnicodeScalar($0)) : String(format: "%%%02X", $0)
        }
        .joined()
        return
            "attachment; filename=\"\(plain.isEmpty ? "download" : plain)\"; filename*=UTF-8''\(encoded.isEmpty ? "download" : encoded)"
    }
}
