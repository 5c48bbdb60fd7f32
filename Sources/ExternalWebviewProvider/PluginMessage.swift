import Foundation
import WebviewHost

/// A message from an external provider to the host: one JSON object on one line of its
/// standard output (`ExternalProviders.md` specifies each).
enum PluginMessage: Sendable, Equatable {
    case hello(protocolVersion: Int, capabilities: [String])
    case prepared(redirectURI: String)
    case didStartLoad(URL)
    case didFinishLoad(URL)
    case redirect(String)
    case fail(code: String, message: String)
    case switchToBroker(URL)
    /// The page needs the person's browser (a passkey, a provider refusing embedded agents).
    case handOverToSystemBrowser(SystemBrowserHandOver)

    var type: String {
        switch self {
        case .hello: "hello"
        case .prepared: "prepared"
        case .didStartLoad: "didStartLoad"
        case .didFinishLoad: "didFinishLoad"
        case .redirect: "redirect"
        case .fail: "fail"
        case .switchToBroker: "switchToBroker"
        case .handOverToSystemBrowser: "handOverToSystemBrowser"
        }
    }

    /// The longest `code` a `fail` message may carry, in bytes.
    static let maxCodeLength = 64
    /// What the host keeps of a `fail` message: one line of this many characters.
    static let maxFailMessageLength = 500
    /// The longest `reason` a `handOverToSystemBrowser` message may carry, in bytes.
    static let maxReasonLength = 64
    /// What the host keeps of a hand-over's `detail`: one line of this many characters.
    static let maxHandOverDetailLength = 500

    /// Why a line is not a message; the text names the rule, never the line (it may hold a code).
    struct Malformed: Error {
        let reason: String
    }

    /// Reads one line (without its newline).
    static func parse(_ line: some Collection<UInt8>) throws(Malformed) -> PluginMessage {
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: Data(line), options: [])
        } catch {
            throw Malformed(reason: "a line that is not JSON")
        }
        guard let fields = object as? [String: Any] else { throw Malformed(reason: "a JSON line that is not an object") }
        guard let type = fields["type"] as? String else { throw Malformed(reason: "a message without a \"type\" string") }

        /// A required string. Only `limit`ed where the protocol says so: a field that carries a URL
        /// takes whatever the app sent (the line's length is the only bound).
        func string(_ key: String, limit: Int? = nil) throws(Malformed) -> String {
            guard let value = fields[key] as? String, !value.isEmpty else {
                throw Malformed(reason: "a \(type) message without a \"\(key)\" string")
            }
            if let limit, value.utf8.count > limit {
                throw Malformed(reason: "a \(type) message whose \"\(key)\" is longer than \(limit) bytes")
            }
            return value
        }
        func url(_ key: String) throws(Malformed) -> URL {
            guard let url = URL(string: try string(key)), url.scheme != nil else {
                throw Malformed(reason: "a \(type) message whose \"\(key)\" is not an absolute URL")
            }
            return url
        }

        switch type {
        case "hello":
            guard let version = fields["protocolVersion"] as? Int else {
                throw Malformed(reason: "a hello message without a whole-number \"protocolVersion\"")
            }
            let capabilities = (fields["capabilities"] as? [Any])?.compactMap { $0 as? String } ?? []
            return .hello(protocolVersion: version, capabilities: capabilities)
        case "prepared": return .prepared(redirectURI: try string("redirectURI"))
        case "didStartLoad": return .didStartLoad(try url("url"))
        case "didFinishLoad": return .didFinishLoad(try url("url"))
        case "redirect": return .redirect(try string("url"))
        case "switchToBroker": return .switchToBroker(try url("url"))
        case "fail":
            let code = try string("code", limit: Self.maxCodeLength)
            guard code.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) else {
                throw Malformed(reason: "a fail message whose \"code\" is not a name of letters and digits")
            }
            // Any length the line allows: the host cuts it to one line of `maxFailMessageLength` characters.
            return .fail(code: code, message: try string("message"))
        case "handOverToSystemBrowser":
            let reason = try string("reason", limit: Self.maxReasonLength)
            guard reason.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) else {
                throw Malformed(reason: "a handOverToSystemBrowser message whose \"reason\" is not a name of letters and digits")
            }
            // Optional: a plugin may have nothing to add, or no page yet.
            let detail: String
            switch fields["detail"] {
            case nil, is NSNull: detail = "the sign-in provider asked for the person's browser"
            case let text as String where !text.isEmpty:
                detail = oneLine(text, limit: Self.maxHandOverDetailLength)
            default: throw Malformed(reason: "a handOverToSystemBrowser message whose \"detail\" is not a string")
            }
            let page: URL?
            switch fields["url"] {
            case nil, is NSNull: page = nil
            default: page = try url("url")
            }
            return .handOverToSystemBrowser(
                SystemBrowserHandOver(reason: SystemBrowserHandOver.Reason(reason), detail: detail, pageURL: page))
        default:
            throw Malformed(reason: "a message of unknown type \"\(type.prefix(40))\"")
        }
    }

    /// A plugin's own words on one line of at most `limit` characters (an ellipsis ends a cut
    /// one): they are shown to people and logged.
    static func oneLine(_ text: String, limit: Int) -> String {
        let flat = String(text.unicodeScalars.map { $0.properties.generalCategory == .control ? " " : Character($0) })
        return flat.count > limit ? String(flat.prefix(limit - 1)) + "…" : flat
    }
}

