// SignInDemoGTK3: a GTK 3 app that signs in to an OpenID Connect server three ways:
// in the person's browser, in a sign-in window the library owns, and in a WebKitWebView that is
// part of the app's own layout (followed through WebAuthSession.observeAll on the main actor).
//
//   bash Examples/run-demo.sh        starts a local Glewlwyd server and this app
//
// Settings (environment): WEBVIEW_HOST_DEMO_AUTHORITY (issuer URL), WEBVIEW_HOST_DEMO_CLIENT_ID,
// WEBVIEW_HOST_DEMO_TOKEN_STORE=memory (no keyring).
import BuiltInWebviewProvidersGTK3
import Foundation
import SignIn
import WebviewHost
import WebviewHostGTK3

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

@MainActor
final class DemoWindow {
    let window: UnsafeMutablePointer<GtkWidget>
    let status: UnsafeMutablePointer<GtkWidget>
    let details: UnsafeMutablePointer<GtkWidget>
    let spinner: UnsafeMutablePointer<GtkWidget>
    let ownWebview: UnsafeMutablePointer<GtkWidget>
    let webviewFrame: UnsafeMutablePointer<GtkWidget>
    let signals = SignalConnections()
    var observation: WebAuthObservation?
    var application: PublicClientApplication?
    var lastAccount: Account?

    init() {
        window = gtk_window_new(GTK_WINDOW_TOPLEVEL)
        gtk_window_set_default_size(wvh_window(window), 980, 640)
        let header = gtk_header_bar_new()!
        gtk_header_bar_set_title(wvh_header_bar(header), "WebviewHost demo")
        gtk_header_bar_set_subtitle(wvh_header_bar(header), authority.absoluteString)
        gtk_header_bar_set_show_close_button(wvh_header_bar(header), 1)
        gtk_window_set_titlebar(wvh_window(window), header)

        let columns = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 0)!
        let side = gtk_box_new(GTK_ORIENTATION_VERTICAL, 10)!
        gtk_widget_set_size_request(side, 340, -1)
        for margin in [gtk_widget_set_margin_start, gtk_widget_set_margin_end, gtk_widget_set_margin_top, gtk_widget_set_margin_bottom] {
            margin(side, 18)
        }
        let intro = gtk_label_new(nil)!
        gtk_label_set_markup(wvh_label(intro), "<b>Sign in to the demo server</b>\nUser <tt>alice</tt>, password <tt>alice-password</tt>.")
        gtk_label_set_xalign(wvh_label(intro), 0)
        gtk_label_set_line_wrap(wvh_label(intro), 1)
        gtk_box_pack_start(wvh_box(side), intro, 0, 0, 0)

        status = gtk_label_new("Not signed in.")
        gtk_label_set_xalign(wvh_label(status), 0)
        gtk_label_set_line_wrap(wvh_label(status), 1)
        spinner = gtk_spinner_new()
        details = gtk_label_new("")
        gtk_label_set_xalign(wvh_label(details), 0)
        gtk_label_set_selectable(wvh_label(details), 1)
        gtk_label_set_line_wrap(wvh_label(details), 1)

        ownWebview = webkit_web_view_new()
        webviewFrame = gtk_frame_new("The app's own WebKitWebView")
        gtk_container_add(wvh_container(webviewFrame), ownWebview)
        for margin in [gtk_widget_set_margin_end, gtk_widget_set_margin_top, gtk_widget_set_margin_bottom] {
            margin(webviewFrame, 18)
        }

