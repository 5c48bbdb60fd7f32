#if WEBKITGTK_6
import CWebKitGTK4
#else
import CWebKitGTK3
#endif
import CGLib
import Foundation
import GLibSupport
import WebviewHost

/// The library's two questions for a server that asks for a client certificate, over the sign-in
/// window (or the window holding a caller's view), answered without a nested main loop.
@MainActor
enum ClientCertificateQuestions {
    /// "Choose a certificate": the host that asks, and one row per certificate (its name, issuer,
    /// expiry and token); the only one is chosen, and with several none is: the keyboard starts on
    /// Cancel and the accept button waits for a highlighted row (a click, or Tab into the list).
    /// `answer` gets the chosen one, or `nil` for Cancel, Escape or closing the dialog.
    static func choose(
        from certificates: [TokenCertificate], host: String, over window: WebKitDifferences.Window,
        answer: @escaping @MainActor (TokenCertificate?) -> Void
    ) -> SignInQuestion {
        let list = gtk_list_box_new()!
        gtk_list_box_set_selection_mode(wvh_list_box(list), GTK_SELECTION_SINGLE)
        let dates = DateFormatter()
        dates.dateFormat = "yyyy-MM-dd"
        for certificate in certificates {
            let row = gtk_label_new(nil)!
            let details = ShownText.tr(
                "certificate", "Issued by {issuer}, expires {date}, on “{token}”",
                ["issuer": certificate.issuerName, "date": dates.string(from: certificate.notAfter), "token": certificate.tokenLabel])
            gtk_label_set_text(wvh_label(row), certificate.name + "\n" + details)
            gtk_label_set_xalign(wvh_label(row), 0)
            gtk_widget_set_margin_top(row, 6)
            gtk_widget_set_margin_bottom(row, 6)
            gtk_widget_set_margin_start(row, 6)
            gtk_widget_set_margin_end(row, 6)
            WebKitDifferences.appendRow(row, to: list)
        }
        // The row chosen, followed as it changes (the list is gone once the dialog answers).
        var chosenIndex: Int?
        weak var shown: SignInQuestion?
        let rows = SignalConnections()
        // Connected before the dialog shows, so that what is highlighted is what is sent. The
        // accept button (and Enter) waits for a row.
        rows.connect(list, "row-selected", .pointer { (row: UnsafeMutablePointer<GtkListBoxRow>?) in
            chosenIndex = row.map { Int(gtk_list_box_row_get_index($0)) }
            shown?.setAcceptable(chosenIndex != nil)
        })
        if certificates.count == 1, let only = gtk_list_box_get_row_at_index(wvh_list_box(list), 0) {
            gtk_list_box_select_row(wvh_list_box(list), only)
            chosenIndex = 0
        }
        let chosen = { () -> TokenCertificate? in
            guard let chosenIndex, certificates.indices.contains(chosenIndex) else { return nil }
            return certificates[chosenIndex]
        }
        var question: SignInQuestion?
        question = SignInQuestion(
            title: ShownText.tr("question", "Choose a certificate"),
            detail: ShownText.tr(
                "question", "{host} asks for a certificate to sign you in. Choose the one to send, or cancel the sign-in.",
                ["host": host]),
            over: window, cancel: ShownText.tr("button", "_Cancel"), accept: ShownText.tr("button", "_Use Certificate"),
            acceptByDefault: true, content: list,
            // With several, the keyboard starts on Cancel, not in the list (a row the focus enters
            // is selected): none is chosen for the person. Tab goes to the list.
            focusesCancel: certificates.count > 1
        ) { accepted in
            rows.disconnectAll()
            let certificate = accepted ? chosen() : nil
            // Accepted with no row chosen (the button cannot be, a row's activation can only
            // choose): a cancel, so that nothing is sent that the person did not pick.
            answer(certificate)
        }
        shown = question
        question?.setAcceptable(chosenIndex != nil)
        // Enter or a double click on a row chooses it.
        rows.connect(list, "row-activated", .pointer { [weak question] in question?.respond(accepted: true) })
        return question!
    }

    /// "Enter the PIN of “token”": the host that asks and the certificate, WebKit's flags said in
    /// words (wrong PIN, many tries, final try). `answer` gets the PIN, or `nil` for Cancel.
    static func askPIN(
        token: String, certificate: String, host: String, flags: UInt32, over window: WebKitDifferences.Window,
        answer: @escaping @MainActor (String?) -> Void
    ) -> SignInQuestion {
        let entry = SignInQuestion.pinEntry()
        var detail = ShownText.tr(
            "question", "{host} asks for your certificate “{certificate}”. Enter the PIN that unlocks it.",
            ["host": host, "certificate": certificate])
        if flags & G_TLS_PASSWORD_RETRY.rawValue != 0 {
            detail += "\n\n" + ShownText.tr("question", "The PIN was wrong. Try again.")
        }
        if flags & G_TLS_PASSWORD_FINAL_TRY.rawValue != 0 {
            detail += "\n\n" + ShownText.tr("question", "This is the last try: one more wrong PIN locks the token.")
        } else if flags & G_TLS_PASSWORD_MANY_TRIES.rawValue != 0 {
            detail += "\n\n" + ShownText.tr("question", "Several wrong PINs were entered: the token may lock soon.")
        }
        // The PIN, followed as it is typed (the field is gone once the dialog answers).
        var pin = ""
        let typing = SignalConnections()
        typing.connect(entry, "changed", .plain { pin = WebKitDifferences.text(ofEntry: entry) })
        let question = SignInQuestion(
            title: ShownText.tr("question", "Enter the PIN of “{token}”", ["token": token]),
            detail: detail,
            over: window, cancel: ShownText.tr("button", "_Cancel"), accept: ShownText.tr("button", "_Unlock"),
            acceptByDefault: true, content: entry
        ) { accepted in
            typing.disconnectAll()
            answer(accepted ? pin : nil)
        }
        gtk_widget_grab_focus(entry)
        return question
    }
}
