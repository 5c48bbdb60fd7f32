// swift-tools-version: 6.1
// Read top to bottom: products, C modules, libraries, plugins, examples, tests. ARCHITECTURE.md has
// the map (each module's one job and what it may import); a test keeps it in step with this file.
// A process loads GTK 3 or GTK 4, never both: only the modules ending in GTK3 or GTK4 link a toolkit.
import PackageDescription

let package = Package(
    name: "WebviewHost",
    platforms: [.macOS(.v15)],

    // MARK: Products: what an app depends on
    products: [
        // Any app: the host, its test kit, GLib helpers, the browser provider, the public client.
        .library(name: "WebviewHost", targets: ["WebviewHost"]),
        .library(name: "WebviewHostTestKit", targets: ["WebviewHostTestKit"]),
        .library(name: "GLibSupport", targets: ["GLibSupport"]),
        .library(name: "SystemBrowserProvider", targets: ["SystemBrowserProvider"]),
        .library(name: "SignIn", targets: ["SignIn"]),
        .library(name: "TokenCache", targets: ["TokenCache"]),
        .library(name: "ExternalWebviewProvider", targets: ["ExternalWebviewProvider"]),
        .library(name: "SecurityKeys", targets: ["SecurityKeys"]),
        // GTK 3 + WebKitGTK 4.1 apps.
        .library(name: "WebviewHostGTK3", targets: ["WebviewHostGTK3"]),
        .library(name: "EmbeddedWebviewProviderGTK3", targets: ["EmbeddedWebviewProviderGTK3"]),
        .library(name: "BuiltInWebviewProvidersGTK3", targets: ["BuiltInWebviewProvidersGTK3"]),
        // GTK 4 + WebKitGTK 6.0 apps.
        .library(name: "WebviewHostGTK4", targets: ["WebviewHostGTK4"]),
        .library(name: "EmbeddedWebviewProviderGTK4", targets: ["EmbeddedWebviewProviderGTK4"]),
        .library(name: "BuiltInWebviewProvidersGTK4", targets: ["BuiltInWebviewProvidersGTK4"]),
        // C, Python, JavaScript and Vala apps: the GObject layer, one shared library per toolkit
        // (Sources/CWebviewHostGObjectGTK3 and its GIR: Tools/gobject/build.sh).
        .library(name: "webviewhost-gtk3", type: .dynamic, targets: ["WebviewHostGObjectGTK3"]),
        .library(name: "webviewhost-gtk4", type: .dynamic, targets: ["WebviewHostGObjectGTK4"]),
        // Plugins.
        .library(name: "TerminalPromptProvider", targets: ["TerminalPromptProvider"]),
        .library(name: "MicrosoftIdentityBroker", targets: ["MicrosoftIdentityBroker"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
    ],
    targets: [
        // MARK: C modules: system libraries (not products; the GTK3/GTK4 modules re-export theirs)
        // GLib, GObject, GIO and libsoup 3, no toolkit.
        .systemLibrary(
            name: "CGLib",
            pkgConfig: "libsoup-3.0",
            providers: [.apt(["libsoup-3.0-dev", "libglib2.0-dev"])]
        ),
        // GTK 3 + WebKitGTK 4.1.
        .systemLibrary(
            name: "CWebKitGTK3",
            pkgConfig: "webkit2gtk-4.1",
            providers: [.apt(["libwebkit2gtk-4.1-dev", "libgtk-3-dev"])]
        ),
        // GTK 4 + WebKitGTK 6.0.
        .systemLibrary(
            name: "CWebKitGTK4",
            pkgConfig: "webkitgtk-6.0",
            providers: [.apt(["libwebkitgtk-6.0-dev", "libgtk-4-dev"])]
        ),
        // libqrencode: QR codes of the device code sign-in's link (terminal and window).
        .systemLibrary(
            name: "CQREncode",
            pkgConfig: "libqrencode",
            providers: [.apt(["libqrencode-dev"])]
        ),
        // MIT Kerberos's GSS-API: whether the person's ticket is there and valid (the embedded view's Negotiate).
        .systemLibrary(
            name: "CGSSAPI",
            pkgConfig: "krb5-gssapi",
            providers: [.apt(["libkrb5-dev"])]
        ),
        // libsecret (GLib + GIO only, no toolkit), for the default token store: the Secret Service.
        .systemLibrary(
            name: "CLibSecret",
            pkgConfig: "libsecret-1",
            providers: [.apt(["libsecret-1-dev"])]
        ),

        // GnuTLS's PKCS #11 and X.509 calls: the certificates on the person's tokens (embedded view only).
        .systemLibrary(
            name: "CGnuTLS",
            pkgConfig: "gnutls",
            providers: [.apt(["libgnutls28-dev"])]
        ),

        // libfido2: CTAP2 and U2F security keys over USB HID, or a virtual authenticator's socket.
        .systemLibrary(
            name: "CFIDO2",
            pkgConfig: "libfido2",
            providers: [.apt(["libfido2-dev"])]
        ),

        // MARK: Libraries
        // The host: sessions, the provider interface, the registry, the policy, notifications, errors.
        .target(
            name: "WebviewHost", dependencies: [.product(name: "Logging", package: "swift-log")],
            // The translations of what the library shows people: .po sources and the script that
            // extracts, merges and compiles them stay out; the compiled catalogs are resources.
            exclude: ["Localization/po", "Localization/translations.py"],
            resources: [.copy("Localization/locale")]),
        // A fake provider and the conformance suite every provider must pass.
        // ... and the virtual authenticator (CTAPHID over a socket, beneath libfido2) for WebAuthn tests.
        .target(
            name: "WebviewHostTestKit",
            dependencies: [
                "WebviewHost", "SecurityKeys",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ]),
        // Typed GObject handles, callbacks through user_data, the main-loop bridge (no toolkit).
        .target(name: "GLibSupport", dependencies: ["CGLib"]),
        // What an app imports to call GTK and WebKit: one per toolkit, both compiled from
        // Sources/WebviewHostGTKShared through their `Shared` links.
        .target(name: "WebviewHostGTK3", dependencies: ["CGLib", "CWebKitGTK3", "GLibSupport", "WebviewHost"]),
        .target(
            name: "WebviewHostGTK4", dependencies: ["CGLib", "CWebKitGTK4", "GLibSupport", "WebviewHost"],
            swiftSettings: [.define("WEBKITGTK_6")]),
        // The person's browser, with a loopback listener or a custom scheme (no toolkit: the
        // toolkit's launch context comes through GLibSupport's ToolkitIntegration).
        .target(name: "SystemBrowserProvider", dependencies: ["WebviewHost", "GLibSupport", "CGLib"]),
        // The embedded view, once per toolkit: Sources/EmbeddedWebviewShared holds every decision
        // (compiled into both through their `Shared` links); each adds its window's widgets and the
        // WebKit calls that differ (WebKitDifferences.swift). Its toolkit module gives it the launch
        // context other apps are started with (ToolkitIntegration.gtk3 / .gtk4).
        .target(
            name: "EmbeddedWebviewProviderGTK3",
            dependencies: ["WebviewHost", "GLibSupport", "CGLib", "CWebKitGTK3", "WebviewHostGTK3", "CGSSAPI", "CGnuTLS", "SecurityKeys"],
            // The WebAuthn scripts' sources: compiled in from WebAuthnScripts.swift (WebAuthn/embed.py).
            exclude: ["Shared/README.md", "Shared/WebAuthn"]
        ),
        .target(
            name: "EmbeddedWebviewProviderGTK4",
            dependencies: ["WebviewHost", "GLibSupport", "CGLib", "CWebKitGTK4", "WebviewHostGTK4", "CGSSAPI", "CGnuTLS", "SecurityKeys"],
            exclude: ["Shared/README.md", "Shared/WebAuthn"],
            swiftSettings: [.define("WEBKITGTK_6")]
        ),
        // `registerBuiltInProviders()`: the browser and the embedded view, for one toolkit.
        .target(
            name: "BuiltInWebviewProvidersGTK3",
            dependencies: ["WebviewHost", "EmbeddedWebviewProviderGTK3", "SystemBrowserProvider", "WebviewHostGTK3"]
        ),
        .target(
            name: "BuiltInWebviewProvidersGTK4",
            dependencies: ["WebviewHost", "EmbeddedWebviewProviderGTK4", "SystemBrowserProvider", "WebviewHostGTK4"],
            swiftSettings: [.define("WEBKITGTK_6")]
        ),
        // The GObject layer: GObject types in C (the public header, the GIR's source) over the
        // Swift API, which the Swift side calls and nothing else. One pair per toolkit, from the
        // same sources (Sources/CWebviewHostGObjectShared and WebviewHostGObjectShared, each
        // target's Shared).
        .target(
            name: "CWebviewHostGObjectGTK3",
            dependencies: ["CWebKitGTK3"],
            path: "Sources/CWebviewHostGObjectGTK3",
            exclude: ["Shared/include"]
        ),
        .target(
            name: "WebviewHostGObjectGTK3",
            dependencies: [
                "CWebviewHostGObjectGTK3", "BuiltInWebviewProvidersGTK3", "SignIn", "WebviewHost", "GLibSupport", "CGLib", "CWebKitGTK3",
            ],
            path: "Sources/WebviewHostGObjectGTK3"
        ),
        .target(
            name: "CWebviewHostGObjectGTK4",
            dependencies: ["CWebKitGTK4"],
            path: "Sources/CWebviewHostGObjectGTK4",
            exclude: ["Shared/include"]
        ),
        .target(
            name: "WebviewHostGObjectGTK4",
            dependencies: [
                "CWebviewHostGObjectGTK4", "BuiltInWebviewProvidersGTK4", "SignIn", "WebviewHost", "GLibSupport", "CGLib", "CWebKitGTK4",
            ],
            path: "Sources/WebviewHostGObjectGTK4",
            swiftSettings: [.define("WEBKITGTK_6")]
        ),
        // The token cache in MSAL's format over a pluggable store (the Secret Service, a file,
        // memory), and the accounts and tokens it holds: SignIn's, and an app's that reads a store alone.
        .target(
            name: "TokenCache",
            dependencies: [
                "WebviewHost", "GLibSupport", "CLibSecret",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        // The MSAL-style public client: discovery, PKCE, the code exchange, ID-token checks, token
        // brokers; it keeps tokens in TokenCache, which it re-exports.
        .target(
            name: "SignIn",
            dependencies: [
                "TokenCache", "WebviewHost", "GLibSupport", "CQREncode", "CGLib",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ]
        ),
        // Providers installed at run time, in other processes and any language: descriptors
        // (GKeyFile), the JSON-lines protocol, ChildProcess and OutputReader (posix_spawn and poll:
        // their files say why not GSubprocess or GIO streams).
        .target(name: "ExternalWebviewProvider", dependencies: ["WebviewHost", "GLibSupport", "CGLib"]),

        // WebAuthn's authenticator side, no toolkit: CTAP2 and U2F security keys through libfido2
        // (`SecurityKeys`: keys found, a ceremony on a worker thread, PIN, cancel), CBOR, and the
        // virtual authenticators an app's tests name in WEBVIEWHOST_VIRTUAL_AUTHENTICATORS.
        .target(
            name: "SecurityKeys",
            dependencies: [
                "WebviewHost", "CFIDO2", "CGLib",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),

        // MARK: Plugins: a provider and a token broker built on the public interfaces
        .target(
            name: "TerminalPromptProvider", dependencies: ["WebviewHost", "ExternalWebviewProvider"],
            path: "Plugins/TerminalPromptProvider"),
        // Microsoft's identity broker over D-Bus (GIO's GDBus, no toolkit), a `TokenBroker` for SignIn.
        .target(
            name: "MicrosoftIdentityBroker",
            dependencies: ["SignIn", "WebviewHost", "GLibSupport", "CGLib", .product(name: "Logging", package: "swift-log")],
            path: "Plugins/MicrosoftIdentityBroker"
        ),

        // MARK: Examples: the demo app, once per toolkit
        .executableTarget(
            name: "SignInDemoGTK3",
            dependencies: ["SignIn", "BuiltInWebviewProvidersGTK3", "WebviewHost", "WebviewHostGTK3"],
            path: "Examples/SignInDemoGTK3"
        ),
        .executableTarget(
            name: "SignInDemoGTK4",
            dependencies: ["SignIn", "BuiltInWebviewProvidersGTK4", "WebviewHostGTK4", "WebviewHost"],
            path: "Examples/SignInDemoGTK4"
        ),

        // MARK: Tests: support (Tests/Support), scenario programs (Tests/Scenarios: a real gtk_main() in a
        // process of its own, launched by the test targets), test targets (Tests/Suites), benchmarks.
        // Tests/README.md says what each folder under Tests holds.
        .target(
            name: "ScenarioSupport", dependencies: ["WebviewHost", "GLibSupport", "CGLib"],
            path: "Tests/Support/ScenarioSupport"),
        // The test targets' `.desktop` trait: a test case that drives a desktop holds one of a few slots.
        .target(name: "TestTraits", dependencies: ["ScenarioSupport"], path: "Tests/Support/TestTraits"),
        .executableTarget(
            name: "GLibScenarios",
            dependencies: ["ScenarioSupport", "GLibSupport", "CGLib", "CWebKitGTK3", "WebviewHost", "BuiltInWebviewProvidersGTK3"],
            path: "Tests/Scenarios/GLibScenarios"
        ),
        .executableTarget(
            name: "SystemBrowserScenarios",
            dependencies: [
                "ScenarioSupport", "SystemBrowserProvider", "WebviewHost", "WebviewHostTestKit", "GLibSupport",
                "WebviewHostGTK3",
            ],
            path: "Tests/Scenarios/SystemBrowserScenarios"
        ),
        // The same embedded scenarios (Tests/Scenarios/EmbeddedScenariosShared, linked into both as `Shared`)
        // once per toolkit; each adds only its Toolkit.swift.
        .executableTarget(
            name: "EmbeddedScenariosGTK3",
            dependencies: [
                "ScenarioSupport", "EmbeddedWebviewProviderGTK3", "SystemBrowserProvider", "WebviewHost",
                "WebviewHostTestKit", "WebviewHostGTK3", "GLibSupport", "CGLib", "CWebKitGTK3", "CQREncode",
            ],
            path: "Tests/Scenarios/EmbeddedScenariosGTK3",
            exclude: ["Shared/README.md"]
        ),
        .executableTarget(
            name: "EmbeddedScenariosGTK4",
            dependencies: [
                "ScenarioSupport", "EmbeddedWebviewProviderGTK4", "SystemBrowserProvider", "WebviewHost",
                "WebviewHostTestKit", "WebviewHostGTK4", "GLibSupport", "CGLib", "CWebKitGTK4", "CQREncode",
            ],
            path: "Tests/Scenarios/EmbeddedScenariosGTK4",
            exclude: ["Shared/README.md"],
            swiftSettings: [.define("WEBKITGTK_6")]
        ),
        .executableTarget(
            name: "SignInScenarios",
            dependencies: [
                "ScenarioSupport", "SignIn", "BuiltInWebviewProvidersGTK3", "WebviewHost", "GLibSupport", "CGLib",
                "CWebKitGTK3", "SystemBrowserProvider", "MicrosoftIdentityBroker",
            ],
            path: "Tests/Scenarios/SignInScenarios"
        ),
        // Those of them that run on GTK 4 too: the same files (linked), with WebKitGTK 6.0.
        .executableTarget(
            name: "SignInScenariosGTK4",
            dependencies: [
                "ScenarioSupport", "SignIn", "BuiltInWebviewProvidersGTK4", "WebviewHost", "GLibSupport", "CGLib", "CWebKitGTK4",
            ],
            path: "Tests/Scenarios/SignInScenariosGTK4",
            swiftSettings: [.define("WEBKITGTK_6")]
        ),
        // A second process for the token cache tests: signs in, renews, lists, writes, over a store.
        .executableTarget(
            name: "TokenCacheScenarios",
            dependencies: ["ScenarioSupport", "SignIn", "TokenCache", "WebviewHost", .product(name: "Crypto", package: "swift-crypto")],
            path: "Tests/Scenarios/TokenCacheScenarios"
        ),
        // Only the toolkit-neutral pieces, so that ToolkitLinkTests can check with ldd that they link no GTK.
        .executableTarget(
            name: "ToolkitNeutralApp",
            dependencies: ["SignIn", "SystemBrowserProvider", "WebviewHost", "MicrosoftIdentityBroker"],
            path: "Tests/Scenarios/ToolkitNeutralApp"
        ),
        .testTarget(
            name: "WebviewHostTests", dependencies: ["WebviewHost", "WebviewHostTestKit", "ScenarioSupport", "TestTraits"], path: "Tests/Suites/WebviewHostTests"),
        .testTarget(
            name: "GLibSupportTests", dependencies: ["ScenarioSupport", "TestTraits", "GLibSupport", "CGLib"],
            path: "Tests/Suites/GLibSupportTests"),
        // Launches SystemBrowserScenarios with a temporary XDG desktop; links the provider for the
        // checks that need no browser.
        .testTarget(
            name: "SystemBrowserProviderTests", dependencies: ["ScenarioSupport", "TestTraits", "SystemBrowserProvider", "WebviewHost"],
            path: "Tests/Suites/SystemBrowserProviderTests"),
        // Launches EmbeddedScenariosGTK3 and ...GTK4, on X11 (Xvfb) and Wayland (a private Weston).
        .testTarget(
            name: "EmbeddedWebviewProviderTests",
            dependencies: ["ScenarioSupport", "TestTraits", "WebviewHostTestKit", .product(name: "Crypto", package: "swift-crypto")],
            path: "Tests/Suites/EmbeddedWebviewProviderTests"),
        .testTarget(
            name: "SignInTests",
            dependencies: [
                "MicrosoftIdentityBroker", "GLibSupport",  // the broker tests: Tests/Fixtures/BrokerDouble, a private D-Bus
                "ExternalWebviewProvider",
                "WebviewHostTestKit",  // the virtual security key of the Glewlwyd WebAuthn tests
                "SignIn", "TokenCache", "WebviewHost", "ScenarioSupport", "TestTraits",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ],
            path: "Tests/Suites/SignInTests"
        ),
        // SecurityKeys through libfido2 against the test kit's virtual authenticator, checked by
        // python3-fido2's relying-party server (Tests/Fixtures/WebAuthn).
        .testTarget(
            name: "SecurityKeysTests",
            dependencies: [
                "SecurityKeys", "WebviewHostTestKit", "WebviewHost", "ScenarioSupport", "TestTraits",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            path: "Tests/Suites/SecurityKeysTests"),
        .testTarget(
            name: "TerminalPromptProviderTests", dependencies: ["TerminalPromptProvider", "WebviewHost", "WebviewHostTestKit"],
            path: "Tests/Suites/TerminalPromptProviderTests"),
        .testTarget(
            name: "ExternalWebviewProviderTests",
            dependencies: ["ExternalWebviewProvider", "WebviewHost", "WebviewHostTestKit", "ScenarioSupport", "TestTraits"],
            path: "Tests/Suites/ExternalWebviewProviderTests"
        ),
        // ldd on SignInDemoGTK3, SignInDemoGTK4 and ToolkitNeutralApp: one GTK or none, never both.
        .testTarget(name: "ToolkitLinkTests", dependencies: ["ScenarioSupport", "TestTraits"], path: "Tests/Suites/ToolkitLinkTests"),
        // `Tests/Benchmarks/run.sh` builds the floors (bare C WebKitGTK programs) and runs these under
        // Xvfb; both compile Tests/Benchmarks/WebviewHostBenchShared through their `Shared` links.
        .executableTarget(
            name: "webview-host-bench",
            dependencies: [
                "ScenarioSupport", "EmbeddedWebviewProviderGTK3", "SystemBrowserProvider", "WebviewHost", "GLibSupport",
                "CGLib", "CWebKitGTK3", "SecurityKeys", "CFIDO2", "WebviewHostTestKit", .product(name: "Crypto", package: "swift-crypto"),
            ],
            path: "Tests/Benchmarks/WebviewHostBench"
        ),
        .executableTarget(
            name: "webview-host-bench-gtk4",
            dependencies: ["EmbeddedWebviewProviderGTK4", "WebviewHost", "GLibSupport", "CGLib", "CWebKitGTK4"],
            path: "Tests/Benchmarks/WebviewHostBenchGTK4",
            swiftSettings: [.define("WEBKITGTK_6")]
        ),
    ]
)

// Strict settings for every target of ours, in one place.
for target in package.targets where target.type != .system {
    var settings = target.swiftSettings ?? []
    settings.append(.swiftLanguageMode(.v6))
    settings.append(.enableUpcomingFeature("ExistentialAny"))
    settings.append(.enableUpcomingFeature("MemberImportVisibility"))
    settings.append(.enableUpcomingFeature("InternalImportsByDefault"))
    target.swiftSettings = settings
}
