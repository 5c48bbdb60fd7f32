import Foundation
import WebviewHost

/// Reading a `WWW-Authenticate` challenge for Negotiate, and the error a sign-in ends with when
/// the view could not answer it (see `EmbeddedWebviewSession+Negotiate`).
enum NegotiateChallenge {
    /// The auth schemes of a `WWW-Authenticate` value (several headers joined with commas, as
    /// libsoup's `soup_message_headers_get_list` gives them), lower-cased. Split at commas outside
    /// quotes, an item whose first word has no `=` starts a challenge (`Negotiate`, `Basic
    /// realm="x"`); one with `=` is a parameter of the challenge before (`qop="auth"`).
    static func schemes(in header: String) -> Set<String> {
        var items: [String] = []
        var item = ""
        var inQuotes = false
        for character in header {
            if character == "\"" { inQuotes.toggle() }
            if character == ",", !inQuotes {
                items.append(item)
                item = ""
            } else {
                item.append(character)
            }
        }
        items.append(item)
        return Set(items.compactMap { item in
            let word = item.trimmingCharacters(in: .whitespaces).prefix { $0 != " " && $0 != "\t" }
            return word.isEmpty || word.contains("=") ? nil : word.lowercased()
        })
    }

    /// Negotiate is offered, and nothing WebKit asks the person a password for (Basic, Digest, NTLM).
    static func onlyNegotiate(_ schemes: Set<String>) -> Bool {
        schemes.contains("negotiate") && schemes.isDisjoint(with: ["basic", "digest", "ntlm"])
    }

    /// The session's outcome when a page asked for Negotiate and the view could not answer.
    /// `ticket` says what the person's Kerberos ticket is (``KerberosTicket/current()``; a parameter for tests).
    static func unanswered(
        url: URL?, ephemeral: Bool, ticket: () -> KerberosTicket = KerberosTicket.current
    ) -> WebAuthError {
        let host = url?.host.map { host in url?.port.map { "\(host):\($0)" } ?? host } ?? "the sign-in page"
        let asked = "\(host) asked for Windows sign-in (Kerberos, \"WWW-Authenticate: Negotiate\")"
        let message: String
        if ephemeral {
            message = "\(asked), which an ephemeral session (prefersEphemeralWebBrowserSession) cannot answer: "
                + "WebKit sends no Kerberos ticket there. Sign in without prefersEphemeralWebBrowserSession, "
                + "or in the system browser."
        } else if !NegotiateHosts.reaches(url) {
            message = "\(asked), where WebKit sends no Kerberos ticket: plain http hosts, and every host once the app "
                + "names any, get one only when named. Call EmbeddedWebviewProvider.allowNegotiate(to:) with "
                + "\(url.map { "\($0.scheme ?? "http")://\(host)" } ?? host) before the app's first web view."
        } else {
            switch ticket() {
            case .expired:
                message = "\(asked), and your Kerberos ticket has expired (klist shows when). "
                    + "Renew it with kinit (or lock and unlock the desktop with your work account), then try again."
            case .missing:
                message = "\(asked), and there is no Kerberos ticket to answer with (klist shows none). "
                    + "Get one with kinit (or sign in to the desktop with your work account), then try again."
            case .valid:
                message = "\(asked), and it did not accept your Kerberos ticket: the Kerberos server gave no ticket "
                    + "for this host (its service principal HTTP/\(url?.host ?? "<host>") may be missing, or your "
                    + "ticket is from another realm), or the page refused it. Ask the administrator of \(host)."
            }
        }
        return WebAuthError(.integratedAuthenticationUnavailable, message, url: url)
    }
}
