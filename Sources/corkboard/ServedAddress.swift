import Foundation

/// The address the last `corkboard serve` of a data folder listened on, kept in the folder
/// (`served-address`), so that `corkboard boards` prints share links that reach that server: its
/// scheme, host and port, whatever flags or environment it was started with.
enum ServedAddress {
    /// The file in `folder` that holds the address.
    static func path(inDataFolder folder: String) -> String { folder + "/served-address" }

    /// Records `base` (e.g. `http://127.0.0.1:8080/`) for the folder's later `corkboard boards`.
    ///
    /// - Throws: the file system's error when the folder cannot be written.
    static func record(_ base: String, inDataFolder folder: String) throws {
        try Data((base + "\n").utf8).write(to: URL(fileURLWithPath: path(inDataFolder: folder)), options: .atomic)
    }

    /// The recorded address, or `nil` when no server recorded one (or the file is not an address).
    static func read(inDataFolder folder: String) -> String? {
        guard let data = FileManager.default.contents(atPath: path(inDataFolder: folder)) else { return nil }
        let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard let url = URL(string: text), ["http", "https"].contains(url.scheme), url.host != nil else { return nil }
        return text.hasSuffix("/") ? text : text + "/"
    }

    /// The base of the share links `corkboard boards` prints: `--base-url`, else
    /// `CORKBOARD_BASE_URL`, else what the folder's server recorded, else `CORKBOARD_HOST` and
    /// `CORKBOARD_PORT` (what `corkboard serve` would use), else `http://127.0.0.1:8080/`.
    static func linkBase(given: String?, dataFolder: String, environment: EnvironmentFallback = EnvironmentFallback())
        -> String
    {
        if let given = environment.optionalString(given, "CORKBOARD_BASE_URL") {
            return given.hasSuffix("/") ? given : given + "/"
        }
        if let recorded = read(inDataFolder: dataFolder) { return recorded }
        let host = environment.string(nil, "CORKBOARD_HOST", default: "127.0.0.1")
        let port = (try? environment.int(nil, "CORKBOARD_PORT", default: 8080)) ?? 8080
        let scheme = environment.optionalString(nil, "CORKBOARD_TLS_CERT") == nil ? "http" : "https"
        return "\(scheme)://\(ServeSettings.displayHost(host)):\(port)/"
    }
}
