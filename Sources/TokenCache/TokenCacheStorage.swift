public import Foundation

/// Where SignIn's `PublicClientApplication` keeps its token cache between runs: the serialized cache
/// (MSAL's unified cache format, JSON) as one blob, and a writer lock.
///
/// The library calls every method on its own serial worker queue, never on the main thread, so
/// an implementation may block (a D-Bus round trip, a file lock) but must return within a bounded
/// time: throw ``TokenCacheStorageError`` with ``TokenCacheStorageError/Code/timedOut`` rather
/// than wait for ever. Each update is `lock`, `load`, change, `save`, `unlock`, so two processes
/// of one app (or two apps sharing one store) never overwrite each other's entries.
///
/// Built in: ``SecretServiceTokenCacheStorage`` (the default), ``FileTokenCacheStorage``
/// (unencrypted, chosen explicitly), ``InMemoryTokenCacheStorage`` (nothing survives the process).
public protocol TokenCacheStorage: Sendable {
    /// The cache as last saved, or `nil` when nothing has been saved yet.
    func load() throws(TokenCacheStorageError) -> Data?

    /// Replaces the saved cache with `data`, atomically: a reader sees the old or the new
    /// content, never a mix.
    func save(_ data: Data) throws(TokenCacheStorageError)

    /// Runs `body` while holding this store's writer lock, which excludes other writers in this
    /// and in other processes. Throws `timedOut` when the lock cannot be had in a bounded time.
    func withWriterLock<T>(_ body: () throws(TokenCacheStorageError) -> T) throws(TokenCacheStorageError) -> T

    /// Makes the store ready before a person is asked to sign in, so that a store that cannot
    /// keep tokens is known before anyone types a password: a keyring is unlocked here (the
    /// desktop's own prompt may show), within a bounded time. Throws what ``save(_:)`` would.
    /// The default loads the cache once.
    func prepare() throws(TokenCacheStorageError)

    /// The lock that makes one process at a time renew the tokens named by `key` (the library
    /// passes one key per account, whatever the scopes: a renewal may rotate the account's one
    /// refresh token), in every process using this store; `nil` when no other process can use
    /// the store (then single flight inside the process is enough). The default is `nil`; the
    /// built-in file and Secret Service stores keep it beside their writer lock.
    func refreshLock(for key: String) -> TokenCacheLockFile?

    /// Replaces a cache that ``load()`` refused with `data`, without reading it, when `refusal`
    /// says a new copy removes the reason (``TokenCacheStorageError/canBeReplaced``: a file of
    /// yours that others could write, in a safe folder); called with the writer lock held, after a
    /// fresh interactive sign-in, with that sign-in's tokens. Returns the notice for the app (code
    /// ``TokenCacheStorageError/Code/unsafeFileReplaced``). The default throws `refusal`.
    func replaceRefused(_ refusal: TokenCacheStorageError, with data: Data) throws(TokenCacheStorageError) -> TokenCacheStorageError
}

extension TokenCacheStorage {
    public func prepare() throws(TokenCacheStorageError) {
        _ = try load()
    }

    public func refreshLock(for key: String) -> TokenCacheLockFile? { nil }

    public func replaceRefused(_ refusal: TokenCacheStorageError, with data: Data) throws(TokenCacheStorageError) -> TokenCacheStorageError {
        throw refusal
    }
}

/// Why a ``TokenCacheStorage`` could not load or save the cache. The message names what to do
/// and never contains a token.
public struct TokenCacheStorageError: Error, Sendable, CustomStringConvertible {
    /// What went wrong. A struct, not an enum, so new codes do not break callers.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        public let name: String
        private init(_ name: String) { self.name = name }
        public var description: String { name }

        /// The store cannot be reached: no session bus, no Secret Service on it.
        public static let unavailable = Code("unavailable")
        /// The keyring collection is locked and was not unlocked (the person declined).
        public static let locked = Code("locked")
        /// The store or its writer lock did not answer within the time limit.
        public static let timedOut = Code("timedOut")
        /// A file could not be read or written.
        public static let fileSystem = Code("fileSystem")
        /// The configuration of the store cannot work (an empty application ID, no attributes...).
        public static let invalidConfiguration = Code("invalidConfiguration")
        /// A file store's file or folder could have been written by someone else (it is writable
        /// by group or others, or another user owns it), so what it holds cannot be trusted.
        public static let unsafePermissions = Code("unsafePermissions")
        /// Not a failure: a file refused for ``unsafePermissions`` that a new file repairs (see
        /// ``TokenCacheStorageError/canBeReplaced``) was replaced after a fresh sign-in with a new
        /// one holding its tokens (mode 0600); the accounts only the old file held sign in again.
        /// The tokens were kept (``TokenCacheStorageError/tokensWereKept``).
        public static let unsafeFileReplaced = Code("unsafeFileReplaced")
    }

    public let code: Code
    /// A sentence a person can act on.
    public let message: String
    /// The store refused its content for a reason a new copy removes (a file of yours that group
    /// or others could write, not a link, in a safe folder): after a fresh interactive sign-in the
    /// library replaces it with one holding that sign-in's tokens, never reading the old one.
    public let canBeReplaced: Bool

    /// An error with `code` and a `message` a person can act on (never a token in it).
    public init(_ code: Code, _ message: String, canBeReplaced: Bool = false) {
        self.code = code
        self.message = message
        self.canBeReplaced = canBeReplaced
    }

    /// Whether the tokens were stored after all (``Code/unsafeFileReplaced``): nothing to warn the
    /// person about but the accounts the replaced file held.
    public var tokensWereKept: Bool { code == .unsafeFileReplaced }

    public var description: String { "TokenCacheStorageError.\(code): \(message)" }
}
