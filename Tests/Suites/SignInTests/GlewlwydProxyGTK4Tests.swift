import Foundation
import ScenarioSupport
import Testing

/// The whole route through a proxy on GTK 4 (WebKitGTK 6.0: its network session's proxy
/// settings), as GlewlwydProxyTests has it on GTK 3: the view's pages and SignIn's requests of a
/// sign-in, a renewal, a sign-out and a device code, through the desktop's proxy, the
/// environment's, the app's HTTP proxy and the app's SOCKS5 proxy.
extension GlewlwydSignInTests {
    static let gtk4Program = "SignInScenariosGTK4"

    @Test("GTK 4: GNOME's proxy settings (manual), the library's window: sign-in, renewal, sign-out and device code all go through the proxy")
    func everythingThroughGNOMEProxyGTK4() async throws {
        let proxy = try await RecordingProxy()
        defer { proxy.stop() }
        let desktop = try TestDesktop(browserCommand: nil)
        defer { desktop.remove() }
        let report = try await proxiedRun(
            .throughProxy, ["window", server.clientID, server.deviceClientID],
            environment: try gnomeProxyEnvironment(desktop: desktop, port: proxy.port), program: Self.gtk4Program)
        expectEverythingThrough(proxy, report)
    }

    @Test("GTK 4: the environment's http_proxy, the app's own view: sign-in, renewal, sign-out and device code all go through the proxy")
    func everythingThroughEnvironmentProxyGTK4() async throws {
        let proxy = try await RecordingProxy()
        defer { proxy.stop() }
        let desktop = try TestDesktop(browserCommand: nil)
        defer { desktop.remove() }
        var environment = desktop.environment
        environment["http_proxy"] = proxy.url
        environment["no_proxy"] = ""
        environment["XDG_CURRENT_DESKTOP"] = ""
        let report = try await proxiedRun(
            .throughProxy, ["view", server.clientID, server.deviceClientID], environment: environment, program: Self.gtk4Program)
        expectEverythingThrough(proxy, report)
    }

    @Test("GTK 4: the app's proxy (networkProxy), HTTP and SOCKS5, the library's window: sign-in, renewal, sign-out and device code all go through it")
    func everythingThroughAppProxiesGTK4() async throws {
        let desktop = try TestDesktop(browserCommand: nil)
        defer { desktop.remove() }
        var environment = desktop.environment
        for name in ["http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "all_proxy", "no_proxy"] { environment[name] = "" }
        let http = try await RecordingProxy()
        defer { http.stop() }
        environment["SIGNIN_NETWORK_PROXY"] = http.url
        expectEverythingThrough(
            http, try await proxiedRun(.throughProxy, ["window", server.clientID, server.deviceClientID], environment: environment, program: Self.gtk4Program))
        let socks = try await SocksRecordingProxy()
        defer { socks.stop() }
        environment["SIGNIN_NETWORK_PROXY"] = socks.url
        expectEverythingThrough(
            socks, try await proxiedRun(.throughProxy, ["window", server.clientID, server.deviceClientID], environment: environment, program: Self.gtk4Program))
    }
}
