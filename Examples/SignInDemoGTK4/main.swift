// SignInDemoGTK4: the GTK 3 demo (SignInDemoGTK3) written for GTK 4 and WebKitGTK 6.0. It signs in to an
// OpenID Connect server three ways: in the person's browser, in a sign-in window the library
// owns, and in a WebKitWebView that is part of the app's own layout (followed through the
// webAuth* notifications).
//
//   bash Examples/run-demo.sh --gtk4      starts a local Glewlwyd server and this app
//
// A GtkApplication: the window is built in `activate`, and `g_application_run` runs the GLib
// main loop (GTK 4 has no gtk_main); MainLoopBridge keeps Swift's main actor running inside it.
//
// Settings (environment): WEBVIEW_HOST_DEMO_AUTHORITY (issuer URL), WEBVIEW_HOST_DEMO_CLIENT_ID,
// WEBVIEW_HOST_DEMO_TOKEN_STORE=memory (no keyring). Every status line is also printed on
// standard output ("status: ..."), for scripts that run the demo without looking at it.
import BuiltInWebviewProvidersGTK4
import Foundation
import SignIn
import WebviewHost
import WebviewHostGTK4

let environment = ProcessInfo.processInfo.environment
let authority = URL(string: environment["WEBVIEW_HOST_DEMO_AUTHORITY"] ?? "http://127.0.0.1:4593/api/oidc")!
let clientID = environment["WEBVIEW_HOST_DEMO_CLIENT_ID"] ?? "webviewhost-tests"
let scopes = ["openid", "profile", "email", "offline_access"]
// Tokens stay in the desktop's keyring (the Secret Service) across restarts; with
// WEBVIEW_HOST_DEMO_TOKEN_STORE=memory (run-demo.sh without a display, where no keyring runs)
// they are kept in this process only.
let tokenStore: (any TokenCacheStorage)? =
    environment["WEBVIEW_HOST_DEMO_TOKEN_STORE"] == "memory" ? InMemoryTokenCacheStorage() : nil

func configuration(redirect: String) -> PublicClientApplicationConfiguration {
    .init(clientID: clientID, authority: authority, redirectURI: URL(string: redirect)!, tokenCacheStorage: tokenStore)
}

/// How a sign-in is shown, as the buttons and `--start=` name them.
enum SignInPlace: String {
    /// The person's browser (`--start=browser`).
    case browser
    /// A sign-in window the library owns, modal over the app (`--start=window`).
    case window
    /// The app's own WebKitWebView (`--start=here`).
    case here
}

@MainActor
final class DemoWindow {
    let window: UnsafeMutablePointer<GtkWidget>
    let status: UnsafeMutablePointer<GtkWidget>
    let details: UnsafeMutablePointer<GtkWidget>
    let spinner: UnsafeMutablePointer<GtkWidget>
    let ownWebview: UnsafeMutablePointer<GtkWidget>
    let signals = SignalConnections()
    var observation: WebAuthObservation?
    var application: PublicClientApplication?
    var lastAccount: Account?

    init(application app: UnsafeMutablePointer<GtkApplication>) {
        window = gtk_application_window_new(app)
        gtk_window_set_title(wvh_window(window), "WebviewHost demo")
        gtk_window_set_default_size(wvh_window(window), 980, 640)

        // GTK 4's header bar has no subtitle: a title widget of two labels, styled as GTK styles
        // its own title (the "title" and "subtitle" CSS classes).
        let header = gtk_header_bar_new()!
        let titles = gtk_box_new(GTK_ORIENTATION_VERTICAL, 0)!
        gtk_widget_set_valign(titles, GTK_ALIGN_CENTER)
        for (text, style) in [("WebviewHost demo (GTK 4)", "title"), (authority.absoluteString, "subtitle")] {
            let label = gtk_label_new(text)!
            gtk_widget_add_css_class(label, style)
            gtk_label_set_ellipsize(wvh_label(label), PANGO_ELLIPSIZE_END)
            gtk_box_append(wvh_box(titles), label)
        }
        gtk_header_bar_set_title_widget(wvh_header_bar(header), titles)
        gtk_window_set_titlebar(wvh_window(window), header)

        let columns = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 0)!
        let side = gtk_box_new(GTK_ORIENTATION_VERTICAL, 10)!
        gtk_widget_set_size_request(side, 340, -1)
        // GTK 4 passes a child's hexpand up to its parents: the status label's would make this
        // column take half the window. Set explicitly, it stays as wide as its content.
        gtk_widget_set_hexpand(side, 0)
        for margin in [gtk_widget_set_margin_start, gtk_widget_set_margin_end, gtk_widget_set_margin_top, gtk_widget_set_margin_bottom] {
            margin(side, 18)
        }
        let intro = gtk_label_new(nil)!
        gtk_label_set_markup(wvh_label(intro), "<b>Sign in to the demo server</b>\nUser <tt>alice</tt>, password <tt>alice-password</tt>.")
        gtk_label_set_xalign(wvh_label(intro), 0)
        gtk_label_set_wrap(wvh_label(intro), 1)
        gtk_box_append(wvh_box(side), intro)

