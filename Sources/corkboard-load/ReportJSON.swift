import Foundation

/// A report that scripts read as JSON: indented, keys sorted, slashes left as they are.
protocol JSONReport: Encodable {}

extension JSONReport {
    /// The report's JSON (`{}` if it cannot be encoded).
    func json() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }
}
