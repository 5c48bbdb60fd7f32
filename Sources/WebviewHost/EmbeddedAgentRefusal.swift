/// A rule that recognises an identity provider's page refusing embedded user agents, such as
/// Google's "Error 403: disallowed_useragent": a page matching one hands the sign-in over to the
/// person's browser (see ``SystemBrowserHandOverPolicy``).
///
/// A page matches when its address contains one of ``urlContains`` or its visible text contains
/// one of ``pageTextContains`` (plain, case-sensitive substrings; the text is checked once the
/// document has loaded). Add the app's own rules to ``WebviewParameters/embeddedAgentRefusals``.
public struct EmbeddedAgentRefusal: Hashable, Sendable, CustomStringConvertible {
    /// For logs and the hand-over's detail: which provider or rule this is.
    public var name: String
    public var urlContains: [String]
    public var pageTextContains: [String]

    public init(name: String, urlContains: [String] = [], pageTextContains: [String] = []) {
        self.name = name
        self.urlContains = urlContains.filter { !$0.isEmpty }
        self.pageTextContains = pageTextContains.filter { !$0.isEmpty }
    }

    public var description: String { name }

    /// Google's answer to embedded views: "Error 403: disallowed_useragent" ("This browser or app
    /// may not be secure"); the code is in the error page's address and text.
    public static let googleDisallowedUserAgent = EmbeddedAgentRefusal(
        name: "Google: disallowed_useragent",
        urlContains: ["disallowed_useragent"],
        pageTextContains: ["disallowed_useragent"])

    /// The rules ``WebviewParameters`` starts with.
    public static let known: [EmbeddedAgentRefusal] = [.googleDisallowedUserAgent]

    /// The first rule whose address part `address` contains.
    public static func firstMatch(address: String, in rules: [EmbeddedAgentRefusal]) -> EmbeddedAgentRefusal? {
        rules.first { rule in rule.urlContains.contains { contains(address, $0) } }
    }

    /// Whether `text` contains `part`, compared as UTF-8 bytes (a page's address, as WebKit
    /// gives it, is ASCII: anything else is percent-encoded; rules name their parts the same way).
    /// Not the standard library's `contains(_:)`, which lives in `_StringProcessing`, nor
    /// Foundation's `range(of:)`, which goes through `NSString` on Linux: a sign-in loads neither's
    /// code otherwise (about 0.2 MiB resident, which the benchmark's memory goal counts).
    static func contains(_ text: String, _ part: String) -> Bool {
        let text = Array(text.utf8), part = Array(part.utf8)
        guard !part.isEmpty else { return true }
        guard text.count >= part.count else { return false }
        return (0...(text.count - part.count)).contains { start in text[start..<(start + part.count)].elementsEqual(part) }
    }
}
