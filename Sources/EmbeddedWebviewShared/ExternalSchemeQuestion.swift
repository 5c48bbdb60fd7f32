#if WEBKITGTK_6
import CWebKitGTK4
#else
import CWebKitGTK3
#endif
import CGLib
import Foundation
import GLibSupport
import WebviewHost

/// The question the library's sign-in window asks before a page's link hands a URI to another
/// app: "Open mailto link?", naming the app GIO would start, with Cancel (the default) and Open.
/// `answer` gets `true` for Open; closing the dialog and Escape are a Cancel.
@MainActor
enum ExternalSchemeQuestion {
    static func ask(url: URL, over window: WebKitDifferences.Window, answer: @escaping @MainActor (_ open: Bool) -> Void) -> SignInQuestion {
        let scheme = url.scheme?.lowercased() ?? ""
        let handler = g_app_info_get_default_for_uri_scheme(scheme).map { info -> String in
            let info = GObjectRef(adopting: info)
            return g_app_info_get_display_name(info.pointer).map { String(cString: $0) } ?? ""
        } ?? ""
        let link = SignInQuestion.shortened(url.absoluteString)
        let detail = handler.isEmpty
            ? ShownText.tr("question", "The sign-in page wants to open “{link}” in another app. Only open it if you expected this.", ["link": link])
            : ShownText.tr("question", "The sign-in page wants to open “{link}” in {app}. Only open it if you expected this.", ["link": link, "app": handler])
        // Enter answers Cancel: opening another app takes a deliberate click.
        return SignInQuestion(
            title: ShownText.tr("question", "Open {scheme} link?", ["scheme": scheme]),
            detail: detail,
            over: window, cancel: ShownText.tr("button", "_Cancel"), accept: ShownText.tr("button", "_Open"), acceptByDefault: false,
            answer: answer)
    }
}
