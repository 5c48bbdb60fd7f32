import ExternalWebviewProvider
import Foundation
import Testing
import WebviewHost
import WebviewHostTestKit

func descriptorText(id: String, exec: String, priority: Int = 0, extra: String = "") -> String {
    """
    # A test descriptor
    [WebviewHost Provider]
    Id=\(id)
    Name=Provider \(id)
    Exec=\(exec)
    Priority=\(priority)
    Kind=other
    RequiresDisplay=false
    ProtocolVersion=1
    \(extra)
    """
}

@Suite("Descriptors: what a .provider file may say")
struct DescriptorTests {
    @Test("A complete descriptor is read key by key")
    func complete() throws {
        let descriptor = try ProviderDescriptor(
            parsing: """
                [Desktop Entry]
                Name=ignored, another group
                [WebviewHost Provider]
                Id=kiosk
                Name=Kiosk browser
                Name[fr]=Navigateur kiosque
                Exec=/usr/libexec/kiosk "--profile dir" --flag
                Priority=20
                Kind=system-browser
                RequiresDisplay=true
                BrokerSchemes=msauth;X-Broker;
                ProtocolVersion=1
                Timeout=120
                X-Vendor-Key=ignored
                """)
        #expect(descriptor.id == "kiosk")
        #expect(descriptor.name == "Kiosk browser")
        #expect(descriptor.arguments == ["/usr/libexec/kiosk", "--profile dir", "--flag"])
        #expect(descriptor.priority == 20)
        #expect(descriptor.kind == .systemBrowser)
        #expect(descriptor.requiresDisplay)
        #expect(descriptor.brokerSchemes == ["msauth", "x-broker"])
        #expect(descriptor.timeout == .seconds(120))
    }

    @Test("GKeyFile's syntax: CRLF line ends, the \\s escape, a list with an escaped ; and a trailing one")
    func keyFileSyntax() throws {
        let descriptor = try ProviderDescriptor(
            parsing: "[WebviewHost Provider]\r\nId=k\r\nName=\\sKiosk\\sbrowser\r\nExec=/bin/k\r\n"
                + "BrokerSchemes= msauth ; x-broker ;\r\nProtocolVersion=1\r\n")
        #expect(descriptor.name == "Kiosk browser")
        #expect(descriptor.arguments == ["/bin/k"])
        #expect(descriptor.brokerSchemes == ["msauth", "x-broker"])
        #expect {
            try ProviderDescriptor(parsing: "[WebviewHost Provider]\nId=k\nName=n\nExec=/bin/k\nBrokerSchemes=a\\;b\nProtocolVersion=1\n")
        } throws: { error in
            "\(error)".contains("a;b")
        }
    }

    @Test(
        "A malformed descriptor is refused with a reason an administrator can act on",
        arguments: [
            ("Id=x\n", "before the first [Group]"),
            ("[Other]\nId=x\n", "no [WebviewHost Provider] group"),
            ("[WebviewHost Provider]\nName=n\nExec=/bin/true\nProtocolVersion=1\n", "Id is missing"),
            ("[WebviewHost Provider]\nId=a b\nName=n\nExec=/bin/true\nProtocolVersion=1\n", "Id=a b must be"),
            ("[WebviewHost Provider]\nId=a\nName=n\nExec=/bin/true\nKind=kiosk\nProtocolVersion=1\n", "Kind=kiosk"),
            ("[WebviewHost Provider]\nId=a\nName=n\nExec=/bin/true\n", "ProtocolVersion is missing"),
            ("[WebviewHost Provider]\nId=a\nName=n\nExec=/bin/true\nProtocolVersion=2\n", "ProtocolVersion=2 is not spoken"),
            ("[WebviewHost Provider]\nId=a\nName=n\nExec=bin/x\nProtocolVersion=1\n", "absolute path"),
            ("[WebviewHost Provider]\nId=a\nName=n\nExec=\"/bin/x\nProtocolVersion=1\n", "unclosed double quote"),
            ("[WebviewHost Provider]\nId=a\nId=b\nName=n\nExec=/bin/x\nProtocolVersion=1\n", "appears twice"),
            ("[WebviewHost Provider]\nId=a\nName=n\nExec=/bin/x\nPriority=high\nProtocolVersion=1\n", "Priority=high"),
            ("[WebviewHost Provider]\nId=a\nName=n\nExec=/bin/x\nBrokerSchemes=https\nProtocolVersion=1\n", "web scheme"),
            ("[WebviewHost Provider]\nthis line is nonsense\n", "expected Key=Value"),
            ("[WebviewHost Provider]\nId=a\nName=a\\qb\nExec=/bin/x\nProtocolVersion=1\n", "a backslash in a key file starts only"),
            ("[WebviewHost Provider]\nId=a\nName=n\nExec=/bin/x\nX_Vendor=1\nProtocolVersion=1\n", "may hold only A-Z"),
            ("[WebviewHost Provider]\nId=a\n[Other]\nName=n\n[WebviewHost Provider]\nId=b\n", "appears twice"),
        ])
    func malformed(text: String, reason: String) {
        #expect {
            try ProviderDescriptor(parsing: text)
        } throws: { error in
            (error as? ProviderDescriptor.Problem)?.description.contains(reason) == true
        }
    }
}

