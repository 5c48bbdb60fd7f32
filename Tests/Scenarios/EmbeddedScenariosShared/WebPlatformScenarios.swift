// The sign-in surface takes nothing from a page but what its article's table says (issue 27, item
// 1): the same probe page (Tests/Fixtures/WebPlatform/probe.js: storage of every kind, workers,
// Web Crypto, messaging between windows and frames, cookies including `SameSite=None; Secure` on
// HTTPS, WebAssembly, ...) runs in a bare WebKitGTK view of this process and then as the sign-in
// page, in the library's window or a caller's view, with an ephemeral or a persistent data store;
// each reports what worked, then goes on (the sign-in page to the redirect URI). The test compares.
import CGLib
#if WEBKITGTK_6
import CWebKitGTK4
#else
import CWebKitGTK3
#endif
import Foundation
import GLibSupport
import ScenarioSupport
import WebviewHost

@MainActor
extension EmbeddedScenarios {
    static let webPlatform: Scenario = { arguments in try await webPlatformScenario(mode: arguments[0], store: arguments[1]) }
}

/// The probe pages and what they talk to, on two servers (HTTP and HTTPS, both 127.0.0.1; the
/// other site of each is the same server named `localhost`).
@MainActor
private final class ProbeSite {
    let http: TestServer
    let https: TestServer
    let certificate: UnsafeMutablePointer<GTlsCertificate>
    /// The pages may go on to HTTPS (the view trusts the test certificate).
    var mayGo = false

    init() throws {
        certificate = try Probes.selfSignedCertificate()
        http = try TestServer()
        https = try TestServer(certificate: certificate)
        let script = try String(contentsOf: Checkout.fixture("WebPlatform").appendingPathComponent("probe.js"), encoding: .utf8)
        for server in [http, https] {
            server.route("/probe.js") { _ in TestServer.Response(contentType: "text/javascript", body: script) }
            server.route("/probe") { request in .html(Self.page(query: request.query ?? "")) }
            server.route("/may-go") { [unowned self] _ in .html(mayGo ? "yes" : "no") }
            server.route("/report") { _ in .html("ok") }
            // Each probe as it starts, on standard error: where a page that stops, stopped.
            server.route("/progress") { request in
                FileHandle.standardError.write(Data("web-platform probe: \(request.query ?? "")\n".utf8))
                return .html("ok")
            }
            server.route("/text") { _ in TestServer.Response(contentType: "text/plain", body: "text") }
            server.route("/echo-body") { request in TestServer.Response(contentType: "text/plain", body: request.body) }
            server.route("/echo-cookie") { request in TestServer.Response(contentType: "text/plain", body: request.cookie ?? "") }
            server.route("/set-cookie") { request in
                let items = Self.items(request.query)
                let cookie = "\(items["name"] ?? "wvh")=1; \(items["attributes"] ?? "")"
                return TestServer.Response(contentType: "text/plain", body: "set", headers: [("Set-Cookie", cookie)])
            }
            server.route("/events") { _ in
                TestServer.Response(contentType: "text/event-stream", body: "retry: 60000\ndata: hello\n\n", headers: [("Cache-Control", "no-store")])
            }
            server.route("/worker.js") { _ in
                TestServer.Response(contentType: "text/javascript", body: "onmessage = e => postMessage(e.data === 'ping' ? 'pong' : 'no');")
            }
            server.route("/crypto-worker.js") { _ in
                TestServer.Response(
                    contentType: "text/javascript",
                    body: "onmessage = async () => { try { await crypto.subtle.digest('SHA-256', new Uint8Array(1)); postMessage('pong'); } catch (e) { postMessage(String(e)); } };")
            }
            server.route("/shared-worker.js") { _ in
                TestServer.Response(
                    contentType: "text/javascript",
                    body: "onconnect = e => { const port = e.ports[0]; port.onmessage = m => port.postMessage(m.data === 'ping' ? 'pong' : 'no'); };")
            }
            server.route("/sw.js") { _ in
                TestServer.Response(contentType: "text/javascript", body: "self.addEventListener('install', () => self.skipWaiting());")
            }
            server.route("/broadcast-frame") { _ in .html("<!doctype html><script>new BroadcastChannel('wvh').postMessage('frame-hello')</script>") }
            server.route("/echo-frame") { _ in
                .html(
                    "<!doctype html><script>addEventListener('message', e => { if (e.data === 'frame-ping') e.source.postMessage('frame-pong', '*'); });"
                        + "parent.postMessage('frame-ready', '*');</script>")
            }
            server.route("/cookie-frame") { _ in
                .html(
                    "<!doctype html><script>document.cookie = 'wvh_frame=1; path=/; SameSite=None; Secure';"
                        + "parent.postMessage('frame-cookie:' + document.cookie, '*');</script>")
            }
            server.echoWebSocket(at: "/socket")
        }
    }

    /// The probe page of `part` (`http` or `https`) for `who`, going to `next` when done.
    func url(part: String, who: String, next: String) -> String {
        let server = part == "https" ? https : http
        var components = URLComponents()
        components.queryItems = [.init(name: "part", value: part), .init(name: "who", value: who), .init(name: "next", value: next)]
        return server.url("/probe") + "?" + (components.percentEncodedQuery ?? "")
    }

