internal import CLibSecret
import Foundation
import Logging
import Synchronization

/// Inside a Flatpak sandbox, libsecret keeps the app's items in a file encrypted with a key it
/// asks the Secret portal for once per process (`RetrieveSecret`). This makes that first request,
/// before the store's first call, and makes it again when libsecret lost the portal's answer.
///
/// libsecret before 0.21.4 (Debian 12's 0.20.5, and Flatpak runtimes built on it) subscribes to
/// the portal's `Response` only after it has handled the call's reply on the calling thread. On a
/// busy machine the answer can come first; libsecret then drops it and waits for ever (libsecret
/// issue 58), and cancelling it deadlocks the cancelling thread (fixed in 0.21). Seen here as a
/// sign-in that hung on its first keyring read, one run in ten under load.
///
/// A filter on the session bus connection (the one libsecret uses) sees the portal answer
/// whatever libsecret does. A request the portal answered that libsecret has not finished
/// ``grace`` later is lost: it is left on its thread, never cancelled, and a new request made.
/// A request the portal has not answered yet (an unlock prompt is up) is waited for, up to the
/// store's time limit. Once one request finished, libsecret keeps the key for the process and
/// no later call involves the portal.
enum SecretPortalKey {
    /// How long libsecret may take, after the portal answered, to read the key and open the
    /// file (a read of 64 bytes and a key derivation); beyond that the answer was dropped.
    static let grace: TimeInterval = 3

    /// Whether this process has the key; held while a request is made.
    private static let retrieved = Mutex(false)
    /// The bus filter, installed on the first request (`nil` without a session bus).
    /// nonisolated(unsafe): set once; the C side reads and writes its counts under its own lock.
    nonisolated(unsafe) private static let watch = wvh_secret_portal_watch_start()
    private static let logger = Logger(label: "SignIn.tokenCache")

    /// Gets the key if this process has not yet; `start` starts a lookup that only reads. `nil`
    /// once the key is there, or the error of the request that ended (the portal refused, no
    /// portal) or `timedOut` after `timeout` without an answer libsecret could use.
    static func retrieve(
        within timeout: TimeInterval, start: () -> SecretServiceCall<Void>
    ) -> TokenCacheStorageError? {
        retrieved.withLock { retrieved -> TokenCacheStorageError? in
            if retrieved { return nil }
            let clock = ContinuousClock()
            let end = clock.now + .seconds(timeout)
            var attempts = 0, lost = 0
            while true {
                attempts += 1
                let answersBefore = watch.map { wvh_secret_portal_watch_answers($0) } ?? 0
                let call = start()
                var answeredAt: ContinuousClock.Instant?
                while true {
                    let now = clock.now
                    if now >= end { return timedOut(after: timeout, requests: attempts, lost: lost + (answeredAt == nil ? 0 : 1)) }
                    if let outcome = call.wait(timeout: min(0.1, Self.seconds(end - now)), cancelling: false) {
                        if case .failure(let failure) = outcome { return failure }
                        retrieved = true
                        return nil
                    }
                    guard let watch, wvh_secret_portal_watch_answers(watch) > answersBefore else { continue }
                    if answeredAt == nil { answeredAt = now }
                    if let answeredAt, now - answeredAt > .seconds(grace) { break }  // lost: ask again
                }
                lost += 1
                logger.notice("libsecret lost the Secret portal's answer to request \(attempts) (libsecret issue 58); asking again.")
            }
        }
    }

    private static func seconds(_ duration: Duration) -> TimeInterval {
        TimeInterval(duration.components.seconds) + TimeInterval(duration.components.attoseconds) / 1e18
    }

    private static func timedOut(after timeout: TimeInterval, requests: Int, lost: Int) -> TokenCacheStorageError {
        let limit = "within \(Int(timeout)) seconds"
        if lost == requests {
            // The portal answered every time; libsecret dropped each answer.
            return TokenCacheStorageError(
                .timedOut,
                "The keyring could not be opened \(limit): the Secret portal answered all \(requests) requests for this app's key, and "
                    + "libsecret lost each answer (a libsecret older than 0.21.4 on a busy machine, libsecret issue 58). "
                    + "Try again; a runtime with a newer libsecret fixes it.")
        }
        return TokenCacheStorageError(
            .timedOut,
            "The Secret portal did not give this app its keyring key \(limit) (an unlock prompt nobody answered?); unlock the keyring and try again.")
    }
}
