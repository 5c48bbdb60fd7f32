/// What an embedded sign-in does when a page navigates to a URI scheme that is neither web
/// (`http`, `https`), nor the redirect URI, nor a registered broker's (`mailto:`, `tel:`,
/// `zoommtg:`, another app's own scheme).
///
/// Browsers never start another app for a page on their own, and neither does the library: a
/// page's navigation to such a scheme is handed to the system only when it follows a user gesture
/// (a click or a key press in the page, never a timer or a page's own script) and the scheme is
/// allowed here or the person agreed in the library's window. Anything else is refused and the
/// sign-in page stays where it is. In a caller's own view the library shows no question of its
/// own: only ``allowedSchemes`` are handed on.
public struct ExternalSchemePolicy: Hashable, Sendable {
    /// Schemes handed to the system after a user gesture without asking (compared in lowercase).
    public var allowedSchemes: Set<String>
    /// Whether the library's window asks the person before handing on a scheme that is not in
    /// ``allowedSchemes``; when `false`, such navigations are refused.
    public var asksPerson: Bool

    public init(allowedSchemes: Set<String> = [], asksPerson: Bool = true) {
        // The empty set as it is: the default policy builds no set (no set code loaded for it).
        self.allowedSchemes = allowedSchemes.isEmpty ? allowedSchemes : Set(allowedSchemes.map { $0.lowercased() })
        self.asksPerson = asksPerson
    }

    /// Ask the person (after a user gesture) for every scheme: the default.
    public static let ask = ExternalSchemePolicy()
    /// Never hand a page's navigation to another app.
    public static let refuseAll = ExternalSchemePolicy(asksPerson: false)
    /// Hand `schemes` on after a user gesture without asking; ask for the others (or refuse them,
    /// when `askingForOthers` is `false`).
    public static func allow(_ schemes: Set<String>, askingForOthers: Bool = true) -> ExternalSchemePolicy {
        ExternalSchemePolicy(allowedSchemes: schemes, asksPerson: askingForOthers)
    }

    /// Whether `scheme` may be handed on without asking.
    public func allows(_ scheme: String) -> Bool {
        allowedSchemes.contains(scheme.lowercased())
    }
}
