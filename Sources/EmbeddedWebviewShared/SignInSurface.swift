#if WEBKITGTK_6
import CWebKitGTK4
#else
import CWebKitGTK3
#endif
import CGLib
import Foundation
import GLibSupport

/// Makes a `WebKitWebView` a sign-in surface for one session, not a browser: nothing a page does
/// writes to the person's disk, reaches a device, gets a permission or shows a window or dialog
/// other than the page, unless the app allowed that kind (``EmbeddedWebviewProvider/allowedPermissions``).
///
/// Every decision is in the article "The sign-in surface" (Docs.docc/SignInSurface.md), one row per
/// WebKit signal and setting. ``apply(to:)`` changes the view's settings and connects the
/// handlers; ``restoreSettings()`` puts back the settings it changed (a caller's view, when the
/// session ends) and ``end()`` disconnects the handlers (when the ended page can do nothing any
/// more, or the app's own navigation starts in its view).
@MainActor
final class SignInSurface {
    /// Settings set for a sign-in (name, value): each one is in the article's table.
    static let settings: [(name: String, value: Bool)] = [
        ("enable-developer-extras", false),  // no web inspector, no "Inspect Element"
        ("enable-write-console-messages-to-stdout", false),
        ("javascript-can-access-clipboard", false),
        ("enable-fullscreen", false),
        ("enable-media-stream", false),  // no getUserMedia: no camera, microphone or screen
        ("enable-mock-capture-devices", false),
        ("enable-webrtc", false),
        ("enable-encrypted-media", false),
        ("allow-file-access-from-file-urls", false),
        ("allow-universal-access-from-file-urls", false),
        ("allow-top-navigation-to-data-urls", false),
        ("allow-modal-dialogs", false),
        ("disable-web-security", false),
        ("enable-caret-browsing", false),
        ("media-playback-requires-user-gesture", true),
    ]

    /// Editing actions a context menu keeps (over a text field: cut, copy, paste...); every other
    /// item (open, download, save, inspect, reload, navigation) is removed, and an empty menu is not shown.
    static let contextMenuActions: Set<UInt32> = [
        WEBKIT_CONTEXT_MENU_ACTION_COPY, WEBKIT_CONTEXT_MENU_ACTION_CUT, WEBKIT_CONTEXT_MENU_ACTION_PASTE,
        WEBKIT_CONTEXT_MENU_ACTION_PASTE_AS_PLAIN_TEXT, WEBKIT_CONTEXT_MENU_ACTION_DELETE,
        WEBKIT_CONTEXT_MENU_ACTION_SELECT_ALL, WEBKIT_CONTEXT_MENU_ACTION_INPUT_METHODS,
        WEBKIT_CONTEXT_MENU_ACTION_UNICODE, WEBKIT_CONTEXT_MENU_ACTION_INSERT_EMOJI,
        WEBKIT_CONTEXT_MENU_ACTION_SPELLING_GUESS, WEBKIT_CONTEXT_MENU_ACTION_NO_GUESSES_FOUND,
        WEBKIT_CONTEXT_MENU_ACTION_IGNORE_SPELLING, WEBKIT_CONTEXT_MENU_ACTION_LEARN_SPELLING,
    ].reduce(into: []) { $0.insert($1.rawValue) }

    private let view: WebKitDifferences.WebView
    private let allowed: Set<SignInPermission>
    private let connections = SignalConnections()
    /// The values ``apply(to:)`` replaced, to put back at the end.
    private var previous: [(name: String, value: Bool)] = []
    private var restored = false

    private init(view: WebKitDifferences.WebView, allowed: Set<SignInPermission>) {
        self.view = view
        self.allowed = allowed
    }

    /// Sets the view's settings for a sign-in and connects the surface's handlers. Call once per
    /// session, before the first load.
    static func apply(
        to view: WebKitDifferences.WebView, allowed: Set<SignInPermission>
    ) -> SignInSurface {
        let surface = SignInSurface(view: view, allowed: allowed)
        surface.applySettings()
        surface.connect(surface.connections)
        return surface
    }

    /// Disconnects every handler of the surface (on the view, its context or network session,
    /// and downloads). Calling it again does nothing.
    func end() {
        connections.disconnectAll()
    }

    /// Puts back every setting ``apply(to:)`` changed (once; later calls do nothing).
    /// Not for a view that was destroyed.
    func restoreSettings() {
        guard !restored else { return }
        restored = true
        let settings = webkit_web_view_get_settings(view)!
        for (name, value) in previous.reversed() { Self.set(name, value, on: settings) }
    }

    // MARK: - Settings

