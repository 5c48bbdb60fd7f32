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
/// view: what stays behind. Prints `rss-after-10 <kB>`, `rss-after-all <kB>`, `session-us-median
/// <µs>` (a sign-in from `prepare()` to the caller resumed, after the first 10) and, for a caller's
/// view, `handlers-left <n>` (our signal handlers still on the view once it is blank).
/// `withCertificate`: each sign-in in the library's window is given the app's client certificate
/// (a PEM file the page never asks for), so each runs in an ephemeral store of its own.
enum SequentialChild {
    @MainActor
    static func run(ownWindow: Bool, withCertificate: Bool = false, sessions: Int, page: URL, redirect: URL) -> Never {
        Toolkit.initialize()
        MainLoopBridge.install()
        WebviewProviderRegistry.register(EmbeddedWebviewProvider())
        let view = ownWindow ? nil : Child.makeCallerView()
        let handlersBefore = view.map { SignalInspection.handlerCount(on: $0) } ?? 0
        let certificate = withCertificate ? makeCertificate() : nil
        Task { @MainActor in
            var durations: [Duration] = []
            for index in 1...sessions {
                var parameters = view.map { WebviewParameters(customWebview: WebviewHandle(address: $0)) }
                    ?? WebviewParameters(webviewType: .embedded)
                parameters.clientCertificate = certificate
                let session = WebAuthSession(redirectURI: redirect, parameters: parameters)
                let began = ContinuousClock.now
                do {
                    _ = try await session.prepare()
                    _ = try await session.start(authorizationURL: page, expectedState: "s")
                } catch {
                    Child.say("error \(error)")
                    exit(1)
                }
                if index > 10 { durations.append(ContinuousClock.now - began) }
                if index == 10 { Child.say("rss-after-10 \(Child.statusKiB("VmRSS"))") }
            }
            if !durations.isEmpty {
                Child.say("session-us-median \(Int(durations.sorted()[durations.count / 2] / .microseconds(1)))")
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

    /// A self-signed certificate and key for client authentication, made with `openssl` in a
    /// temporary folder (before any sign-in is timed).
    private static func makeCertificate() -> ClientCertificate {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("wvh-bench-cert-\(getpid())")
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let certificate = folder.appendingPathComponent("client.pem"), key = folder.appendingPathComponent("client.key")
        let openssl = Process()
        openssl.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        openssl.arguments = [
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key.path, "-out", certificate.path, "-days", "1",
            "-subj", "/CN=Bench Kiosk", "-addext", "extendedKeyUsage=clientAuth",
        ]
        openssl.standardOutput = FileHandle.nullDevice
        openssl.standardError = FileHandle.nullDevice
        try? openssl.run()
        openssl.waitUntilExit()
        return .pem(certificate: certificate, privateKey: key)
    }
}
