internal import CLibSecret
import Crypto
public import Foundation
import GLibSupport
import Synchronization
import WebviewHost

/// Keeps the cache in the person's keyring through the Secret Service (libsecret; GNOME Keyring,
/// KWallet), as MSAL does on Linux: one item in the default collection, found by its schema name
/// and attributes. This is the default store.
///
/// Two apps of one publisher share a cache by using the same ``schemaName`` and ``attributes``;
/// different attributes keep caches apart. The item's secret is the cache JSON.
///
/// Every call is libsecret's synchronous form, made on a worker thread of its own (never on the
/// GTK main thread), under a time limit (``timeout``): a locked collection whose unlock
/// prompt nobody answers, or a Secret Service that never replies, ends in `timedOut`, not a hang.
/// No session bus or no Secret Service is `unavailable`; a collection the person refused to
/// unlock is `locked`. The library never falls back to a plain file by itself: an app that
/// wants that chooses ``FileTokenCacheStorage`` explicitly.
///
/// Before a sign-in, ``prepare()`` unlocks the default collection (or has one created), so the
/// desktop's prompt shows before the sign-in page, not after the person signed in.
public struct SecretServiceTokenCacheStorage: TokenCacheStorage {
    /// The schema used when none is given.
    public static let defaultSchemaName = "io.github.webviewhost.TokenCache"

    /// The libsecret schema name (stored as the item's `xdg:schema` attribute).
    public let schemaName: String
    /// The attributes that find the item (all strings).
    public let attributes: [String: String]
    /// The name the keyring shows for the item (seen in Seahorse; holds nothing secret).
    public let label: String
    /// The longest one Secret Service call may take, an unlock prompt included.
    public let timeout: TimeInterval
    /// The writer lock, a file in `$XDG_RUNTIME_DIR` (else the cache folder) named after the
    /// schema and attributes, so every process using the same item uses the same lock.
    public let lockFile: TokenCacheLockFile
    /// The sandbox the app runs in, which decides how libsecret reaches the keyring.
    private let sandbox: WebviewSandbox? = WebviewEnvironment.current.sandbox

