#if WEBKITGTK_6
import CWebKitGTK4
#else
import CWebKitGTK3
#endif
import CGLib
import Foundation
import GLibSupport
import WebviewHost

/// The library's own question for a proxy's password (HTTP 407), asked when the app set no
/// ``WebviewHost/ProxyAuthentication/ask``: "Sign in to the proxy", the proxy's `host:port` and
/// realm, a user name and a password field, Cancel and Connect; on the second and third
/// question, that the proxy refused the last answer. A ``SignInQuestion`` (modal, Return
/// connects, Escape cancels) over the sign-in window, else the app's window, else on its own.
///
/// The embedded provider installs it (``install()``) when it is made, so `SignIn`'s requests,
/// which run before any sign-in window (discovery), ask through it too; the answer is kept in
/// memory by ``WebviewHost/ProxyAuthentication`` for the app's run, never on disk.
@MainActor
enum ProxyPasswordQuestion {
    /// The questions on screen, until answered (a question holds its own answer).
    private static var open: [Int: (question: SignInQuestion, over: WebKitDifferences.Window?)] = [:]
    private static var lastKey = 0
    /// The user name last given to each proxy, for this run: a second question offers it again.
    private static var lastUser: [String: String] = [:]

    /// Makes the dialog ``WebviewHost/ProxyAuthentication``'s own question (the app's `ask` still
    /// comes first).
    nonisolated static func install() {
        ProxyAuthentication.libraryQuestion = { challenge, window in await ask(challenge, over: window) }
    }

    /// Asks the person (main thread); `nil` for Cancel, Escape, closing the dialog, its window
    /// ending the session, or no display to ask on.
    static func ask(_ challenge: ProxyChallenge, over window: WindowHandle?) async -> ProxyCredential? {
        guard gdk_display_get_default() != nil else { return nil }
        let parent = window.flatMap { wvh_is_window($0.address) != 0 ? wvh_window($0.address) : nil }
        return await withCheckedContinuation { continuation in
            show(challenge, over: parent) { continuation.resume(returning: $0) }
        }
    }

    /// Closes the questions over `window` as Cancel would (its session ended: the window goes).
    static func cancel(over window: WebKitDifferences.Window) {
        for (_, entry) in open where entry.over == window { entry.question.respond(accepted: false) }
    }

    private static func show(
        _ challenge: ProxyChallenge, over parent: WebKitDifferences.Window?, answer: @escaping @MainActor (ProxyCredential?) -> Void
    ) {
        let box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 6)!
        let userEntry = entry(labelled: ShownText.tr("field", "_User name"), in: box)
        let passwordEntry = entry(labelled: ShownText.tr("field", "_Password"), in: box)
        gtk_entry_set_visibility(wvh_entry(passwordEntry), 0)
        gtk_entry_set_input_purpose(wvh_entry(passwordEntry), GTK_INPUT_PURPOSE_PASSWORD)
        let remembered = lastUser[challenge.proxy]
        if let remembered { WebKitDifferences.setText(remembered, ofEntry: userEntry) }
        var detail = if let realm = challenge.realm, !realm.isEmpty {
            ShownText.tr(
                "question", "The proxy {proxy} asks for a user name and password for “{realm}” to connect to the sign-in server.",
                ["proxy": challenge.proxy, "realm": SignInQuestion.shortened(realm)])
        } else {
            ShownText.tr(
                "question", "The proxy {proxy} asks for a user name and password to connect to the sign-in server.",
                ["proxy": challenge.proxy])
        }
        if challenge.attempt > 1 {
            detail += "\n\n" + ShownText.tr("question", "The proxy refused the last user name and password. Try again.")
        }
        if challenge.attempt >= ProxyAuthentication.maximumAttempts {
            detail += "\n\n" + ShownText.tr("question", "This is the last try: after one more refusal the sign-in stops.")
        }
        detail += "\n\n" + ShownText.tr("question", "They are kept in memory until the app quits, never saved to disk.")
        // What is typed, followed as it changes (the fields are gone once the dialog answers).
        var user = remembered ?? ""
        var password = ""
        let typing = SignalConnections()
        typing.connect(userEntry, "changed", .plain { user = WebKitDifferences.text(ofEntry: userEntry) })
        typing.connect(passwordEntry, "changed", .plain { password = WebKitDifferences.text(ofEntry: passwordEntry) })
        lastKey += 1
        let key = lastKey
        let question = SignInQuestion(
            title: ShownText.tr("question", "Sign in to the proxy"), detail: detail,
            over: parent, cancel: ShownText.tr("button", "_Cancel"), accept: ShownText.tr("button", "_Connect"),
            acceptByDefault: true, content: box
        ) { accepted in
            typing.disconnectAll()
            open[key] = nil
            guard accepted else {
                answer(nil)
                return
            }
            lastUser[challenge.proxy] = user
            answer(ProxyCredential(user: user, password: password))
        }
        open[key] = (question, parent)
        gtk_widget_grab_focus(remembered == nil ? userEntry : passwordEntry)
    }

    /// A field under its label (the label's mnemonic focuses it; its text, without the
    /// underscore, is the field's name for a screen reader); Return in it answers Connect.
    private static func entry(labelled text: String, in box: WebKitDifferences.Widget) -> WebKitDifferences.Widget {
        let label = gtk_label_new_with_mnemonic(text)!
        gtk_label_set_xalign(wvh_label(label), 0)
        let entry = gtk_entry_new()!
        gtk_entry_set_activates_default(wvh_entry(entry), 1)
        gtk_label_set_mnemonic_widget(wvh_label(label), entry)
        wvh_set_accessible_label(entry, text.replacingOccurrences(of: "_", with: ""))
        WebKitDifferences.appendToQuestion(label, box)
        WebKitDifferences.appendToQuestion(entry, box)
        return entry
    }
}
