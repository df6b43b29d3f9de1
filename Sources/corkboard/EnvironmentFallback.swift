import Foundation

/// Reads `CORKBOARD_*` environment variables for options the user did not pass on the command line.
///
/// Command-line values always win; an environment value that cannot be parsed is an error that
/// names the variable, never a silent fallback to the default.
struct EnvironmentFallback {
    var environment: [String: String] = ProcessInfo.processInfo.environment

    /// An error naming the environment variable whose value could not be used.
    struct InvalidValue: Error, CustomStringConvertible {
        let variable: String
        let value: String
        let expected: String
        var description: String { "environment variable \(variable)='\(value)' is not \(expected)" }
    }

    func string(_ given: String?, _ variable: String, default fallback: String) -> String {
        given ?? nonEmpty(variable) ?? fallback
    }

    func optionalString(_ given: String?, _ variable: String) -> String? {
        given ?? nonEmpty(variable)
    }

    func int(_ given: Int?, _ variable: String, default fallback: Int) throws -> Int {
        if let given { return given }
        guard let raw = nonEmpty(variable) else { return fallback }
        guard let value = Int(raw) else { throw InvalidValue(variable: variable, value: raw, expected: "an integer") }
        return value
    }

    /// A switch: on when `given` (the flag was passed), else when the variable says `1`, `true`
    /// or `yes` (`0`, `false`, `no` or empty: off).
    func flag(_ given: Bool, _ variable: String) throws -> Bool {
        if given { return true }
        guard let raw = nonEmpty(variable) else { return false }
        switch raw.lowercased() {
        case "1", "true", "yes": return true
        case "0", "false", "no": return false
        default: throw InvalidValue(variable: variable, value: raw, expected: "1 or 0 (true or false)")
        }
    }

    /// A comma-separated list, e.g. `CORKBOARD_ALLOW_ORIGINS=https://a.example,https://b.example`.
    func list(_ given: [String], _ variable: String) -> [String] {
        if !given.isEmpty { return given }
        guard let raw = nonEmpty(variable) else { return [] }
        return raw.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    private func nonEmpty(_ variable: String) -> String? {
        guard let value = environment[variable], !value.isEmpty else { return nil }
        return value
    }
}
