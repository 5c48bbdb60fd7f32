#if WEBKITGTK_6
import CWebKitGTK4
#else
import CWebKitGTK3
#endif
import CGLib
import Foundation

/// `PKeyAuth/1.0` at the end of the view's user agent for one session
/// (``WebviewHost/WebviewParameters/advertisesDeviceChallenge``): how MSAL's web view tells Entra
/// ID and AD FS that it answers their device challenge (``PKeyAuthChallenge``), so that they send
/// it instead of assuming a browser that cannot. The view's own user agent comes back at the
/// end (a caller's view's custom one included).
@MainActor
struct PKeyAuthAdvertisement {
    static let token = "PKeyAuth/1.0"
    private let view: WebKitDifferences.WebView
    private let previous: String?

    /// Adds the token to `view`'s user agent (once: a user agent that has it keeps it as is).
    init(on view: WebKitDifferences.WebView) {
        self.view = view
        let settings = webkit_web_view_get_settings(view)
        previous = webkit_settings_get_user_agent(settings).map { String(cString: $0) }
        let current = previous ?? ""
        if !current.split(separator: " ").contains(Substring(Self.token)) {
            webkit_settings_set_user_agent(settings, current.isEmpty ? Self.token : current + " " + Self.token)
        }
    }

    /// Puts the view's user agent back as it was (the view must still be alive).
    func restore() {
        webkit_settings_set_user_agent(webkit_web_view_get_settings(view), previous)
    }
}
