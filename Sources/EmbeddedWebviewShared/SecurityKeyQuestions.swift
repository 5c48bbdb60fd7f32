#if WEBKITGTK_6
import CWebKitGTK4
#else
import CWebKitGTK3
#endif
import CGLib
import Foundation
import GLibSupport
import SecurityKeys
import WebviewHost

/// The library's prompt for one WebAuthn ceremony (``SecurityKeys/SecurityKeyPrompt``), over the
/// sign-in window or the window holding a caller's view: "Insert your security key", "Touch your
/// security key" (naming the site), the PIN with the tries left, the key's accounts to choose
/// from, and what went wrong, in words. One ``SignInQuestion`` at a time, modal, never a nested
/// main loop. Cancel (or Escape, or closing it) calls `cancelled`: the page gets
/// `NotAllowedError` and the sign-in goes on.
@MainActor
final class SecurityKeyQuestions: SecurityKeyPrompt {
    /// The window the questions go over, while it lives (the session may end and take it first).
    private let parentRef: GObjectWeakRef<WebKitDifferences.Window>?
    private let cancelled: @MainActor () -> Void
    private var question: SignInQuestion?
    /// "Touch your security key", waiting for ``touchPromptDelay`` before it shows.
    private var pendingTouchPrompt: Task<Void, Never>?
    /// Dismissed: the ceremony was cancelled by the page or the session; nothing more shows.
    private var dismissed = false
    /// Resumes the question being awaited (the PIN, the account) as Cancel would, once.
    private var resumeAwaited: (@MainActor () -> Void)?

    init(over parent: WebKitDifferences.Window?, cancelled: @escaping @MainActor () -> Void) {
        parentRef = parent.map { GObjectWeakRef($0) }
        self.cancelled = cancelled
    }

    /// The parent window, `nil` once it is gone; whether a question may show at all.
    private var parent: WebKitDifferences.Window? { parentRef?.get()?.pointer }
    private var canShow: Bool { !dismissed && (parentRef == nil || parent != nil) }

    /// The question on screen now goes (the ceremony ended, or the next step replaces it).
    private func close() {
        pendingTouchPrompt?.cancel()
        pendingTouchPrompt = nil
        question?.destroy()
        question = nil
    }

    /// How long the key may take before "Touch your security key" shows. A key that answers at
    /// once (one that needs no touch, a virtual one) then never flashes a window over the page,
    /// and its ceremony costs no window: in the benchmark a GTK 4 window shown and taken away was
    /// most of the page's `get()` time. A person reaching for a key takes longer than this.
    static let touchPromptDelay: Duration = .milliseconds(250)

    /// Takes the question away and shows nothing more: the page aborted, went to another page, or
    /// the session ended. Calling it again does nothing.
    func dismiss() {
        dismissed = true
        close()
        let resume = resumeAwaited
        resumeAwaited = nil
        resume?()
    }

    func show(_ step: SecurityKeyStep) {
        close()
        guard canShow else { return }
        let title: String
        let detail: String
        switch step {
        case .insertKey:
            title = ShownText.tr("question", "Insert your security key")
            detail = ShownText.tr("question", "This page asks for a security key. Insert yours into a USB port.")
        case .touchToChoose:
            title = ShownText.tr("question", "Touch the security key to use")
            detail = ShownText.tr("question", "Several security keys are plugged in. Touch the one you want to use.")
        case .touchKey(let site):
            title = ShownText.tr("question", "Touch your security key")
            detail = ShownText.tr("question", "Touch your security key to continue with {site}.", ["site": SignInQuestion.shortened(site)])
        }
        let present = { [weak self] in
            guard let self, self.canShow else { return }
            self.question = SignInQuestion(
                title: title, detail: detail, over: self.parent, cancel: ShownText.tr("button", "_Cancel"), accept: nil,
                acceptByDefault: false
            ) { [weak self] _ in
                self?.question = nil
                self?.cancelled()
            }
        }
        guard case .touchKey = step else { return present() }
        pendingTouchPrompt = Task { @MainActor in
            try? await Task.sleep(for: Self.touchPromptDelay)
            guard !Task.isCancelled else { return }
            present()
        }
    }