    private func applySettings() {
        let settings = webkit_web_view_get_settings(view)!
        for (name, value) in Self.settings {
            guard let current = Self.get(name, on: settings), current != value else { continue }
            previous.append((name, current))
            Self.set(name, value, on: settings)
        }
    }

    /// A boolean property of `settings`, or `nil` when this WebKit has no such property.
    private static func get(_ name: String, on settings: some GObjectPointer) -> Bool? {
        guard let spec = g_object_class_find_property(UnsafeMutablePointer(OpaquePointer(g_type_class_peek(wvh_object_type(settings.objectAddress)))), name),
            spec.pointee.value_type == GType(5 << G_TYPE_FUNDAMENTAL_SHIFT)  // G_TYPE_BOOLEAN
        else { return nil }
        var value = GValue()
        g_value_init(&value, spec.pointee.value_type)
        defer { g_value_unset(&value) }
        g_object_get_property(settings.gObject, name, &value)
        return g_value_get_boolean(&value) != 0
    }

    private static func set(_ name: String, _ flag: Bool, on settings: some GObjectPointer) {
        var value = GValue()
        g_value_init(&value, GType(5 << G_TYPE_FUNDAMENTAL_SHIFT))
        defer { g_value_unset(&value) }
        g_value_set_boolean(&value, flag ? 1 : 0)
        g_object_set_property(settings.gObject, name, &value)
    }

    // MARK: - Signals

    private func connect(_ connections: SignalConnections) {
        let allowed = allowed
        let view = view
        connections.connect(view, "permission-request", .pointerReturningBool { (request: WebKitDifferences.PermissionRequest?) in
            guard let request else { return false }
            let name = String(cString: g_type_name(wvh_object_type(request.objectAddress)))
            if let kind = SignInPermission.ofRequest(typeName: name), allowed.contains(kind) {
                webkit_permission_request_allow(request)
            } else {
                webkit_permission_request_deny(request)
            }
            return true
        })
        connections.connect(view, "query-permission-state", .pointerReturningBool { (query: WebKitDifferences.PermissionStateQuery?) in
            guard let query else { return false }
            let name = webkit_permission_state_query_get_name(query).map { String(cString: $0) } ?? ""
            // An allowed kind is answered by WebKit itself (prompt, or what was granted).
            if let kind = SignInPermission.ofQuery(name: name), allowed.contains(kind) { return false }
            webkit_permission_state_query_finish(query, WEBKIT_PERMISSION_STATE_DENIED)
            return true
        })
        // alert, confirm, prompt, beforeunload: never shown. alert returns, confirm answers false,
        // prompt null, and a page may always be left (beforeunload cannot hold the view).
        connections.connect(view, "script-dialog", .pointerReturningBool { (dialog: WebKitDifferences.ScriptDialog?) in
            guard let dialog else { return false }
            switch webkit_script_dialog_get_dialog_type(dialog) {
            case WEBKIT_SCRIPT_DIALOG_CONFIRM: webkit_script_dialog_confirm_set_confirmed(dialog, 0)
            case WEBKIT_SCRIPT_DIALOG_BEFORE_UNLOAD_CONFIRM: webkit_script_dialog_confirm_set_confirmed(dialog, 1)
            default: break
            }
            return true
        })
        connections.connect(view, "print", .pointerReturningBool { true })
        connections.connect(view, "run-file-chooser", .pointerReturningBool { (request: WebKitDifferences.FileChooserRequest?) in
            if let request { webkit_file_chooser_request_cancel(request) }
            return true
        })
        connections.connect(view, "run-color-chooser", .pointerReturningBool { (request: WebKitDifferences.ColorChooserRequest?) in
            if let request { webkit_color_chooser_request_finish(request) }
            return true
        })
        connections.connect(view, "show-notification", .pointerReturningBool {
            !allowed.contains(.notifications)  // handled (not shown) unless the app allows them
        })
        connections.connect(view, "enter-fullscreen", .returningBool { true })
        connections.connect(view, "context-menu", WebKitDifferences.contextMenuHandler { menu in
            Self.keepEditingItems(menu)
        })
        // Downloads: a response the view would save (an attachment, a type it cannot show), and
        // any other download (<a download>, a blob or data URL), is cancelled as it starts,
        // before it has a destination: nothing is written, and the page stays as it was.
        connections.connect(view, "decide-policy", .decidePolicy { (decision: WebKitDifferences.PolicyDecision?, type) in
            guard let decision, WebKitPolicyDecisionType(type) == WEBKIT_POLICY_DECISION_TYPE_RESPONSE else { return false }
            guard Self.wouldDownload(decision) else { return false }
            // Made a download on purpose, whatever WebKit's default: `download-started` below then
            // cancels it. (Ignoring the response instead leaves the page's scripts stopped in
            // WebKitGTK 4.1 2.50 for some responses: the sign-in page could not go on.)
            webkit_policy_decision_download(decision)
            // The download it becomes may start after the session has ended (the page went on to
            // the redirect meanwhile, and the session's handlers are gone): a guard of its own
            // waits for it (seen once under load, GTK 4 on Wayland, a caller's view: saved).
            Self.refuseDownload(of: Self.address(of: decision), in: view)
            return true
        })
        connections.connect(WebKitDifferences.store(of: view), "download-started", .pointer {
            (download: WebKitDifferences.Download?) in
            guard let download else { return }
            guard webkit_download_get_web_view(download) == view else { return }  // another view of the caller's context
            Self.refuse(download)
        })
    }

