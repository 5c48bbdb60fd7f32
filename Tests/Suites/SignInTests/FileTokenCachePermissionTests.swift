import Foundation
import Testing
import WebviewHost
#if canImport(Glibc)
import Glibc
#endif

@testable import SignIn
@testable import TokenCache

/// The file store reads only its owner's file, as OpenSSH does for keys: a file or folder that
/// someone else could have written is refused with a message naming it and its mode, before
/// any token in it is used.
@Suite struct FileTokenCachePermissionTests {
    /// What a test does to the cache file or its folder after a valid cache was saved.
    enum Tampering: String, Sendable, CaseIterable, CustomTestStringConvertible {
        case fileWritableByAll = "file 0666"
        case fileWritableByGroup = "file 0620"
        case folderWritableByAll = "folder 0777"
        case folderWritableByAllSticky = "folder 1777"
        case fileOwnedByNobody = "file owned by nobody"
        case folderOwnedByNobody = "folder owned by nobody"

        var testDescription: String { rawValue }
    }

    let nobody: uid_t = 65534

    func savedCache() throws -> (directory: URL, folder: URL, storage: FileTokenCacheStorage) {
        let directory = try TokenCacheScenario.temporaryDirectory()
        let folder = directory.appendingPathComponent("org.example.App")
        let storage = FileTokenCacheStorage(fileURL: folder.appendingPathComponent("cache.json"))
        try storage.save(Data(#"{"Account": {}}"#.utf8))
        return (directory, folder, storage)
    }

    @Test(arguments: Tampering.allCases)
    func aFileSomeoneElseCouldHaveWrittenIsRefused(_ tampering: Tampering) throws {
        let (directory, folder, storage) = try savedCache()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = storage.fileURL.path
        let (path, mode): (String, String?) =
            switch tampering {
            case .fileWritableByAll: (file, "0666")
            case .fileWritableByGroup: (file, "0620")
            case .folderWritableByAll: (folder.path, "0777")
            case .folderWritableByAllSticky: (folder.path, "1777")
            case .fileOwnedByNobody: (file, nil)
            case .folderOwnedByNobody: (folder.path, nil)
            }
        if let mode {
            #expect(chmod(path, mode_t(mode, radix: 8)!) == 0)
        } else {
            try #require(geteuid() == 0, "chown to nobody needs root, as the test machines run")
            #expect(chown(path, nobody, gid_t(nobody)) == 0)
        }

        let error = try #require(throws: TokenCacheStorageError.self) { try storage.load() }
        #expect(error.code == .unsafePermissions)
        #expect(error.message.contains(path), "names the file or folder: \(error.message)")
        if let mode {
            #expect(error.message.contains("mode \(mode)"), "\(error.message)")
            #expect(error.message.contains(tampering == .fileWritableByAll || tampering == .fileWritableByGroup ? "chmod 600" : "chmod 700"))
        } else {
            #expect(error.message.contains("nobody"), "\(error.message)")
        }
        // No write goes into a folder others can write either.
        if tampering == .folderWritableByAll || tampering == .folderOwnedByNobody || tampering == .folderWritableByAllSticky {
            #expect(throws: TokenCacheStorageError.self) { try storage.save(Data("{}".utf8)) }
        }
    }

    @Test func aFolderAboveThatOthersCanWriteIsRefusedUnlessSticky() throws {
        let (directory, folder, storage) = try savedCache()
        defer { try? FileManager.default.removeItem(at: directory) }
        // directory/org.example.App/cache.json: through a writable directory, the app's folder could be swapped.
        #expect(chmod(directory.path, 0o777) == 0)
        let error = try #require(throws: TokenCacheStorageError.self) { try storage.load() }
        #expect(error.code == .unsafePermissions)
        #expect(error.message.contains(directory.standardizedFileURL.path) && error.message.contains("mode 0777"), "\(error.message)")
        // With the sticky bit (as /tmp) nobody can rename another's folder: accepted.
        #expect(chmod(directory.path, 0o1777) == 0)
        #expect(try storage.load() != nil)
        #expect(FileManager.default.fileExists(atPath: folder.path))
    }

    @Test(arguments: ["0600", "0400", "0644"])
    func aFileOnlyItsOwnerCanWriteIsRead(_ mode: String) throws {
        // 0644: what msal-python's documented file recipe leaves; others could read it, but not plant tokens.
        let (directory, _, storage) = try savedCache()
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect(chmod(storage.fileURL.path, mode_t(mode, radix: 8)!) == 0)
        #expect(try storage.load() == Data(#"{"Account": {}}"#.utf8))
    }

    @Test func aRefusedFileFailsTheAppWithTheStoresMessage() async throws {
        let (directory, _, storage) = try savedCache()
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect(chmod(storage.fileURL.path, 0o666) == 0)
        let app = try PublicClientApplication(configuration: .init(
            clientID: "permissions", authority: URL(string: "https://127.0.0.1/tenant")!,
            redirectURI: URL(string: "http://127.0.0.1/callback")!, tokenCacheStorage: storage))
        do {
            _ = try await app.allAccounts()
            Issue.record("a cache file anyone can write was read")
        } catch {
            #expect(error.code == .providerUnavailable)
            #expect((error.underlyingError as? TokenCacheStorageError)?.code == .unsafePermissions)
            #expect(error.message.contains(storage.fileURL.path))
        }
    }

    /// The store's locks live in the cache's folder: in one others can write, neither the writer
    /// lock nor a renewal's lock is taken (nor its file made there); once the folder is the
    /// person's own again, both are.
    @Test func noLockIsTakenInAFolderOthersCanWrite() async throws {
        let (directory, folder, storage) = try savedCache()
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect(chmod(folder.path, 0o777) == 0)
        let writer = try #require(throws: TokenCacheStorageError.self) { try storage.withWriterLock { () throws(TokenCacheStorageError) in true } }
        #expect(writer.code == .unsafePermissions)
        #expect(writer.message.contains(folder.path) && writer.message.contains("mode 0777"), "\(writer.message)")
        let renewal = try #require(storage.refreshLock(for: "refresh alice"))
        var failure: TokenCacheStorageError?
        do throws(TokenCacheStorageError) {
            _ = try await renewal.acquire()
        } catch {
            failure = error
        }
        #expect(failure?.code == .unsafePermissions)
        #expect(failure?.message.contains(folder.path) == true, "\(failure?.message ?? "")")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["cache.json"], "no lock file was made")

        #expect(chmod(folder.path, 0o700) == 0)
        #expect(try storage.withWriterLock { () throws(TokenCacheStorageError) in true })
        let held = try await renewal.acquire()
        held.release()
        #expect(try Set(FileManager.default.contentsOfDirectory(atPath: folder.path)) == ["cache.json", "cache.json.lock", renewal.url.lastPathComponent])
    }
}