@Suite("Discovery: XDG directories, precedence, shadowing, registration")
struct DiscoveryTests {
    @Test("The search path is XDG_DATA_HOME, then each XDG_DATA_DIRS entry, then the app's directories")
    func searchPath() {
        let path = InstalledProviders.searchPath(
            environment: ["XDG_DATA_HOME": "/home/me/.data", "XDG_DATA_DIRS": "/opt/share:relative:/usr/share", "HOME": "/home/me"],
            extraDirectories: [URL(fileURLWithPath: "/app/providers")])
        #expect(
            path.map(\.path) == [
                "/home/me/.data/webview-host/providers", "/opt/share/webview-host/providers",
                "/usr/share/webview-host/providers", "/app/providers",
            ])
        let defaults = InstalledProviders.searchPath(environment: ["HOME": "/home/me"])
        #expect(
            defaults.map(\.path) == [
                "/home/me/.local/share/webview-host/providers", "/usr/local/share/webview-host/providers",
                "/usr/share/webview-host/providers",
            ])
    }

    @Test("Earlier directories win on a duplicate id; the shadowed and the refused are reported; the winners run")
    @MainActor
    func precedenceAndRegistration() async throws {
        let temp = try TemporaryDirectory()
        let home = try temp.subdirectory("home/webview-host/providers")
        let system = try temp.subdirectory("system/webview-host/providers")
        let app = try temp.subdirectory("app")
        let good = "\(python) \(behaviourScript) autopilot"
        try descriptorText(id: "shared", exec: good, priority: 5).write(
            to: home.appendingPathComponent("shared.provider"), atomically: true, encoding: .utf8)
        try descriptorText(id: "shared", exec: "/bin/false", priority: 99).write(
            to: system.appendingPathComponent("shared.provider"), atomically: true, encoding: .utf8)
        try descriptorText(id: "missing", exec: "/nonexistent/plugin").write(
            to: system.appendingPathComponent("missing.provider"), atomically: true, encoding: .utf8)
        try "[WebviewHost Provider]\nId=broken\n".write(
            to: app.appendingPathComponent("broken.provider"), atomically: true, encoding: .utf8)
        try descriptorText(id: "registered", exec: good).write(
            to: app.appendingPathComponent("registered.provider"), atomically: true, encoding: .utf8)
        try "not a descriptor".write(to: app.appendingPathComponent("README.txt"), atomically: true, encoding: .utf8)
        let environment = [
            "XDG_DATA_HOME": temp.url.appendingPathComponent("home").path,
            "XDG_DATA_DIRS": temp.url.appendingPathComponent("system").path,
        ]

        try await WebviewProviderRegistry.withIsolatedRegistry {
            // The app's own provider with that id is never replaced by a file on disk.
            WebviewProviderRegistry.register(FakeWebviewProvider(id: "registered", kind: .embeddedView))
            let report = WebviewProviderRegistry.registerInstalledProviders(extraDirectories: [app], environment: environment)

            #expect(report.loaded.map(\.id).sorted() == ["missing", "shared"])
            #expect(report.loaded.first { $0.id == "shared" }?.file?.path == home.appendingPathComponent("shared.provider").path)
            #expect(report.shadowed.count == 2)
            let systemShared = report.shadowed.first { $0.descriptor.id == "shared" }
            #expect(systemShared?.descriptor.file?.path == system.appendingPathComponent("shared.provider").path)
            #expect(systemShared?.shadowedBy?.path == home.appendingPathComponent("shared.provider").path)
            #expect(report.shadowed.contains { $0.descriptor.id == "registered" && $0.shadowedBy == nil })
            #expect(report.refused.count == 1)
            #expect(report.refused.first?.file.lastPathComponent == "broken.provider")
            #expect(report.refused.first?.reason.contains("Name is missing") == true)
            #expect(report.description.contains("refused \(app.appendingPathComponent("broken.provider").path)"))

            #expect(WebviewProviderRegistry.provider(withID: "registered") is FakeWebviewProvider)
            #expect(WebviewProviderRegistry.provider(withID: "shared")?.priority == 5)

            // help lists them with where they came from and why one cannot run.
            let help = DefaultWebviewSelectionPolicy.helpText(providers: WebviewProviderRegistry.providers, environment: headless)
            #expect(help.contains("from \(home.appendingPathComponent("shared.provider").path)"))
            #expect(help.contains("missing - Provider missing [other, priority 0, no display needed]: unavailable: its program /nonexistent/plugin does not exist"))

            // The policy picks the installed provider with no display; it runs a real session.
            let session = WebAuthSession(redirectURI: redirect, environment: headless)
            let prepared = try await session.prepare()
            #expect(session.provider?.id == "shared")
            #expect(prepared == redirect)
            let response = try await session.start(authorizationURL: authorization("ok", state: "d1"), expectedState: "d1")
            #expect(response.code == "external")

            // .provider("missing") names it, and says why it cannot run.
            let forced = WebAuthSession(
                redirectURI: redirect, parameters: .init(webviewType: .provider("missing")), environment: headless)
            do throws(WebAuthError) {
                _ = try await forced.prepare()
                Issue.record("a provider whose program is missing prepared")
            } catch {
                #expect(error.code == .providerUnavailable)
                #expect(error.message.contains("/nonexistent/plugin does not exist"))
            }
        }
    }

    @Test("A provider that needs a display is unavailable without one, and says so")
    func needsDisplay() {
        let provider = ExternalProvider(
            descriptor: ProviderDescriptor(id: "x", name: "x", arguments: ["/bin/true"], requiresDisplay: true))
        #expect(provider.availability(in: headless).reason?.contains("needs a display") == true)
        #expect(provider.availability(in: WebviewEnvironment(variables: ["DISPLAY": ":1"])) == .available)
    }
}
