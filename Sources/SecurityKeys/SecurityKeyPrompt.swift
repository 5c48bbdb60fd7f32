/// What the person is asked while a ceremony runs, and their answers: the library's own window
/// over the sign-in view implements it; a test implements it with answers of its own.
///
/// The ceremony runs on no actor of its own and awaits each call, so an implementation picks its
/// own: the library's window answers on the main actor (GTK), a test's on an actor of its own.
/// `nil` from an `ask` means the person cancelled: the page gets `NotAllowedError` and the sign-in
/// goes on (the person can pick another way on the page).
public protocol SecurityKeyPrompt: AnyObject, Sendable {
    /// Shows what the person should do now.
    func show(_ step: SecurityKeyStep) async
    /// The key's PIN. `retriesLeft` when the key said (after a wrong PIN, or when few are left).
    func askPIN(for site: String, retriesLeft: Int?) async -> String?
    /// Which of the key's accounts for the site to sign in with (two or more); its index.
    func chooseAccount(for site: String, among accounts: [SecurityKeyAccount]) async -> Int?
    /// The ceremony ended (the prompt goes away), with the error the person should read, if any.
    func finish(_ error: SecurityKeyError?) async
}

/// One of the steps a person sees.
public enum SecurityKeyStep: Sendable, Equatable {
    /// No key is plugged in.
    case insertKey
    /// Several keys: touching one picks it.
    case touchToChoose(keys: Int)
    /// The key waits for the person's touch (`site` is the relying party's id).
    case touchKey(site: String)
}

/// An account a key holds for a site (a discoverable credential's user).
public struct SecurityKeyAccount: Sendable, Equatable {
    public let name: String?
    public let displayName: String?
}
