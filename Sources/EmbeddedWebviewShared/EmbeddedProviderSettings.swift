import GLibSupport
import Synchronization
import WebviewHost

/// The embedded provider's process-wide settings (``EmbeddedWebviewProvider/applicationID``,
/// ``EmbeddedWebviewProvider/allowedPermissions``,
/// ``EmbeddedWebviewProvider/followsDesktopColorScheme``, and the person's client-certificate
/// choices), kept in `WebviewProviderRegistry`'s store: the app's statics set the process's values,
/// and a test inside `WebviewProviderRegistry.withIsolatedRegistry` has its own. The
/// certificate choices start empty in each isolated scope.
///
/// A session reads none of them in its callbacks: it takes them when it is made
/// (``SessionSettings``).
enum EmbeddedProviderSettings {
    static let applicationID = ScopedSetting<String?> { nil }
    static let allowedPermissions = ScopedSetting<Set<SignInPermission>> { [] }
    static let followsDesktopColorScheme = ScopedSetting { true }
    static let certificateChoices = ScopedSetting(inheritedByIsolatedScopes: false) { ClientCertificateChoices() }
}

/// The person's client-certificate choice per host, for the rest of the app's run (as MSAL for
/// macOS does), or of the isolated scope's: used again only while it is the only certificate
/// there, its PIN asked again (see `ClientCertificates`). Thread-safe.
final class ClientCertificateChoices: Sendable {
    private let byHost = Mutex<[String: TokenCertificate]>([:])

    subscript(host: String) -> TokenCertificate? {
        get { byHost.withLock { $0[host] } }
        set { byHost.withLock { $0[host] = newValue } }
    }
}

/// What a session takes from ``EmbeddedProviderSettings`` and `ToolkitIntegration.current` when it
/// is made, in the task that starts it: WebKit's signals, GTK's answers and the D-Bus replies it
/// handles later run in no task, where an isolated scope's values cannot be seen.
@MainActor
struct SessionSettings {
    /// ``EmbeddedWebviewProvider/applicationID`` (`nil`: the default `GApplication`'s id, or the program's).
    let applicationID: String?
    let allowedPermissions: Set<SignInPermission>
    let followsDesktopColorScheme: Bool
    /// The choices a chosen certificate is remembered in (shared with the scope's later sessions).
    let certificateChoices: ClientCertificateChoices
    /// The toolkit other apps are launched through (`WebKitDifferences.integration`).
    let toolkit: ToolkitIntegration
    /// Who answers a proxy's question in the view (the scope's `ProxyAuthentication.ask`, the library's dialog).
    let proxyQuestions: ProxyAuthentication.Questions

    /// The current task's values.
    init() {
        applicationID = EmbeddedProviderSettings.applicationID.value
        allowedPermissions = EmbeddedProviderSettings.allowedPermissions.value
        followsDesktopColorScheme = EmbeddedProviderSettings.followsDesktopColorScheme.value
        certificateChoices = EmbeddedProviderSettings.certificateChoices.value
        toolkit = WebKitDifferences.integration
        proxyQuestions = ProxyAuthentication.questions
    }
}
