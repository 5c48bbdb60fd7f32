public import Foundation
public import WebviewHost

/// Where installed providers' descriptors are looked for, and what was found there.
///
/// Like D-Bus services and desktop entries: `$XDG_DATA_HOME/webview-host/providers/`
/// (default `~/.local/share`), then each of `$XDG_DATA_DIRS` (default `/usr/local/share:/usr/share`)
/// with `/webview-host/providers/` appended, then the app's own directories. Every `*.provider`
/// file there is read; on a duplicate identifier the earlier directory wins (a person's own
/// install overrides the administrator's, which overrides the distribution's) and the later one
/// is reported as shadowed.
public enum InstalledProviders {
    /// The directory under each XDG data directory.
    public static let subdirectory = "webview-host/providers"

    /// The search path for `environment`, in order of precedence, followed by `extraDirectories`.
    public static func searchPath(
        environment: [String: String] = ProcessInfo.processInfo.environment, extraDirectories: [URL] = []
    ) -> [URL] {
        var directories: [URL] = []
        if let dataHome = environment["XDG_DATA_HOME"], dataHome.hasPrefix("/") {
            directories.append(URL(fileURLWithPath: dataHome))
        } else if let home = environment["HOME"], home.hasPrefix("/") {
            directories.append(URL(fileURLWithPath: home).appendingPathComponent(".local/share"))
        }
        let dataDirs = environment["XDG_DATA_DIRS"].flatMap { $0.isEmpty ? nil : $0 } ?? "/usr/local/share:/usr/share"
        // The spec says relative entries are invalid and are ignored.
        directories += dataDirs.split(separator: ":").filter { $0.hasPrefix("/") }.map { URL(fileURLWithPath: String($0)) }
        var seen = Set<String>()
        return (directories.map { $0.appendingPathComponent(subdirectory, isDirectory: true) } + extraDirectories)
            .filter { seen.insert($0.standardizedFileURL.path).inserted }
    }

    /// Reads every descriptor on `searchPath` (missing directories are skipped) and decides which
    /// wins for each identifier. Registers nothing: see
    /// `WebviewProviderRegistry.registerInstalledProviders(extraDirectories:)`.
    public static func discover(in searchPath: [URL]) -> Report {
        var report = Report(searchPath: searchPath)
        var winners: [WebviewProviderID: ProviderDescriptor] = [:]
        for directory in searchPath {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
            // Sorted, so that two files in one directory with the same Id resolve the same way every time.
            for name in names.sorted() where name.hasSuffix(".provider") {
                let file = directory.appendingPathComponent(name)
                let descriptor: ProviderDescriptor
                do {
                    descriptor = try ProviderDescriptor(contentsOf: file)
                } catch {
                    report.refused.append(.init(file: file, reason: error.description))
                    continue
                }
                if let winner = winners[descriptor.id] {
                    report.shadowed.append(.init(descriptor: descriptor, shadowedBy: winner.file))
                    continue
                }
                winners[descriptor.id] = descriptor
                report.loaded.append(descriptor)
            }
        }
        return report
    }

    /// What discovery found.
    public struct Report: Sendable, CustomStringConvertible {
        /// Where it looked, in order of precedence.
        public var searchPath: [URL]
        /// The descriptors that won, in the order found (registered unless ``InstalledProviders/Report/notRegistered`` says otherwise).
        public var loaded: [ProviderDescriptor] = []
        /// Descriptors whose identifier an earlier one (or a provider the app registered) already had.
        public var shadowed: [Shadowed] = []
        /// Files that are not valid descriptors, with the reason.
        public var refused: [Refused] = []

        public struct Shadowed: Sendable, Hashable {
            public var descriptor: ProviderDescriptor
            /// The descriptor that won, or `nil` when the app registered that identifier itself.
            public var shadowedBy: URL?
        }

        public struct Refused: Sendable, Hashable {
            public var file: URL
            public var reason: String
        }

        public init(searchPath: [URL]) {
            self.searchPath = searchPath
        }

        /// One line per finding, for logs and `--list-providers` style output.
        public var description: String {
            var lines = ["Installed sign-in providers (searched \(searchPath.map(\.path).joined(separator: ", "))):"]
            for descriptor in loaded {
                lines.append("  loaded \(descriptor.id) from \(descriptor.file?.path ?? "code")")
            }
            for entry in shadowed {
                let winner = entry.shadowedBy?.path ?? "a provider the app registered"
                lines.append("  shadowed \(entry.descriptor.id) from \(entry.descriptor.file?.path ?? "code") by \(winner)")
            }
            for entry in refused {
                lines.append("  refused \(entry.file.path): \(entry.reason)")
            }
            return lines.joined(separator: "\n")
        }
    }
}

extension WebviewProviderRegistry {
    /// Registers every installed provider (see ``InstalledProviders``): after this they are
    /// chosen by the policy, named by `.provider("id")` and listed by `WEBVIEW_HOST_PROVIDER=help`
    /// like any registered provider. Call it once at start, after registering the app's own
    /// providers: an installed descriptor never replaces a provider registered in code (it is
    /// reported as shadowed), so a file on disk cannot take over `system-browser`.
    ///
    /// - Parameters:
    ///   - extraDirectories: the app's own descriptor directories, searched after the XDG ones.
    ///   - limits: the limits every installed provider is held to.
    /// - Returns: what was loaded, shadowed and refused, and why.
    @discardableResult
    public static func registerInstalledProviders(
        extraDirectories: [URL] = [], environment: [String: String] = ProcessInfo.processInfo.environment,
        limits: ExternalProvider.Limits = .init()
    ) -> InstalledProviders.Report {
        var report = InstalledProviders.discover(
            in: InstalledProviders.searchPath(environment: environment, extraDirectories: extraDirectories))
        var registered: [ProviderDescriptor] = []
        for descriptor in report.loaded {
            if let existing = provider(withID: descriptor.id), !(existing is ExternalProvider) {
                report.shadowed.append(.init(descriptor: descriptor, shadowedBy: nil))
                continue
            }
            register(ExternalProvider(descriptor: descriptor, limits: limits))
            registered.append(descriptor)
        }
        report.loaded = registered
        return report
    }
}