    /// Cancels `download` when WebKit asks where to save it (before anything is written):
    /// cancelled from inside `download-started`, a main-frame navigation turned download
    /// sometimes left the page's scripts stopped (WebKitGTK 2.50). The handler lives as long as
    /// the download, not the session: WebKit may ask after the session has ended, and an
    /// unanswered question saves into Downloads.
    private static func refuse(_ download: WebKitDifferences.Download) {
        SignalHandler.connectForLifetime(.pointerReturningBool {
            webkit_download_cancel(download)
            return true
        }, to: "decide-destination", on: download)
    }

    /// Refuses the download of `address` that `view` starts in its store, within
    /// ``downloadGuardLimit``, even after the session ended: a response the session made a
    /// download (`decide-policy`) starts it in the network process later. Its own connections:
    /// the session's are gone by then. Only that address's: the app's own downloads in its view
    /// after the session are the app's.
    private static func refuseDownload(of address: String?, in view: WebKitDifferences.WebView) {
        guard let address else { return }
        let guardConnections = SignalConnections()
        guardConnections.connect(WebKitDifferences.store(of: view), "download-started", .pointer {
            (download: WebKitDifferences.Download?) in
            guard let download, webkit_download_get_web_view(download) == view,
                let request = webkit_download_get_request(download), let started = webkit_uri_request_get_uri(request),
                String(cString: started) == address
            else { return }
            refuse(download)
            guardConnections.disconnectAll()
        })
        Task { @MainActor in
            try? await Task.sleep(for: downloadGuardLimit)
            guardConnections.disconnectAll()
        }
    }

    /// How long a response made a download may take to start it (WebKit starts it at once; this
    /// covers a busy machine).
    static let downloadGuardLimit: Duration = .seconds(30)

    /// The address of `decision`'s response (after redirects: what the download asks for).
    private static func address(of decision: WebKitDifferences.PolicyDecision) -> String? {
        webkit_response_policy_decision_get_request(wvh_response_policy_decision(decision))
            .flatMap { webkit_uri_request_get_uri($0) }.map { String(cString: $0) }
    }

    /// Whether WebKit would make `decision`'s response a download: an attachment, or a type the
    /// view does not show.
    private static func wouldDownload(_ decision: WebKitDifferences.PolicyDecision) -> Bool {
        let responseDecision = wvh_response_policy_decision(decision)
        if webkit_response_policy_decision_is_mime_type_supported(responseDecision) == 0 { return true }
        guard let response = webkit_response_policy_decision_get_response(responseDecision),
            let headers = webkit_uri_response_get_http_headers(response),
            let disposition = soup_message_headers_get_one(headers, "Content-Disposition")
        else { return false }
        let value = String(cString: disposition).trimmingCharacters(in: .whitespaces).lowercased()
        return value.hasPrefix("attachment")
    }

    /// Removes every item but editing ones; `true` (not shown) when nothing is left.
    private static func keepEditingItems(_ menu: WebKitDifferences.ContextMenu?) -> Bool {
        guard let menu else { return true }
        var doomed: [WebKitDifferences.ContextMenuItem] = []
        var kept = 0
        var list = webkit_context_menu_get_items(menu)
        while let node = list {
            // The list holds `WebKitContextMenuItem *`s.
            if let item = node.pointee.data.map(WebKitDifferences.ContextMenuItem.init(objectAddress:)) {
                if contextMenuActions.contains(webkit_context_menu_item_get_stock_action(item).rawValue) {
                    kept += 1
                } else if webkit_context_menu_item_is_separator(item) == 0 {
                    doomed.append(item)
                }
            }
            list = node.pointee.next
        }
        for item in doomed { webkit_context_menu_remove(menu, item) }
        return kept == 0
    }
}