    /// The sign-in's or the bare view's results as one JSON object: `{"http": {...}, "https": {...}}`
    /// (a part that never reported is missing).
    func results(of who: String) -> String {
        var parts: [String] = []
        for server in [http, https] {
            for request in server.requests(to: "/report") {
                let items = Self.items(request.query)
                guard items["who"] == who, let part = items["part"], request.body.hasPrefix("{") else { continue }
                parts.append("\"\(part)\":\(request.body)")
            }
        }
        return "{" + parts.joined(separator: ",") + "}"
    }

    private static func items(_ query: String?) -> [String: String] {
        let pairs = URLComponents(string: "?" + (query ?? ""))?.queryItems ?? []
        return Dictionary(pairs.map { ($0.name, $0.value ?? "") }) { $1 }
    }

    /// The page: the probe of its part, its report (marked with `who`), then `next` once the test
    /// said the view may go on (`/may-go`: the HTTPS part needs the certificate trusted first).
    private static func page(query: String) -> String {
        let items = items(query)
        let part = items["part"] ?? "http"
        let literal = { (text: String) in
            "'" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'") + "'"
        }
        return """
            <!doctype html><html><head><title>Web platform probe</title><script src="/probe.js"></script></head><body><script>
            addEventListener('load', async () => {
              const other = location.protocol + '//localhost:' + location.port;
              let results;
              try { results = \(part == "https" ? "await probeHTTPS(other)" : "await probeHTTP(other)"); } catch (e) { results = { probeFailed: String(e) }; }
              await fetch('/report?part=\(part)&who=' + encodeURIComponent(\(literal(items["who"] ?? ""))), { method: 'POST', body: JSON.stringify(results) }).catch(() => {});
              while ((await (await fetch('/may-go', { cache: 'no-store' })).text()) !== 'yes') await new Promise(ok => setTimeout(ok, 100));
              location.href = \(literal(items["next"] ?? "about:blank"));
            });
            </script></body></html>
            """
    }
}

@MainActor
func webPlatformScenario(mode: String, store: String) async throws -> ScenarioReport {
    let ephemeral = store == "ephemeral"
    let site = try ProbeSite()
    let callback = try callbackListener()
    let redirect = callback.url("/callback")
    var facts = ScenarioReport()
    facts[.mode] = mode

    // The bare view: as an app makes one, with a data store of its own (a new ephemeral one, or
    // a persistent one in a folder of its own), so that the sign-in (a caller's view in the
    // default store, or the library's window in its own) starts from nothing the bare view left.
    let bareWindow = Toolkit.makeWindow(width: 480, height: 400)
    gtk_window_set_title(wvh_window(bareWindow), "Bare view")
    let bareFolder = URL(fileURLWithPath: String(cString: g_get_user_data_dir())).appendingPathComponent("bare-view")
    let bare = Toolkit.makeBareWebView(ephemeral: ephemeral, persistentIn: ephemeral ? nil : bareFolder)
    Toolkit.setChild(bare, of: bareWindow)
    Toolkit.show(bareWindow)
    for host in ["127.0.0.1", "localhost"] { Toolkit.allowCertificate(site.certificate, host: host, in: bare) }
    site.mayGo = true
    let bareDone = site.http.url("/bare-done")
    site.http.route("/bare-done") { _ in .html(Pages.plain("Done")) }
    webkit_web_view_load_uri(wvh_web_view(bare), site.url(part: "http", who: "bare", next: site.url(part: "https", who: "bare", next: bareDone)))
    guard await ScenarioHost.wait(upTo: Patience.scaled(.seconds(40)), until: { !site.http.requests(to: "/bare-done").isEmpty }) else {
        return ScenarioReport(error: "the bare view never finished the probe: \(site.results(of: "bare"))")
    }
    Toolkit.destroyWindow(bareWindow)

    // The sign-in: the same pages, then the redirect URI.
    site.mayGo = false
    let surface = Surface(mode, ephemeralView: ephemeral)
    var parameters = surface.parameters(timeout: .seconds(120), ephemeral: ephemeral)
    parameters.systemBrowserHandOver = .never  // nothing is advertised that the bare view lacks
    let authorizationURL = site.url(part: "http", who: "sign-in", next: site.url(part: "https", who: "sign-in", next: "\(redirect)?code=ok&state=xyz"))
    let run = SessionRun(redirectURI: redirect, parameters: parameters, authorizationURL: authorizationURL)
    guard await run.recorder.wait(for: Patience.event, until: { $0.name == "didStartLoad" }), let view = run.webview else {
        return run.recorder.pageNeverLoaded()
    }
    for host in ["127.0.0.1", "localhost"] { Toolkit.allowCertificate(site.certificate, host: host, in: view) }
    site.mayGo = true
    let result = try await run.outcome()
    facts.merge(run.facts(result))
    facts[.barePlatform] = site.results(of: "bare")
    facts[.signInPlatform] = site.results(of: "sign-in")
    facts[.callbackHits] = callback.requests(to: "/callback").count
    if surface.isCallerView {
        await surface.waitForRelease()
        facts[.handlersLeft] = surface.handlersLeft
    }
    facts[.homeFiles] = homeFiles()
    return facts
}

/// Every file under `$HOME` (the test's temporary home, holding the XDG folders), relative to it.
@MainActor
func homeFiles() -> [String] {
    let home = ProcessInfo.processInfo.environment["HOME"] ?? NSHomeDirectory()
    var files: [String] = []
    if let walk = FileManager.default.enumerator(atPath: home) {
        while let path = walk.nextObject() as? String {
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: home + "/" + path, isDirectory: &isFolder), !isFolder.boolValue { files.append(path) }
        }
    }
    return files.sorted()
}
