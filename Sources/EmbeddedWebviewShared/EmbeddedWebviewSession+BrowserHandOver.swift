#if WEBKITGTK_6
import CWebKitGTK4
#else
import CWebKitGTK3
#endif
import CGLib
import Foundation
import WebviewHost

/// Moving the sign-in to the person's browser: when they ask ("Continue in your browser"), when
/// the page asks for WebAuthn, or when the provider refuses embedded views.
extension EmbeddedWebviewSession {
    /// The page the view shows now.
    private var currentPage: URL? {
        webView.flatMap { webkit_web_view_get_uri($0) }.flatMap { URL(string: String(cString: $0)) }
    }

    /// The person clicked "Continue in your browser".
    func personChoseBrowser() {
        handOver(
            SystemBrowserHandOver(reason: .personChose, detail: "the person chose to continue in the browser", pageURL: currentPage),
            personChose: true)
    }

    /// What the page watch found: a WebAuthn call, or a refusal's text.
    func pageFound(_ finding: SignInPageWatch.Finding) {
        guard !ended else { return }
        switch finding {
        case .webAuthn(let operation):
            let what = operation == "create" ? "to register a passkey or security key" : "for a passkey or security key"
            handOver(SystemBrowserHandOver(
                reason: .webAuthn, detail: "the page asked \(what) (navigator.credentials.\(operation)), which this web view cannot offer",
                pageURL: currentPage), personChose: false)
        case .refusal(let index):
            let rules = request.parameters.embeddedAgentRefusals
            let name = rules.indices.contains(index) ? rules[index].name : "a refusal rule"
            handOver(SystemBrowserHandOver(
                reason: .embeddedAgentRefused, detail: "\(name): the provider refuses embedded views", pageURL: currentPage),
                personChose: false)
        }
    }

    /// Moves the sign-in to the browser as the app's ``SystemBrowserHandOverPolicy`` says: at once,
    /// after the person agrees (unless they chose it), or not at all (the host then ends the
    /// session with `systemBrowserRequired`). This view is put out of sight when the host took over.
    func handOver(_ handOver: SystemBrowserHandOver, personChose: Bool) {
        guard !ended, !handOverPending else { return }
        if request.parameters.systemBrowserHandOver == .askFirst, !personChose,
            let parent = window?.window ?? webView.flatMap({ WebKitDifferences.toplevelWindow(of: $0) })
        {
            handOverPending = true
            question = SignInQuestion(
                title: ShownText.tr("question", "Continue in your browser?"),
                detail: ShownText.tr(
                    "question",
                    "This sign-in page needs something this window cannot offer ({detail}). Your web browser can finish signing in.",
                    ["detail": SignInQuestion.shortened(handOver.detail)]),
                over: parent, cancel: ShownText.tr("button", "_Stay here"), accept: ShownText.tr("button", "Continue in _browser"),
                acceptByDefault: true
            ) { [weak self] accepted in
                guard let self else { return }
                self.question = nil
                self.handOverPending = false
                guard !self.ended else { return }
                if accepted {
                    self.reporter.handOverToSystemBrowser(handOver)
                } else {
                    self.pageWatch?.refusePendingRequests()
                }
            }
            return
        }
        handOverPending = true
        reporter.handOverToSystemBrowser(handOver)
    }
}
