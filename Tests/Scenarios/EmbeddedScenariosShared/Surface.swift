import CGLib
#if WEBKITGTK_6
import CWebKitGTK4
#else
import CWebKitGTK3
#endif
import Foundation
import GLibSupport
import ScenarioSupport
import WebviewHost

/// Where a scenario's sign-in shows: the library's own window (`"window"`) or a caller's own
/// `WebKitWebView` in the caller's own window (`"view"`).
@MainActor
final class Surface {
    let mode: String
    let isCallerView: Bool
    /// A weak pointer to the caller's view (mode `"view"`), which the test holds as an app holds
    /// its view (`g_object_ref_sink`) until ``destroyCallerWindow()``.
    private var callerViewSlot: UnsafeMutablePointer<gpointer?>?
    private(set) var callerWindow: UnsafeMutableRawPointer?
    /// Handlers on the caller's view before any session.
    private(set) var handlersBefore = 0

    /// - Parameter ephemeralView: the caller's view has an ephemeral data store of its own (an
    ///   app's private-browsing view), not the default one.
    init(_ mode: String, ephemeralView: Bool = false) {
        self.mode = mode
        isCallerView = mode == "view"
        guard isCallerView else { return }
        let window = Toolkit.makeWindow(width: 640, height: 480)
        let view = Toolkit.makeBareWebView(ephemeral: ephemeralView)
        g_object_ref_sink(view)
        Toolkit.setChild(view, of: window)
        Toolkit.show(window)
        callerViewSlot = Probes.weakPointer(to: view)
        callerWindow = window
        handlersBefore = SignalInspection.handlerCount(on: view)
    }

    /// The caller's view while it exists (`nil` once it was destroyed).
    var callerView: UnsafeMutableRawPointer? { callerViewSlot?.pointee }

    /// Destroys the caller's window, and lets go of the view in it, as an app dropping its
    /// sign-in pane does (GTK 3 destroys the view with its window; GTK 4 destroys it when its
    /// last reference goes). The window is forgotten (reading a finalized window is a
    /// use-after-free); the view is seen through a weak pointer only.
    func destroyCallerWindow() {
        guard let callerWindow, let callerView else { return }
        self.callerWindow = nil
        Toolkit.destroyWindow(callerWindow)
        g_object_unref(callerView)
    }

    func parameters(timeout: Duration? = nil, externalSchemes: ExternalSchemePolicy = .ask, ephemeral: Bool = false)
        -> WebviewParameters
    {
        WebviewParameters(
            webviewType: .embedded, customWebview: callerView.map { WebviewHandle(address: $0) },
            prefersEphemeralWebBrowserSession: ephemeral, timeout: timeout, windowTitle: "Sign in to Test IdP",
            windowSize: .init(width: 480, height: 560), externalSchemes: externalSchemes)
    }

    /// Handlers the sessions left on the caller's view (0 for the library's window).
    var handlersLeft: Int {
        guard let callerView else { return 0 }
        return SignalInspection.handlerCount(on: callerView) - handlersBefore
    }

    /// Waits until the sessions' handlers are gone from the caller's view and it is not loading
    /// (the provider lets go of it before the caller resumes, so at once; the deadline is
    /// ``Patience/event``, for a failure to show); the time it took, in milliseconds.
    @discardableResult
    func waitForRelease() async -> Int {
        guard let callerView else { return 0 }
        let start = ContinuousClock.now
        _ = await ScenarioHost.wait {
            handlersLeft == 0 && webkit_web_view_is_loading(wvh_web_view(callerView)) == 0
        }
        let elapsed = ContinuousClock.now - start
        return Int(elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000)
    }

    /// Visible toplevels that are not the caller's own window: the library's windows and dialogs.
    var libraryToplevels: Int {
        let callerShown = callerWindow.map { gtk_widget_get_visible(wvh_widget($0)) != 0 } ?? false
        return Probes.visibleToplevels() - (callerShown ? 1 : 0)
    }

    /// The caller view's `javascript-can-open-windows-automatically`.
    var callerCanOpenWindows: Bool? {
        guard let callerView else { return nil }
        return webkit_settings_get_javascript_can_open_windows_automatically(
            webkit_web_view_get_settings(wvh_web_view(callerView))) != 0
    }

    func setCallerCanOpenWindows(_ value: Bool) {
        guard let callerView else { return }
        webkit_settings_set_javascript_can_open_windows_automatically(
            webkit_web_view_get_settings(wvh_web_view(callerView)), value ? 1 : 0)
    }

    /// Whether a session can start now: a new session's `prepare` does not fail with
    /// `sessionAlreadyInProgress` (the probe session is cancelled at once).
    static func slotIsFree(redirectURI: String) async -> Bool {
        let probe = WebAuthSession(
            redirectURI: URL(string: redirectURI)!,
            parameters: WebviewParameters(webviewType: .embedded))
        defer { probe.cancel() }
        do throws(WebAuthError) {
            _ = try await probe.prepare()
            return true
        } catch {
            return error.code != .sessionAlreadyInProgress
        }
    }
}
