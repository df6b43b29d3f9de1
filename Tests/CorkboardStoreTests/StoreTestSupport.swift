import CorkboardModel
import CorkboardStorage
import CorkboardStore
import CorkboardTesting
import Foundation
import Synchronization
import Testing

/// Runs `body` with a fresh temporary folder, removed afterwards (immutable flags cleared first).
func withTemporaryFolder<T>(_ body: (String) throws -> T) throws -> T {
    let folder = try makeTemporaryFolder(prefix: "corkboard-store-tests")
    defer {
        if let names = try? FileManager.default.contentsOfDirectory(atPath: folder) {
            for name in names { _ = Immutable.set(false, (folder as NSString).appendingPathComponent(name)) }
        }
        try? FileManager.default.removeItem(atPath: folder)
    }
    return try body(folder)
}

/// ``withTemporaryFolder(_:)`` for a body that awaits (a test that must not hold a cooperative
/// thread while the store's writer works: the process's rooms and clients need the pool too).
func withTemporaryFolder<T>(_ body: (String) async throws -> T) async throws -> T {
    let folder = try makeTemporaryFolder(prefix: "corkboard-store-tests")
    defer {
        if let names = try? FileManager.default.contentsOfDirectory(atPath: folder) {
            for name in names { _ = Immutable.set(false, (folder as NSString).appendingPathComponent(name)) }
        }
        try? FileManager.default.removeItem(atPath: folder)
    }
    return try await body(folder)
}

/// A store in a fresh temporary folder.
func withStore<T>(durability: SQLiteBoardStore.Durability = .full, _ body: (SQLiteBoardStore, String) throws -> T)
    throws -> T
{
    try withTemporaryFolder { folder in
        let store = try SQLiteBoardStore(path: SQLiteBoardStore.path(inDataFolder: folder), durability: durability)
        return try body(store, folder)
    }
}

/// Making files immutable with `chattr` (needs root and a file system with attribute support).
enum Immutable {
    /// Sets or clears the immutable flag; returns `chattr`'s error output, or `nil` when it worked.
    @discardableResult
    static func set(_ immutable: Bool, _ paths: String...) -> String? {
        set(immutable, paths)
    }

    /// Sets or clears the immutable flag on each existing path.
    @discardableResult
    static func set(_ immutable: Bool, _ paths: [String]) -> String? {
        let existing = paths.filter { FileManager.default.fileExists(atPath: $0) }
        guard !existing.isEmpty else { return nil }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["chattr", immutable ? "+i" : "-i"] + existing
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            return "cannot run chattr: \(error)"
        }
        process.waitUntilExit()
        let output = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        return process.terminationStatus == 0 ? nil : "chattr exited \(process.terminationStatus): \(output)"
    }

    /// Whether `chattr +i` works in `folder`; when not, why (for a skip or, under CI, a failure).
    static func unsupportedReason(in folder: String) -> String? {
        let probe = (folder as NSString).appendingPathComponent("chattr-probe")
        _ = FileManager.default.createFile(atPath: probe, contents: Data("x".utf8))
        defer {
            set(false, probe)
            try? FileManager.default.removeItem(atPath: probe)
        }
        if let error = set(true, probe) { return error }
        if FileManager.default.isWritableFile(atPath: probe),
            (try? Data("y".utf8).write(to: URL(fileURLWithPath: probe)))
                != nil
        {
            return "chattr +i did not stop writes to \(probe) (not running as root?)"
        }
        return nil
    }
}
