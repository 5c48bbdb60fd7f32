// swift-tools-version: 6.1
// The README's snippets, compiled (and the parts that need no display, run) from outside the
// package, as an app would use it: only its products. `.ci/run` builds and runs it.
import PackageDescription

let package = Package(
    name: "ReadmeCheck",
    platforms: [.macOS(.v15)],
    // Through a link named after the package (made by .ci/run), so the dependency's identity is
    // "WebviewHost" wherever the checkout lives.
    dependencies: [.package(path: ".checkout/WebviewHost")],
    targets: [
        .executableTarget(
            name: "ReadmeCheck",
            dependencies: [
                .product(name: "WebviewHost", package: "WebviewHost"),
                .product(name: "WebviewHostGTK3", package: "WebviewHost"),
                .product(name: "BuiltInWebviewProvidersGTK3", package: "WebviewHost"),
                .product(name: "EmbeddedWebviewProviderGTK3", package: "WebviewHost"),
                .product(name: "SignIn", package: "WebviewHost"),
                .product(name: "ExternalWebviewProvider", package: "WebviewHost"),
                .product(name: "MicrosoftIdentityBroker", package: "WebviewHost"),
            ],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        // The DocC articles' examples (docs-examples.py writes their Generated.swift): compiled,
        // not run; one target per toolkit, as a process loads one.
        .target(
            name: "DocsCheck",
            dependencies: [
                .product(name: "WebviewHost", package: "WebviewHost"),
                .product(name: "WebviewHostTestKit", package: "WebviewHost"),
                // TokenCache alone, without SignIn: its article's example reads a store.
                .product(name: "TokenCache", package: "WebviewHost"),
            ],
            // The examples bind values they do not use (`let observation = ...`), as an app's
            // code around them would.
            swiftSettings: [.swiftLanguageMode(.v6), .unsafeFlags(["-suppress-warnings"])]
        ),
        .target(
            name: "DocsCheckGTK3",
            dependencies: [
                .product(name: "WebviewHostGTK3", package: "WebviewHost"),
                .product(name: "BuiltInWebviewProvidersGTK3", package: "WebviewHost"),
            ],
            swiftSettings: [.swiftLanguageMode(.v6), .unsafeFlags(["-suppress-warnings"])]
        ),
        .target(
            name: "DocsCheckGTK4",
            dependencies: [
                .product(name: "WebviewHostGTK4", package: "WebviewHost"),
                .product(name: "BuiltInWebviewProvidersGTK4", package: "WebviewHost"),
            ],
            swiftSettings: [.swiftLanguageMode(.v6), .unsafeFlags(["-suppress-warnings"])]
        ),
        // The GTK 4 start-up: its own executable, as a process loads one toolkit.
        .executableTarget(
            name: "ReadmeCheckGTK4",
            dependencies: [
                .product(name: "WebviewHost", package: "WebviewHost"),
                .product(name: "WebviewHostGTK4", package: "WebviewHost"),
                .product(name: "BuiltInWebviewProvidersGTK4", package: "WebviewHost"),
            ],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
    ]
)