        let buttons: [(String, @MainActor (DemoWindow) -> Void)] = [
            ("Sign in with your browser", { $0.signIn(WebviewParameters(webviewType: .authenticationSession), redirect: "http://127.0.0.1:23682/callback") }),
            ("Sign in in a window", { $0.signIn(WebviewParameters(webviewType: .embedded, parentWindow: WindowHandle(wvh_window($0.window))), redirect: "http://127.0.0.1:23685/embedded-callback") }),
            ("Sign in in this window", { demo in
                demo.signIn(WebviewParameters(customWebview: WebviewHandle(wvh_web_view(demo.ownWebview))), redirect: "http://127.0.0.1:23685/embedded-callback")
            }),
            ("Renew silently", { $0.renew() }),
            ("Cancel", { $0.application?.cancelCurrentInteractiveSession() }),
        ]
        let buttonBox = gtk_box_new(GTK_ORIENTATION_VERTICAL, 6)!
        for (title, action) in buttons {
            let button = gtk_button_new_with_label(title)!
            gtk_box_pack_start(wvh_box(buttonBox), button, 0, 0, 0)
            signals.connect(button, "clicked", .plain { [unowned self] in action(self) })
        }
        gtk_box_pack_start(wvh_box(side), buttonBox, 0, 0, 0)
        let statusRow = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 8)!
        gtk_box_pack_start(wvh_box(statusRow), spinner, 0, 0, 0)
        gtk_box_pack_start(wvh_box(statusRow), status, 1, 1, 0)
        gtk_box_pack_start(wvh_box(side), statusRow, 0, 0, 0)
        gtk_box_pack_start(wvh_box(side), details, 0, 0, 0)

        gtk_box_pack_start(wvh_box(columns), side, 0, 0, 0)
        gtk_box_pack_start(wvh_box(columns), webviewFrame, 1, 1, 0)
        gtk_container_add(wvh_container(window), columns)
        signals.connect(window, "destroy", .plain { gtk_main_quit() })

        // The app's own view shows its own start page; the sessions' events drive the spinner.
        webkit_web_view_load_html(
            wvh_web_view(ownWebview),
            "<body style='font-family:sans-serif;color:#555;padding:2em'><h2>Your app's content</h2><p>Sign-in loads here when you choose <b>Sign in in this window</b>.</p></body>",
            nil)
        observeSignIns()
        do {
            application = try PublicClientApplication(configuration: configuration(redirect: "http://127.0.0.1:23682/callback"))
        } catch {
            setStatus("Configuration error: \(error.message)")
        }
        gtk_widget_show_all(window)
        // Warm start: "Sign in in a window" then shows its page almost at once.
        application?.prewarm(webviewParameters: WebviewParameters(webviewType: .embedded, parentWindow: WindowHandle(wvh_window(window))))
    }

    /// Every session's steps drive the spinner and the status line, on the main actor as they happen.
    func observeSignIns() {
        observation = WebAuthSession.observeAll { [weak self] _, event in
            guard let self else { return }
            switch event {
            case .didStartLoad(let url):
                gtk_spinner_start(wvh_spinner(self.spinner))
                self.setStatus("Loading \(url.host ?? "")…")
            case .didFinishLoad(let url):
                gtk_spinner_stop(wvh_spinner(self.spinner))
                self.setStatus("Waiting for you to sign in at \(url.host ?? "").")
            case .willSwitchToBrokerApp, .willSwitchToSystemBrowser, .didComplete, .didFail:
                gtk_spinner_stop(wvh_spinner(self.spinner))
            }
        }
    }

    func setStatus(_ text: String) {
        gtk_label_set_text(wvh_label(status), text)
    }

    func signIn(_ webview: WebviewParameters, redirect: String) {
        do {
            application = try PublicClientApplication(configuration: configuration(redirect: redirect))
        } catch {
            setStatus("Configuration error: \(error.message)")
            return
        }
        guard let application else { return }
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

gtk_init(nil, nil)
MainLoopBridge.install()
WebviewProviderRegistry.registerBuiltInProviders()
let demo = DemoWindow()
// `--start=browser|window|here` begins a sign-in at launch (used by run-demo.sh without a display).
switch CommandLine.arguments.first(where: { $0.hasPrefix("--start=") })?.dropFirst("--start=".count) {
case "browser": demo.signIn(WebviewParameters(webviewType: .authenticationSession), redirect: "http://127.0.0.1:23682/callback")
case "window": demo.signIn(WebviewParameters(webviewType: .embedded, parentWindow: WindowHandle(wvh_window(demo.window))), redirect: "http://127.0.0.1:23685/embedded-callback")
case "here": demo.signIn(WebviewParameters(customWebview: WebviewHandle(wvh_web_view(demo.ownWebview))), redirect: "http://127.0.0.1:23685/embedded-callback")
default: break
}
gtk_main()
withExtendedLifetime(demo) {}
