import Foundation

/// The sandbox an app runs in (Flatpak or Snap), as far as the app can see it: what it shares
/// with the host, which decides what a sign-in can do there.
///
/// Flatpak writes `/.flatpak-info` into every sandbox (a key file: `[Application] name`,
/// `[Context] shared`, `sockets`, `[Session Bus Policy]`); xdg-desktop-portal reads the same file
/// to know the app. Snap says less: `SNAP` and `SNAP_NAME` in the environment.
public struct WebviewSandbox: Sendable, Hashable {
    public enum Kind: String, Sendable, Hashable {
        case flatpak
        case snap
    }

    public var kind: Kind
    /// The app's id in the sandbox (Flatpak's `[Application] name`, else `FLATPAK_ID`; Snap's
    /// `SNAP_NAME`), or `nil` when the sandbox does not say.
    public var applicationID: String?
    /// Whether the sandbox shares the host's network (Flatpak's `--share=network`): without it,
    /// a loopback listener in the sandbox can never be reached by the person's browser. `nil`
    /// when the sandbox does not say (Snap).
    public var sharesNetwork: Bool?
    /// Flatpak's sockets (`wayland`, `x11`, `fallback-x11`, `session-bus`...).
    public var sockets: Set<String>
    /// The session-bus names the app may talk to besides the portals (`--talk-name`), by name,
    /// with the policy (`talk`, `own`, `see`).
    public var sessionBusPolicy: [String: String]

    public init(
        kind: Kind, applicationID: String?, sharesNetwork: Bool?, sockets: Set<String> = [], sessionBusPolicy: [String: String] = [:]
    ) {
        self.kind = kind
        self.applicationID = applicationID
        self.sharesNetwork = sharesNetwork
        self.sockets = sockets
        self.sessionBusPolicy = sessionBusPolicy
    }

    /// The sandbox of a Flatpak app whose `/.flatpak-info` reads `text`.
    public init(flatpakInfo text: String, variables: [String: String] = [:]) {
        var groups: [String: [String: String]] = [:]
        var group = ""
        for raw in text.split(whereSeparator: \.isNewline) {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") { continue }
            if line.hasPrefix("["), line.hasSuffix("]") {
                group = String(line.dropFirst().dropLast())
                continue
            }
            guard let equals = line.firstIndex(of: "=") else { continue }
            let key = line[..<equals].trimmingCharacters(in: .whitespaces)
            groups[group, default: [:]][key] = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
        }
        func list(_ value: String?) -> Set<String> {
            Set((value ?? "").split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty })
        }
        let context = groups["Context"] ?? [:]
        self.init(
            kind: .flatpak, applicationID: groups["Application"]?["name"] ?? variables["FLATPAK_ID"],
            sharesNetwork: list(context["shared"]).contains("network"), sockets: list(context["sockets"]),
            sessionBusPolicy: groups["Session Bus Policy"] ?? [:])
    }

    /// The sandbox this process runs in: `/.flatpak-info`, else Flatpak's or Snap's variables;
    /// `nil` outside a sandbox.
    public static func current(variables: [String: String]) -> WebviewSandbox? {
        // access(2) first: outside a sandbox nothing of Foundation's file reading is loaded.
        if access("/.flatpak-info", F_OK) == 0, let text = try? String(contentsOfFile: "/.flatpak-info", encoding: .utf8) {
            return WebviewSandbox(flatpakInfo: text, variables: variables)
        }
        if let id = variables["FLATPAK_ID"] {
            return WebviewSandbox(kind: .flatpak, applicationID: id, sharesNetwork: nil)
        }
        if variables["SNAP"] != nil {
            return WebviewSandbox(kind: .snap, applicationID: variables["SNAP_NAME"], sharesNetwork: nil)
        }
        return nil
    }

    /// One line for `help` and messages: "Flatpak (app id org.example.App; shares network; sockets wayland, fallback-x11)".
    public var summary: String {
        var parts: [String] = []
        if let applicationID { parts.append("app id \(applicationID)") }
        switch sharesNetwork {
        case true?: parts.append("shares the network")
        case false?: parts.append("no network (--share=network is missing)")
        case nil: break
        }
        if !sockets.isEmpty { parts.append("sockets " + sockets.sorted().joined(separator: ", ")) }
        let name = kind == .flatpak ? "Flatpak" : "Snap"
        return parts.isEmpty ? name : "\(name) (\(parts.joined(separator: "; ")))"
    }
}