        status = gtk_label_new("Not signed in.")
        gtk_label_set_xalign(wvh_label(status), 0)
        gtk_label_set_wrap(wvh_label(status), 1)
        gtk_widget_set_hexpand(status, 1)
        spinner = gtk_spinner_new()
        details = gtk_label_new("")
        gtk_label_set_xalign(wvh_label(details), 0)
        gtk_label_set_selectable(wvh_label(details), 1)
        gtk_label_set_wrap(wvh_label(details), 1)

        ownWebview = webkit_web_view_new()
        let webviewFrame = gtk_frame_new("The app's own WebKitWebView")!
        gtk_frame_set_child(wvh_frame(webviewFrame), ownWebview)
        gtk_widget_set_hexpand(webviewFrame, 1)
        gtk_widget_set_vexpand(webviewFrame, 1)
        for margin in [gtk_widget_set_margin_end, gtk_widget_set_margin_top, gtk_widget_set_margin_bottom] {
            margin(webviewFrame, 18)
        }

        let buttons: [(String, @MainActor (DemoWindow) -> Void)] = [
            ("Sign in with your browser", { $0.signIn(.browser) }),
            ("Sign in in a window", { $0.signIn(.window) }),
            ("Sign in in this window", { $0.signIn(.here) }),
            ("Renew silently", { $0.renew() }),
            ("Cancel", { $0.application?.cancelCurrentInteractiveSession() }),
        ]
        let buttonBox = gtk_box_new(GTK_ORIENTATION_VERTICAL, 6)!
        for (title, action) in buttons {
            let button = gtk_button_new_with_label(title)!
            gtk_box_append(wvh_box(buttonBox), button)
            signals.connect(button, "clicked", .plain { [unowned self] in action(self) })
        }
        gtk_box_append(wvh_box(side), buttonBox)
        let statusRow = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 8)!
        gtk_box_append(wvh_box(statusRow), spinner)
        gtk_box_append(wvh_box(statusRow), status)
        gtk_box_append(wvh_box(side), statusRow)
        gtk_box_append(wvh_box(side), details)

        gtk_box_append(wvh_box(columns), side)
        gtk_box_append(wvh_box(columns), webviewFrame)
        gtk_window_set_child(wvh_window(window), columns)

        // The app's own view shows its own start page; the notifications drive the spinner.
        webkit_web_view_load_html(
            wvh_web_view(ownWebview),
            "<body style='font-family:sans-serif;color:#555;padding:2em'><h2>Your app's content</h2><p>Sign-in loads here when you choose <b>Sign in in this window</b>.</p></body>",
            nil)
        observeNotifications()
        do {
            application = try PublicClientApplication(configuration: configuration(redirect: "http://127.0.0.1:23682/callback"))
        } catch {
            setStatus("Configuration error: \(error.message)")
        }
        gtk_window_present(wvh_window(window))
        // Warm start: "Sign in in a window" then shows its page almost at once.
        application?.prewarm(webviewParameters: parameters(for: .window))
    }

    func observeNotifications() {
        // Every session's steps, on the main actor, in order (the webAuth* notifications carry the same).
        observation = WebAuthSession.observeAll { [weak self] _, event in
            guard let self else { return }
            switch event {
            case .didStartLoad(let url):
                gtk_spinner_start(wvh_spinner(self.spinner))
                self.setStatus("Loading \(url.host ?? "")…")
            case .didFinishLoad(let url):
                gtk_spinner_stop(wvh_spinner(self.spinner))
                self.setStatus("Waiting for you to sign in at \(url.host ?? "").")
            default:
                gtk_spinner_stop(wvh_spinner(self.spinner))
            }
        }
    }

    func setStatus(_ text: String) {
        gtk_label_set_text(wvh_label(status), text)
        // Unbuffered: a script reading a pipe or a file sees each line as it happens.
        FileHandle.standardOutput.write(Data("status: \(text)\n".utf8))
    }

    /// The webview parameters and redirect URI of each way to sign in.
    func parameters(for place: SignInPlace) -> WebviewParameters {
        switch place {
        case .browser: WebviewParameters(webviewType: .authenticationSession)
        case .window: WebviewParameters(webviewType: .embedded, parentWindow: WindowHandle(wvh_window(window)))
        case .here: WebviewParameters(customWebview: WebviewHandle(wvh_web_view(ownWebview)))
        }
    }

    func redirect(for place: SignInPlace) -> String {
        place == .browser ? "http://127.0.0.1:23682/callback" : "http://127.0.0.1:23685/embedded-callback"
    }

    func signIn(_ place: SignInPlace) {
        do {
            application = try PublicClientApplication(configuration: configuration(redirect: redirect(for: place)))
        } catch {
            setStatus("Configuration error: \(error.message)")
            return
        }
        guard let application else { return }
        let webview = parameters(for: place)
        setStatus("Starting sign-in…")
        Task { @MainActor in
            do throws(WebAuthError) {
                let result = try await application.acquireToken(with: InteractiveTokenParameters(scopes: scopes, webviewParameters: webview))
                show(result, how: "Signed in")
            } catch {
                setStatus(error.isCancellation ? "Sign-in cancelled." : "Sign-in failed: \(error.message)")
            }
        }
    }

    func renew() {
        guard let application, let account = lastAccount else {
            setStatus("Sign in first.")
            return
        }
        Task { @MainActor in
            do throws(WebAuthError) {
                show(try await application.acquireTokenSilent(with: SilentTokenParameters(scopes: scopes, account: account, forceRefresh: true)), how: "Renewed silently")
            } catch {
                setStatus("Renewal failed: \(error.message)")
            }
        }
    }

    func show(_ result: AuthenticationResult, how: String) {
        lastAccount = result.account
        // Signed in, but the tokens could not be saved (a locked keyring, say): they are kept for
        // this run, and the person is told why the next start will ask again.
        let unsaved = result.tokenCacheError.map { " Not saved for next time: \($0.message)" } ?? ""
        setStatus("\(how) as \(result.account.name ?? result.account.description).\(unsaved)")
        let formatter = ISO8601DateFormatter()
        let lines = [
            "<b>Username</b>  \(escape(result.account.username ?? "-"))",
            "<b>Subject</b>  <tt>\(escape(result.account.subject))</tt>",
            "<b>Issuer</b>  \(escape(result.account.issuer))",
            "<b>Scopes</b>  \(escape(result.scopes.joined(separator: " ")))",
            "<b>Expires</b>  \(formatter.string(from: result.expiresOn))",
            "<b>Refresh token</b>  \(result.refreshToken == nil ? "no" : "yes")",
            "<b>Access token</b>  <tt>\(escape(String(result.accessToken.prefix(24))))…</tt>",
        ]
        gtk_label_set_markup(wvh_label(details), lines.joined(separator: "\n"))
    }

    func escape(_ text: String) -> String {
        guard let escaped = g_markup_escape_text(text, -1) else { return "" }
        defer { g_free(escaped) }
        return String(cString: escaped)
    }
}

