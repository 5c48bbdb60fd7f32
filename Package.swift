// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "WebviewHost",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "WebviewHost", targets: ["WebviewHost"]),
        .library(name: "WebviewHostTestKit", targets: ["WebviewHostTestKit"]),
        .library(name: "GLibSupport", targets: ["GLibSupport"]),
        .library(name: "SystemBrowserProvider", targets: ["SystemBrowserProvider"]),
        // GTK 3 + WebKitGTK 4.1 apps
        .library(name: "WebviewHostGTK3", targets: ["WebviewHostGTK3"]),
        .library(name: "EmbeddedWebviewProvider", targets: ["EmbeddedWebviewProvider"]),
        .library(name: "BuiltInWebviewProviders", targets: ["BuiltInWebviewProviders"]),
        // GTK 4 + WebKitGTK 6.0 apps
        .library(name: "WebviewHostGTK4", targets: ["WebviewHostGTK4"]),
        .library(name: "EmbeddedWebviewProviderGTK4", targets: ["EmbeddedWebviewProviderGTK4"]),
        .library(name: "BuiltInWebviewProvidersGTK4", targets: ["BuiltInWebviewProvidersGTK4"]),
        .library(name: "SignIn", targets: ["SignIn"]),
        .library(name: "TerminalPromptProvider", targets: ["TerminalPromptProvider"]),
        .library(name: "ExternalWebviewProvider", targets: ["ExternalWebviewProvider"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
    ],
    targets: [
        // MARK: Host (Foundation and swift-log; no C library)
        .target(
            name: "WebviewHost",
            dependencies: [.product(name: "Logging", package: "swift-log")]
        ),
        .target(name: "WebviewHostTestKit", dependencies: ["WebviewHost"]),

        // MARK: C libraries. A process loads GTK 3 or GTK 4, never both: only the toolkit modules link one.
        // GLib, GObject, GIO and libsoup 3, no toolkit.
        .systemLibrary(
            name: "CGLib",
            pkgConfig: "libsoup-3.0",
            providers: [.apt(["libsoup-3.0-dev", "libglib2.0-dev"])]
        ),
        // GTK 3 + WebKitGTK 4.1.
        .systemLibrary(
            name: "CWebKitGTK",
            pkgConfig: "webkit2gtk-4.1",
            providers: [.apt(["libwebkit2gtk-4.1-dev", "libgtk-3-dev"])]
        ),
        // GTK 4 + WebKitGTK 6.0.
        .systemLibrary(
            name: "CWebKitGTK6",
            pkgConfig: "webkitgtk-6.0",
            providers: [.apt(["libwebkitgtk-6.0-dev", "libgtk-4-dev"])]
        ),
        .target(name: "GLibSupport", dependencies: ["CGLib"]),
        // What a GTK 3 app imports to call GTK and WebKit (the C modules are not products of their own).
        // Both toolkit targets compile Sources/WebviewHostGTKShared through their `Shared` links.
        .target(name: "WebviewHostGTK3", dependencies: ["CGLib", "CWebKitGTK", "GLibSupport"]),
        // The same for a GTK 4 app.
        .target(
            name: "WebviewHostGTK4", dependencies: ["CGLib", "CWebKitGTK6", "GLibSupport"],
            swiftSettings: [.define("WEBKITGTK_6")]),

        // MARK: Built-in providers
        // Toolkit-neutral: loads in GTK 3 and GTK 4 apps (the toolkit's launch context comes through
        // GLibSupport's ToolkitIntegration).
        .target(name: "SystemBrowserProvider", dependencies: ["WebviewHost", "GLibSupport", "CGLib"]),
        // The embedded provider, once per toolkit: Sources/EmbeddedWebviewShared holds every
        // decision (compiled into both through their `Shared` links); each target adds its window
        // and the few WebKit calls that differ (WebKitToolkit.swift). Its toolkit module gives it the
        // launch context other apps are started with (ToolkitIntegration.gtk3 / .gtk4).
        .target(
            name: "EmbeddedWebviewProvider",
            dependencies: ["WebviewHost", "GLibSupport", "CGLib", "CWebKitGTK", "WebviewHostGTK3"],
            exclude: ["Shared/README.md"]
        ),
        .target(
            name: "EmbeddedWebviewProviderGTK4",
            dependencies: ["WebviewHost", "GLibSupport", "CGLib", "CWebKitGTK6", "WebviewHostGTK4"],
            exclude: ["Shared/README.md"],
            swiftSettings: [.define("WEBKITGTK_6")]
        ),
        .target(
            name: "BuiltInWebviewProviders",
            dependencies: ["WebviewHost", "EmbeddedWebviewProvider", "SystemBrowserProvider", "WebviewHostGTK3"]
        ),
        .target(
            name: "BuiltInWebviewProvidersGTK4",
            dependencies: ["WebviewHost", "EmbeddedWebviewProviderGTK4", "SystemBrowserProvider", "WebviewHostGTK4"]
        ),

        // MARK: Tests
        .testTarget(name: "WebviewHostTests", dependencies: ["WebviewHost", "WebviewHostTestKit"]),
        // GTK scenarios run in a real `gtk_main()` in their own process; the test target launches them.
        .target(
            name: "ScenarioSupport",
            dependencies: ["WebviewHost", "GLibSupport", "CGLib"],
            path: "Tests/ScenarioSupport"
        ),
        .executableTarget(
            name: "GLibScenarios",
            dependencies: ["ScenarioSupport", "GLibSupport", "CGLib", "CWebKitGTK", "WebviewHost", "BuiltInWebviewProviders"],
            path: "Tests/GLibScenarios"
        ),
        .testTarget(name: "GLibSupportTests", dependencies: ["ScenarioSupport", "GLibSupport", "CGLib"]),

        // MARK: System browser tests
        .executableTarget(
            name: "SystemBrowserScenarios",
            dependencies: [
                "ScenarioSupport", "SystemBrowserProvider", "WebviewHost", "WebviewHostTestKit", "GLibSupport",
                "WebviewHostGTK3",
            ],
            path: "Tests/SystemBrowserScenarios"
        ),
        // Launches SystemBrowserScenarios (built beside it by `swift test`) with a temporary XDG setup.
        // Also links SystemBrowserProvider for the checks that need no browser (scheme validation).
        .testTarget(
            name: "SystemBrowserProviderTests",
            dependencies: ["ScenarioSupport", "SystemBrowserProvider", "WebviewHost"]
        ),

        // MARK: Embedded provider tests
        // Real WebKitGTK sessions in a real gtk_main(), against libsoup servers on 127.0.0.1.
        // The same scenarios (Tests/EmbeddedScenariosShared, linked into both as `Shared`) once per
        // provider; each target adds only its Toolkit.swift (the calls GTK 3 and GTK 4 make differently).
        .executableTarget(
            name: "EmbeddedScenarios",
            dependencies: [
                "ScenarioSupport", "EmbeddedWebviewProvider", "SystemBrowserProvider", "WebviewHost", "WebviewHostTestKit",
                "GLibSupport", "CGLib", "CWebKitGTK",
            ],
            path: "Tests/EmbeddedScenarios",
            exclude: ["Shared/README.md"]
        ),
        .executableTarget(
            name: "EmbeddedScenariosGTK4",
            dependencies: [
                "ScenarioSupport", "EmbeddedWebviewProviderGTK4", "SystemBrowserProvider", "WebviewHost", "WebviewHostTestKit",
                "GLibSupport", "CGLib", "CWebKitGTK6",
            ],
            path: "Tests/EmbeddedScenariosGTK4",
            exclude: ["Shared/README.md"],
            swiftSettings: [.define("WEBKITGTK_6")]
        ),
        .testTarget(
            name: "EmbeddedWebviewProviderTests",
            dependencies: ["ScenarioSupport"]
        ),

        // MARK: SignIn
        // libsecret (GLib + GIO only, no toolkit) for the default token cache store, the Secret Service.
        .systemLibrary(
            name: "CLibSecret",
            pkgConfig: "libsecret-1",
            providers: [.apt(["libsecret-1-dev"])]
        ),
        // MSAL-style public client over WebviewHost: OIDC discovery, PKCE, code exchange, ID token checks,
        // a token cache in MSAL's format in a pluggable store.
        .target(
            name: "SignIn",
            dependencies: [
                "WebviewHost", "CLibSecret",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ]
        ),
        .executableTarget(
            name: "SignInScenarios",
            dependencies: ["ScenarioSupport", "SignIn", "BuiltInWebviewProviders", "WebviewHost", "GLibSupport", "CGLib", "CWebKitGTK"],
            path: "Tests/SignInScenarios"
        ),
        // A second process for the token cache tests: signs in, renews, lists, writes, over a store.
        .executableTarget(
            name: "TokenCacheScenarios",
            dependencies: ["ScenarioSupport", "SignIn", "WebviewHost", .product(name: "Crypto", package: "swift-crypto")],
            path: "Tests/TokenCacheScenarios"
        ),
        .testTarget(
            name: "SignInTests",
            dependencies: [
                "MicrosoftIdentityBroker", "GLibSupport",  // the broker tests, against Tests/BrokerDouble on a private D-Bus
                "ExternalWebviewProvider",
                "SignIn", "WebviewHost", "ScenarioSupport",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ]
        ),

        // MARK: Plugins (providers outside the built-ins: they import WebviewHost only)
        .target(
            name: "TerminalPromptProvider", dependencies: ["WebviewHost", "ExternalWebviewProvider"],
            path: "Plugins/TerminalPromptProvider"),
        .testTarget(name: "TerminalPromptProviderTests", dependencies: ["TerminalPromptProvider", "WebviewHost", "WebviewHostTestKit"]),
        // Providers in other processes, any language: descriptor discovery (GKeyFile), the JSON-lines
        // protocol, and ChildProcess. GLib through the GLib-only CGLib (no toolkit); the child process
        // and its output stay on posix_spawn and poll: ChildProcess.swift and OutputReader.swift say why.
        .target(name: "ExternalWebviewProvider", dependencies: ["WebviewHost", "GLibSupport", "CGLib"]),
        .testTarget(
            name: "ExternalWebviewProviderTests",
            dependencies: ["ExternalWebviewProvider", "WebviewHost", "WebviewHostTestKit", "ScenarioSupport"]
        ),

        // MARK: Toolkit links
        // Only the toolkit-neutral pieces, so that ToolkitLinkTests can check with ldd that they link no GTK.
        .executableTarget(
            name: "ToolkitNeutralApp",
            dependencies: ["SignIn", "SystemBrowserProvider", "WebviewHost", "MicrosoftIdentityBroker"],
            path: "Tests/ToolkitNeutralApp"
        ),
        // ldd on SignInDemoGTK4, SignInDemo and ToolkitNeutralApp (built beside the test bundle):
        // each links one GTK or none, never both.
        .testTarget(name: "ToolkitLinkTests", dependencies: ["ScenarioSupport"]),

        // MARK: Benchmarks
        // `Tests/Benchmarks/run.sh` builds the floor (a bare C WebKitGTK program) and runs this under Xvfb.
        .executableTarget(
            name: "webview-host-bench",
            dependencies: [
                "ScenarioSupport", "EmbeddedWebviewProvider", "SystemBrowserProvider", "WebviewHost", "GLibSupport",
                "CGLib", "CWebKitGTK",
            ],
            path: "Tests/Benchmarks/WebviewHostBench"
        ),
        // Its GTK 4 children (the `-gtk4` variants): Tests/Benchmarks/WebviewHostBenchShared, linked into
        // both as `Shared`, with this binary's Toolkit.swift.
        .executableTarget(
            name: "webview-host-bench-gtk4",
            dependencies: ["EmbeddedWebviewProviderGTK4", "WebviewHost", "GLibSupport", "CGLib", "CWebKitGTK6"],
            path: "Tests/Benchmarks/WebviewHostBenchGTK4",
            swiftSettings: [.define("WEBKITGTK_6")]
        ),

        // MARK: Examples
        .executableTarget(
            name: "SignInDemo",
            dependencies: ["SignIn", "BuiltInWebviewProviders", "WebviewHost", "WebviewHostGTK3"],
            path: "Examples/SignInDemo"
        ),
        // The same app for GTK 4 and WebKitGTK 6.0 (a GtkApplication); never links GTK 3.
        .executableTarget(
            name: "SignInDemoGTK4",
            dependencies: ["SignIn", "BuiltInWebviewProvidersGTK4", "WebviewHostGTK4", "WebviewHost"],
            path: "Examples/SignInDemoGTK4"
        ),
    ]
)

// MARK: Token brokers
// Microsoft's identity broker over D-Bus (GIO's GDBus, no toolkit), a `TokenBroker` for SignIn.
package.products.append(.library(name: "MicrosoftIdentityBroker", targets: ["MicrosoftIdentityBroker"]))
package.targets += [
    .target(
        name: "MicrosoftIdentityBroker",
        dependencies: ["SignIn", "WebviewHost", "GLibSupport", "CGLib", .product(name: "Logging", package: "swift-log")],
        path: "Plugins/MicrosoftIdentityBroker"
    ),
]

// Strict settings for every target of ours, in one place.
for target in package.targets where target.type != .system {
    var settings = target.swiftSettings ?? []
    settings.append(.swiftLanguageMode(.v6))
    settings.append(.enableUpcomingFeature("ExistentialAny"))
    settings.append(.enableUpcomingFeature("MemberImportVisibility"))
    settings.append(.enableUpcomingFeature("InternalImportsByDefault"))
    target.swiftSettings = settings
}
