import Foundation

/// Whether the tests run under CI (`CI` set to anything but `false` or empty): tests that would
/// skip for want of a facility (root, `chattr`) fail there instead.
public var isCI: Bool {
    let value = ProcessInfo.processInfo.environment["CI"] ?? ""
    return !value.isEmpty && value.lowercased() != "false"
}

/// Creates a fresh, empty folder under the system's temporary directory and returns its path;
/// the caller removes it.
public func makeTemporaryFolder(prefix: String) throws -> String {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    return folder
}
