/// Type matching for `accepts` lists (R5).
public enum TypeMatching {
    /// Whether an accepts entry matches a type: equal to it, or a dot-prefix of it
    /// (`public.image` accepts `public.image.png`).
    ///
    /// - Complexity: O(length of the strings).
    public static func entry(_ entry: String, matches type: String) -> Bool {
        if entry == type { return true }
        guard type.count > entry.count, type.hasPrefix(entry) else { return false }
        return type[type.index(type.startIndex, offsetBy: entry.count)] == "."
    }

    /// Whether a list of types is accepted: an empty accepts list takes everything; otherwise any
    /// type must match any entry.
    ///
    /// - Complexity: O(accepts × types).
    public static func accepts(_ accepts: [String], types: some Sequence<String>) -> Bool {
        if accepts.isEmpty { return true }
        for type in types where accepts.contains(where: { entry($0, matches: type) }) { return true }
        return false
    }
}
