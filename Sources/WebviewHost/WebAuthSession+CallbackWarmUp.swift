import Foundation
import Synchronization

extension WebAuthSession {
    /// Whether this process already read a made-up callback (``warmUpCallbackReading(_:)``).
    private static let callbackReadingWarm = Atomic<Bool>(false)

    /// The first callback a process reads runs Foundation's URL parsing and percent-decoding
    /// for the first time: binding those symbols and faulting in their code took about half a
    /// millisecond, between the redirect and the caller's resume (Tests/Benchmarks). Once per
    /// process, while the page loads, a made-up callback for the redirect URI is read instead,
    /// on a background thread.
    static func warmUpCallbackReading(_ redirect: RedirectURI) {
        guard !callbackReadingWarm.exchange(true, ordering: .relaxed) else { return }
        let callback = redirect.url.absoluteString + "?code=w%2Bu&state=w+u#iss=w"
        DispatchQueue.global(qos: .utility).async {
            _ = try? WebAuthResponse(callbackString: callback, expectedState: "w u")
        }
    }
}