    /// - Throws: `invalidConfiguration` for an empty schema name, no attributes, or an empty
    ///   attribute name (libsecret would refuse them, or every app would share one item).
    public init(
        schemaName: String = Self.defaultSchemaName, attributes: [String: String], label: String = "Sign-in tokens",
        timeout: TimeInterval = 30
    ) throws(TokenCacheStorageError) {
        guard !schemaName.isEmpty, !attributes.isEmpty, attributes.keys.allSatisfy({ !$0.isEmpty }) else {
            throw TokenCacheStorageError(
                .invalidConfiguration,
                "A Secret Service token cache needs a schema name and at least one attribute, e.g. [\"client_id\": \"my-app\"].")
        }
        self.schemaName = schemaName
        self.attributes = attributes
        self.label = label
        self.timeout = timeout
        let identity = ([schemaName] + attributes.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }).joined(separator: "\n")
        let digest = SHA256.hash(data: Data(identity.utf8)).prefix(12).map { String(format: "%02x", $0) }.joined()
        let environment = ProcessInfo.processInfo.environment
        let folder: URL
        if let runtime = environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/"), FileManager.default.fileExists(atPath: runtime) {
            folder = URL(fileURLWithPath: runtime).appendingPathComponent("webviewhost-token-cache")
        } else if let cache = environment["XDG_CACHE_HOME"], cache.hasPrefix("/") {
            folder = URL(fileURLWithPath: cache).appendingPathComponent("webviewhost-token-cache")
        } else {
            folder = URL(fileURLWithPath: environment["HOME"] ?? NSHomeDirectory()).appendingPathComponent(".cache/webviewhost-token-cache")
        }
        lockFile = TokenCacheLockFile(url: folder.appendingPathComponent("\(digest).lock"), timeout: timeout)
    }

    public func load() throws(TokenCacheStorageError) -> Data? {
        let result: Result<Data?, TokenCacheStorageError> = call("read") { keys, values, count, cancellable, error in
            guard let secret = wvh_secret_lookup(schemaName, keys, values, count, cancellable, error) else {
                // Nothing, or an item whose collection stayed locked (the unlock prompt was
                // dismissed): libsecret answers both without an error. Saving over a cache we
                // could not read would lose it, so a locked one is an error.
                guard error.pointee == nil, wvh_secret_exists(schemaName, keys, values, count, cancellable, error) != 0 else {
                    return .success(nil)
                }
                return .failure(TokenCacheStorageError(
                    .locked, "The keyring holding the sign-in tokens is locked and was not unlocked; unlock it and try again."))
            }
            defer { wvh_secret_free(secret) }
            return .success(Data(bytes: secret, count: strlen(secret)))
        }
        return try result.get()
    }

    public func save(_ data: Data) throws(TokenCacheStorageError) {
        let text = String(decoding: data, as: UTF8.self)
        let result: Result<Void, TokenCacheStorageError> = call("write") { keys, values, count, cancellable, error in
            if wvh_secret_store(schemaName, keys, values, count, label, text, cancellable, error) != 0 { return .success(()) }
            return .failure(TokenCacheStorageError(
                .locked, "The keyring did not store the sign-in tokens (its collection stayed locked); unlock the keyring and try again."))
        }
        try result.get()
    }

    /// Unlocks the default collection (the desktop's unlock prompt), or creates one when there is
    /// none (the desktop's "new keyring" prompt), within ``timeout``, then reads the item.
    ///
    /// - Throws: `locked` when the person did not unlock (or create) the keyring, `unavailable`
    ///   without a Secret Service, `timedOut` when the prompt was not answered in time.
    ///
    /// In a Flatpak sandbox there is no collection to open: libsecret keeps the item in its file
    /// backend (`$XDG_DATA_HOME/keyrings/default.keyring` in the app's own data folder, encrypted
    /// with a key the Secret portal gives per app), or talks to the Secret Service when the app
    /// may (`--talk-name=org.freedesktop.secrets`); `prepare()` then only reads the item.
    public func prepare() throws(TokenCacheStorageError) {
        if sandbox?.kind == .flatpak {
            _ = try load()
            return
        }
        let result: Result<Void, TokenCacheStorageError> = call("open") { _, _, _, cancellable, error in
            if wvh_secret_open_default_collection(cancellable, error) == 0 {
                return .failure(TokenCacheStorageError(
                    .locked, "The keyring that keeps the sign-in tokens is locked (or there is none) and was not unlocked; unlock it and try again."))
            }
            return .success(())  // on -1, `call` reports the GError it set
        }
        try result.get()
        _ = try load()
    }

    public func refreshLock(for key: String) -> TokenCacheLockFile? {
        lockFile.sibling(for: key)
    }

    /// Deletes the item; `true` when there was one.
    @discardableResult
    public func clear() throws(TokenCacheStorageError) -> Bool {
        let result: Result<Bool, TokenCacheStorageError> = call("clear") { keys, values, count, cancellable, error in
            .success(wvh_secret_clear(schemaName, keys, values, count, cancellable, error) != 0)
        }
        return try result.get()
    }

    public func withWriterLock<T>(_ body: () throws(TokenCacheStorageError) -> T) throws(TokenCacheStorageError) -> T {
        try lockFile.withLock(body)
    }

    /// Runs one libsecret call on a worker thread, with the attributes as C arrays and a
    /// cancellable, and waits for it at most ``timeout``; a GError it sets becomes a
    /// ``TokenCacheStorageError``.
    ///
    /// Why a thread and a wait, not only the cancellable: while an unlock prompt is showing,
    /// libsecret's synchronous calls do not return when cancelled (they wait for the prompt to
    /// end, which nobody may ever do). On time-out the call is cancelled and left to finish on its
    /// thread, which owns everything it uses. A `store` that finishes after that (the person
    /// unlocked the keyring late) may still write its content.
    ///
    /// In a Flatpak sandbox the first call of the process gets the app's key from the Secret
    /// portal first (``SecretPortalKey``), and a call that runs out of time there is not
    /// cancelled: libsecret 0.20's portal code deadlocks the thread that cancels it while it
    /// waits for the portal's answer.
    private func call<T: Sendable>(
        _ verb: String,
        _ body: @escaping LibsecretCall<T>
    ) -> Result<T, TokenCacheStorageError> {
        let inFlatpak = sandbox?.kind == .flatpak
        var outcome: Result<T, TokenCacheStorageError>
        if inFlatpak, let failure = SecretPortalKey.retrieve(within: timeout, start: { start("read", Self.lookupBody(schemaName)) }) {
            outcome = .failure(failure)
        } else {
            let call = start(verb, body)
            outcome = call.wait(timeout: timeout, cancelling: !inFlatpak) ?? .failure(Self.timedOut(verb: verb, timeout: timeout))
        }
        guard let sandbox, inFlatpak, case .failure(let failure) = outcome, failure.code == .unavailable else { return outcome }
        return .failure(Self.inSandbox(failure, sandbox))
    }

    /// Starts `body` on a worker thread of its own (a `GLibWorkerThread` job, which libsecret's
    /// synchronous calls leave alone: they iterate a main context they push themselves); its
    /// outcome arrives in the returned call.
    private func start<T: Sendable>(
        _ verb: String,
        _ body: @escaping LibsecretCall<T>
    ) -> SecretServiceCall<T> {
        let pairs = attributes.sorted { $0.key < $1.key }.map { [$0.key, $0.value] }
        let timeout = timeout
        let call = SecretServiceCall<T>()
        GLibWorkerThread.run(named: "TokenCache keyring") {
            let keys = pairs.map { UnsafePointer(strdup($0[0])) }
            let values = pairs.map { UnsafePointer(strdup($0[1])) }
            var error: UnsafeMutablePointer<GError>?
            var result = keys.withUnsafeBufferPointer { keyBuffer in
                values.withUnsafeBufferPointer { valueBuffer in
                    body(keyBuffer.baseAddress!, valueBuffer.baseAddress!, Int32(pairs.count), call.cancellable, &error)
                }
            }
            if let error {
                result = .failure(Self.failure(error, verb: verb, timeout: timeout))
                g_error_free(error)
            }
            for pointer in keys + values { free(UnsafeMutablePointer(mutating: pointer)) }
            call.finish(result)
        }
        return call
    }

    /// A lookup that only reads (the portal key step runs it; nothing is written twice when it is
    /// started again).
    private static func lookupBody(_ schemaName: String) -> LibsecretCall<Void> {
        { keys, values, count, cancellable, error in
            if let secret = wvh_secret_lookup(schemaName, keys, values, count, cancellable, error) { wvh_secret_free(secret) }
            return .success(())
        }
    }

    /// What a Flatpak sandbox lacks when the keyring cannot be reached from it.
    private static func inSandbox(_ failure: TokenCacheStorageError, _ sandbox: WebviewSandbox) -> TokenCacheStorageError {
        TokenCacheStorageError(
            .unavailable,
            "\(failure.message) This app runs in a Flatpak sandbox (\(sandbox.applicationID ?? "unknown app id")), where the keyring is "
                + "reached through the Secret portal: the desktop needs xdg-desktop-portal with a secret backend (GNOME Keyring 3.36 or later, "
                + "or KWallet). Tokens kept in the keyring outside the sandbox are not visible here: the person signs in once.")
    }

    private static func timedOut(verb: String, timeout: TimeInterval) -> TokenCacheStorageError {
        TokenCacheStorageError(
            .timedOut,
            "The Secret Service did not \(verb) the sign-in tokens within \(Int(timeout)) seconds (an unlock prompt nobody answered?); "
                + "unlock the keyring and try again.")
    }

    private static func failure(_ error: UnsafeMutablePointer<GError>, verb: String, timeout: TimeInterval) -> TokenCacheStorageError {
        if wvh_error_is_cancelled(error) != 0 { return timedOut(verb: verb, timeout: timeout) }
        if wvh_secret_error_is_locked(error) != 0 {
            return TokenCacheStorageError(.locked, "The keyring holding the sign-in tokens is locked and was not unlocked; unlock it and try again.")
        }
        let detail = String(cString: error.pointee.message)
        return TokenCacheStorageError(
            .unavailable,
            "The Secret Service (the keyring, e.g. GNOME Keyring) could not \(verb) the sign-in tokens: \(detail). "
                + "Start the keyring in the desktop session, or choose another TokenCacheStorage.")
    }
}