// `--start=browser|window|here` begins a sign-in at launch (used by run-demo.sh without a
// display). It is ours, not GApplication's: the rest of the command line goes to g_application_run.
let startArgument = "--start="
let start = CommandLine.arguments.first(where: { $0.hasPrefix(startArgument) }).map { String($0.dropFirst(startArgument.count)) }
if let start, SignInPlace(rawValue: start) == nil {
    FileHandle.standardError.write(Data("SignInDemoGTK4: --start takes browser, window or here, not \(start)\n".utf8))
    exit(2)
}

let app = gtk_application_new("org.example.WebviewHost.SignInDemoGTK4", G_APPLICATION_DEFAULT_FLAGS)!
let appSignals = SignalConnections()
var demo: DemoWindow?
MainLoopBridge.install()
appSignals.connect(app, "startup", .plain {
    // GTK is initialised now (GtkApplication's startup does it).
    WebviewProviderRegistry.registerBuiltInProviders()
})
appSignals.connect(app, "activate", .plain {
    // Activated again (a second launch of the app forwards here): show the window we have.
    if let demo {
        gtk_window_present(wvh_window(demo.window))
        return
    }
    let window = DemoWindow(application: app)
    demo = window
    if let start, let place = SignInPlace(rawValue: start) { window.signIn(place) }
})
let arguments = CommandLine.arguments.filter { !$0.hasPrefix(startArgument) }
var argv = arguments.map { strdup($0) } + [nil]
let status = g_application_run(wvh_application(app), Int32(arguments.count), &argv)
for pointer in argv { free(pointer) }
appSignals.disconnectAll()
demo = nil
g_object_unref(app)
exit(status)
