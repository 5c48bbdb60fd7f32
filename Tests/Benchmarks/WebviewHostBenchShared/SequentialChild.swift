import CGLib
#if WEBKITGTK_6
import CWebKitGTK4
import EmbeddedWebviewProviderGTK4
#else
import CWebKitGTK3
import EmbeddedWebviewProviderGTK3
#endif
import Foundation
import GLibSupport
import WebviewHost

/// 100 sign-ins one after another in one process, in the library's window or in one caller's
/// view: what stays behind. Prints `rss-after-10 <kB>`, `rss-after-all <kB>` and, for a caller's
/// view, `handlers-left <n>` (our signal handlers still on the view once it is blank).
enum SequentialChild {
    @MainActor
    static func run(ownWindow: Bool, sessions: Int, page: URL, redirect: URL) -> Never {
        Toolkit.initialize()
        MainLoopBridge.install()
        WebviewProviderRegistry.register(EmbeddedWebviewProvider())
        let view = ownWindow ? nil : Child.makeCallerView()
        let handlersBefore = view.map { SignalInspection.handlerCount(on: $0) } ?? 0
        Task { @MainActor in
            for index in 1...sessions {
                let parameters = view.map { WebviewParameters(customWebview: WebviewHandle($0)) }
                    ?? WebviewParameters(webviewType: .embedded)
                let session = WebAuthSession(redirectURI: redirect, parameters: parameters)
                do {
                    _ = try await session.prepare()
                    _ = try await session.start(authorizationURL: page, expectedState: "s")
                } catch {
                    Child.say("error \(error)")
                    exit(1)
                }
                if index == 10 { Child.say("rss-after-10 \(Child.statusKiB("VmRSS"))") }
            }
            if let view {
                // The view goes blank after each session, then our handlers go (within seconds).
                for _ in 0..<60 where SignalInspection.handlerCount(on: view) > handlersBefore {
                    try? await Task.sleep(for: .milliseconds(100))
                }
                Child.say("handlers-left \(SignalInspection.handlerCount(on: view) - handlersBefore)")
            } else {
                try? await Task.sleep(for: .milliseconds(500))  // the last window goes when idle
            }
            Child.say("rss-after-all \(Child.statusKiB("VmRSS"))")
            exit(0)
        }
        Toolkit.runMainLoop()
    }
}