extension WebAuthEvent.Kind {
    /// The plugin message after which the host delivers this step (the "Plugin to host" table of
    /// `ExternalProviders.md`; a test checks that table and ``PluginMessage/parse(_:)`` know it):
    /// a new step does not compile until it says how an external provider reports it.
    var pluginMessageType: String {
        switch self {
        case .didStartLoad: "didStartLoad"
        case .didFinishLoad: "didFinishLoad"
        case .willSwitchToBrokerApp: "switchToBroker"
        case .willSwitchToSystemBrowser: "handOverToSystemBrowser"
        case .didComplete: "redirect"
        case .didFail: "fail"
        }
    }
}

/// A message from the host to an external provider.
enum HostMessage: Sendable {
    case hello
    case prepare(redirectURI: URL, parameters: WebviewParameters)
    /// Show the page; `canHandOver` is ``WebAuthSessionReporter/canHandOverToSystemBrowser`` now.
    case present(URL, canHandOverToSystemBrowser: Bool)
    case brokerUnavailable(URL)
    case dismiss

    /// The message as one JSON line, newline included. Slashes are not escaped, so a plugin in
    /// a shell can read a URL with a pattern.
    var line: Data {
        var fields: [String: Any]
        switch self {
        case .hello:
            fields = [
                "type": "hello", "host": "WebviewHost",
                "protocolVersions": Array(ProviderDescriptor.supportedProtocolVersions),
            ]
        case .prepare(let redirectURI, let parameters):
            var described: [String: Any] = [
                "prefersEphemeralWebBrowserSession": parameters.prefersEphemeralWebBrowserSession,
                "windowTitle": parameters.windowTitle,
                "windowWidth": parameters.windowSize.width,
                "windowHeight": parameters.windowSize.height,
                "options": parameters.providerOptions,
                "systemBrowserHandOver": Self.name(of: parameters.systemBrowserHandOver),
            ]
            if let timeout = parameters.timeout {
                described["timeoutSeconds"] = Double(timeout.components.seconds)
                    + Double(timeout.components.attoseconds) / 1e18
            }
            fields = ["type": "prepare", "redirectURI": redirectURI.absoluteString, "parameters": described]
        case .present(let url, let canHandOver):
            fields = ["type": "present", "url": url.absoluteString, "canHandOverToSystemBrowser": canHandOver]
        case .brokerUnavailable(let url):
            fields = ["type": "brokerUnavailable", "url": url.absoluteString]
        case .dismiss:
            fields = ["type": "dismiss"]
        }
        // Serialization of these dictionaries (strings, numbers, booleans) cannot fail.
        var data = (try? JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data()
        data.append(UInt8(ascii: "\n"))
        return data
    }

    /// The policy's name in `prepare`'s parameters.
    private static func name(of policy: SystemBrowserHandOverPolicy) -> String {
        switch policy {
        case .automatic: "automatic"
        case .askFirst: "askFirst"
        case .never: "never"
        }
    }
}
