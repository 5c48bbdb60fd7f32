#if WEBKITGTK_6
import CWebKitGTK4
#else
import CWebKitGTK3
#endif
import CGLib

/// A caller's view's back/forward list as it was when the session started (WebKit's session
/// state), put back when the session ends, before the caller resumes.
///
/// Without it the sign-in pages stay in the app's history: "back" (a mouse's back button, a
/// touchpad swipe, the app's own button) would load the authorization page again, which with the
/// identity provider's session cookie signs in again by itself and goes to the redirect URI,
/// where nothing of the ended session listens. WebKitGTK can only replace the whole list, so the
/// list the app had is put back whole (nothing is loaded). WebKit leaves a list as it is when given
/// an empty one, so a view that had none gets one blank page (`about:blank`) in its place: "back"
/// after the app's next page shows an empty page.
@MainActor
final class CallerViewHistory {
    private var state: OpaquePointer?

    init(of view: WebKitDifferences.WebView) {
        let hadHistory = webkit_back_forward_list_get_length(webkit_web_view_get_back_forward_list(view)) > 0
        state = hadHistory ? webkit_web_view_get_session_state(view) : Self.blankPage()
    }

    /// A list of one blank page, current: WebKit's serialized session state (its version 2, which
    /// WebKit goes on reading in later releases: browsers keep it on disk between runs). `nil` if
    /// this WebKit does not read it (the view's history is then left as the sign-in made it).
    private static func blankPage() -> OpaquePointer? {
        let type = g_variant_type_new("(qa(s(ssssasmayxx(ii)dm(sa(uaysxmxmds))av)u)mu)")
        defer { g_variant_type_free(type) }
        // Version 2; one item: no title, the main frame at about:blank with nothing else, external
        // URLs not allowed (2); the current item is the first.
        let text = "(2, [('', ('about:blank', 'about:blank', '', '', [], nothing, 0, 0, (0, 0), 1.0, nothing, []), 2)], just 0)"
        guard let variant = g_variant_parse(type, text, nil, nil, nil) else { return nil }
        defer { g_variant_unref(variant) }
        guard let bytes = g_variant_get_data_as_bytes(variant) else { return nil }
        defer { g_bytes_unref(bytes) }
        return webkit_web_view_session_state_new(bytes)
    }

    /// Gives `view` its list back (once; later calls do nothing).
    func restore(to view: WebKitDifferences.WebView) {
        guard let state else { return }
        webkit_web_view_restore_session_state(view, state)
        release()
    }

    /// Lets the saved list go without using it (the app destroyed its view).
    func release() {
        if let state { webkit_web_view_session_state_unref(state) }
        state = nil
    }
}