/// One libsecret call, run on a worker thread: it gets the item's attribute names and values (C
/// arrays of `count`), the call's cancellable and a GError to set.
typealias LibsecretCall<T> = @Sendable (
    _ keys: UnsafePointer<UnsafePointer<CChar>?>, _ values: UnsafePointer<UnsafePointer<CChar>?>, _ count: Int32,
    _ cancellable: UnsafeMutablePointer<GCancellable>?, _ error: UnsafeMutablePointer<UnsafeMutablePointer<GError>?>
) -> Result<T, TokenCacheStorageError>

/// One libsecret call in flight: the `GCancellable` it runs with, and the outcome its worker
/// thread hands to the caller waiting for it.
///
/// The worker and the caller each hold this object; the cancellable is released once, in `deinit`,
/// when both are done with it, so a late cancel (on time-out) never reaches a released object.
final class SecretServiceCall<T: Sendable>: @unchecked Sendable {
    // @unchecked: `cancellable` is set once and a GCancellable may be cancelled from any thread;
    // `outcome` is behind its Mutex.
    let cancellable: UnsafeMutablePointer<GCancellable>? = g_cancellable_new()
    private let outcome = Mutex<Result<T, TokenCacheStorageError>?>(nil)
    private let finished = DispatchSemaphore(value: 0)

    deinit {
        if let cancellable { g_object_unref(cancellable) }
    }

    /// On the worker thread: the call's result, handed to ``wait(timeout:)``.
    func finish(_ result: Result<T, TokenCacheStorageError>) {
        outcome.withLock { $0 = result }
        finished.signal()
    }

    /// The result once the worker finished, or `nil` after `timeout` (the call is then cancelled
    /// when `cancelling`, and left to end on its thread).
    func wait(timeout: TimeInterval, cancelling: Bool = true) -> Result<T, TokenCacheStorageError>? {
        guard finished.wait(timeout: .now() + timeout) == .success, let result = outcome.withLock({ $0 }) else {
            if cancelling { g_cancellable_cancel(cancellable) }
            return nil
        }
        finished.signal()  // a later wait returns at once
        return result
    }
}