    func askPIN(for site: String, retriesLeft: Int?) async -> String? {
        close()
        guard canShow else { return nil }
        let entry = SignInQuestion.pinEntry()
        var detail = ShownText.tr(
            "question", "Enter your security key's PIN to continue with {site}.", ["site": SignInQuestion.shortened(site)])
        if let retriesLeft {
            if retriesLeft == 1 {
                detail += "\n\n" + ShownText.tr(
                    "question", "This is the last try: one more wrong PIN locks the key, and it must then be reset, which erases it.")
            } else {
                detail += "\n\n" + ShownText.tr("question", "The PIN was wrong. {count} tries are left.", ["count": String(retriesLeft)])
            }
        }
        var pin = ""
        let typing = SignalConnections()
        typing.connect(entry, "changed", .plain { pin = WebKitDifferences.text(ofEntry: entry) })
        return await withCheckedContinuation { continuation in
            resumeAwaited = {
                typing.disconnectAll()
                continuation.resume(returning: nil)
            }
            question = SignInQuestion(
                title: ShownText.tr("question", "Enter your security key's PIN"), detail: detail, over: parent,
                cancel: ShownText.tr("button", "_Cancel"), accept: ShownText.tr("button", "_Continue"), acceptByDefault: true,
                content: entry
            ) { [weak self] accepted in
                typing.disconnectAll()
                self?.question = nil
                self?.resumeAwaited = nil
                continuation.resume(returning: accepted ? pin : nil)
            }
            gtk_widget_grab_focus(entry)
        }
    }

    func chooseAccount(for site: String, among accounts: [SecurityKeyAccount]) async -> Int? {
        close()
        guard canShow else { return nil }
        let list = gtk_list_box_new()!
        gtk_list_box_set_selection_mode(wvh_list_box(list), GTK_SELECTION_SINGLE)
        for account in accounts {
            let row = gtk_label_new(nil)!
            let shown = [account.displayName, account.name].compactMap { $0 }.filter { !$0.isEmpty }
            gtk_label_set_text(wvh_label(row), shown.isEmpty ? ShownText.tr("question", "An account without a name") : shown.joined(separator: "\n"))
            gtk_label_set_xalign(wvh_label(row), 0)
            for edge in [gtk_widget_set_margin_top, gtk_widget_set_margin_bottom, gtk_widget_set_margin_start, gtk_widget_set_margin_end] {
                edge(row, 6)
            }
            WebKitDifferences.appendRow(row, to: list)
        }
        var chosen: Int?
        let rows = SignalConnections()
        return await withCheckedContinuation { continuation in
            resumeAwaited = {
                rows.disconnectAll()
                continuation.resume(returning: nil)
            }
            let question = SignInQuestion(
                title: ShownText.tr("question", "Choose an account"),
                detail: ShownText.tr(
                    "question", "Your security key holds several accounts for {site}. Choose the one to continue with.",
                    ["site": SignInQuestion.shortened(site)]),
                over: parent, cancel: ShownText.tr("button", "_Cancel"), accept: ShownText.tr("button", "_Continue"),
                acceptByDefault: true, content: list, focusesCancel: true
            ) { [weak self] accepted in
                rows.disconnectAll()
                self?.question = nil
                self?.resumeAwaited = nil
                continuation.resume(returning: accepted ? chosen : nil)
            }
            question.setAcceptable(false)
            rows.connect(list, "row-selected", .pointer { [weak question] (row: UnsafeMutablePointer<GtkListBoxRow>?) in
                chosen = row.map { Int(gtk_list_box_row_get_index($0)) }
                question?.setAcceptable(chosen != nil)
            })
            rows.connect(list, "row-activated", .pointer { [weak question] in question?.respond(accepted: true) })
            self.question = question
        }
    }

    func finish(_ error: SecurityKeyError?) {
        close()
        guard canShow, let error, let words = Self.words(for: error) else { return }
        question = SignInQuestion(
            title: ShownText.tr("question", "The security key could not be used"), detail: words, over: parent,
            cancel: ShownText.tr("button", "_Close"), accept: nil, acceptByDefault: false
        ) { [weak self] _ in
            self?.question = nil
        }
    }

    /// What went wrong, for the person; `nil` when there is nothing to say (they cancelled).
    static func words(for error: SecurityKeyError) -> String? {
        switch error.code {
        case .cancelled: nil
        case .notAllowed: ShownText.tr("question", "The security key was not touched in time, or the request was declined.")
        case .credentialExcluded: ShownText.tr("question", "This security key is already registered for this account.")
        case .noCredentials: ShownText.tr("question", "This security key is not registered for this site. Try another key or another way to sign in.")
        case .pinBlocked: ShownText.tr("question", "The security key is locked after too many wrong PINs. It must be reset, which erases it.")
        case .pinAuthBlocked: ShownText.tr("question", "Too many wrong PINs in a row. Take the security key out, put it back in, and try again.")
        case .pinNotSet: ShownText.tr("question", "This site needs a PIN on your security key, and the key has none. Set one with the key's own tool first.")
        case .uvBlocked: ShownText.tr("question", "The security key's fingerprint check is locked. Use its PIN, or reset the key.")
        case .unsupportedAlgorithm: ShownText.tr("question", "This security key cannot make the kind of key this site asks for.")
        case .deviceGone: ShownText.tr("question", "The security key stopped answering. Take it out, put it back in, and try again.")
        default: ShownText.tr("question", "The security key reported an error: {detail}", ["detail": error.detail])
        }
    }
}
