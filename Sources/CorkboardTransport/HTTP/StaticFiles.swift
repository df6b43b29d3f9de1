#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Maps URL paths to files under a web root, never escaping it.
struct StaticFiles: Sendable {
    /// The web root, without a trailing slash.
    let root: String

    init(root: String) {
        var r = root
        while r.count > 1 && r.hasSuffix("/") { r.removeLast() }
        self.root = r
    }

    /// The file to serve for `urlPath` (already stripped of its query), or `nil` if there is none.
    ///
    /// `/` and directories map to their `index.html`. Paths with `..`, empty-dot components, a NUL
    /// byte or a backslash are refused; hidden files (leading `.`) are not served. Symbolic links
    /// are followed only while they stay inside the root: the answer is the resolved path, and a
    /// file whose resolved path lies outside the root's (a link to `/etc/passwd`) is not served.
    func resolve(_ urlPath: String) -> String? {
        guard let candidate = candidate(urlPath), let real = Self.realPath(candidate),
            let realRoot = Self.realPath(root)
        else { return nil }
        let prefix = realRoot == "/" ? "/" : realRoot + "/"
        return real.hasPrefix(prefix) ? real : nil
    }

    private static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    private func candidate(_ urlPath: String) -> String? {
        guard urlPath.hasPrefix("/"), !urlPath.contains("\0"), !urlPath.contains("\\") else { return nil }
        let parts = urlPath.split(separator: "/", omittingEmptySubsequences: true)
        for part in parts where part.hasPrefix(".") { return nil }
        var path = root + "/" + parts.joined(separator: "/")
        if urlPath.hasSuffix("/") || parts.isEmpty { path += parts.isEmpty ? "index.html" : "/index.html" }
        switch Self.kind(path) {
        case .file: return path
        case .directory:
            let index = path + "/index.html"
            return Self.kind(index) == .file ? index : nil
        case .missing: return nil
        }
    }

    private enum Kind { case file, directory, missing }

    private static func kind(_ path: String) -> Kind {
        var st = stat()
        guard stat(path, &st) == 0 else { return .missing }
        switch st.st_mode & S_IFMT {
        case S_IFREG: return .file
        case S_IFDIR: return .directory
        default: return .missing
        }
    }
}

/// Content types by file extension.
enum MIME {
    /// The `Content-Type` for a file name; `application/octet-stream` when unknown.
    static func type(forPath path: String) -> String {
        guard let dot = path.lastIndex(of: "."), !path[dot...].contains("/") else { return "application/octet-stream" }
        return table[path[path.index(after: dot)...].lowercased()] ?? "application/octet-stream"
    }

    static let table: [String: String] = [
        "html": "text/html; charset=utf-8",
        "htm": "text/html; charset=utf-8",
        "js": "text/javascript; charset=utf-8",
        "mjs": "text/javascript; charset=utf-8",
        "css": "text/css; charset=utf-8",
        "json": "application/json",
        "map": "application/json",
        "txt": "text/plain; charset=utf-8",
        "svg": "image/svg+xml",
        "png": "image/png",
        "jpg": "image/jpeg",
        "jpeg": "image/jpeg",
        "gif": "image/gif",
        "webp": "image/webp",
        "ico": "image/x-icon",
        "woff": "font/woff",
        "woff2": "font/woff2",
        "wasm": "application/wasm",
        "webmanifest": "application/manifest+json",
    ]
}
