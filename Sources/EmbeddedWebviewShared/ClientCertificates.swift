#if WEBKITGTK_6
import CWebKitGTK4
#else
import CWebKitGTK3
#endif
import CGLib
import Foundation
import GLibSupport
import WebviewHost

/// The client certificate a session offers to servers that ask for one in the TLS handshake
/// (`CLIENT_CERTIFICATE_REQUESTED`), and the PIN its token asks for
/// (`CLIENT_CERTIFICATE_PIN_REQUESTED`): the app's ``ClientCertificate``, loaded when the session
/// prepares, else one the person chooses among those on their PKCS #11 tokens (the choice, not
/// the certificate, remembered per host for the rest of the app's run in ``ClientCertificateChoices``,
/// used again only while its token is there, and its PIN asked again). The answer is never stored in WebKit
/// (`WEBKIT_CREDENTIAL_PERSISTENCE_NONE`), and the connections it authenticated end with the
/// session in the library's window (``SignInWebContexts``). A caller's view keeps its
/// connections: a later session there with another identity is refused (``checkCallerView(_:given:)``).
@MainActor
struct ClientCertificates {
    /// What the app gave, as GIO loaded it.
    private(set) var certificate: GObjectRef<UnsafeMutablePointer<GTlsCertificate>>?
    /// What the app gave (in its parameters, or from its chooser during the session).
    var given: ClientCertificate?
    /// The hosts it was offered to in this session.
    var offeredTo: Set<String> = []
    /// The app's PIN was given to the token once already.
    var pinGiven = false
    /// How many PINs the token refused in this session (the library's dialog).
    var wrongPINs = 0
    /// After this many wrong PINs the session ends instead of asking again: most smart cards
    /// (PIV, OpenPGP cards) lock after three.
    static let maximumWrongPINs = 3
    /// The certificate the person chose on a token, for this session.
    var chosen: TokenCertificate?
    /// Requests for a host whose certificate is being chosen (the page's other connections): they
    /// get the same answer as the first.
    var waiting: [String: [GObjectRef<WebKitDifferences.AuthenticationRequest>]] = [:]

    /// Who the certificate offered in this session says the person is, for a caller's view's
    /// mark: the app's certificate (its files or URI, never a PIN or password), else the token
    /// certificate chosen. `token:` first when it is on a token (whose login outlives the session).
    var identity: String {
        if let given {
            if case .pkcs11 = given.source { return "token: " + given.description }
            return given.description
        }
        return chosen.map { "token: " + $0.certificateURI } ?? ""
    }

    /// The qdata key of a caller's view's store (its website data manager) that holds the
    /// identity its connections were authenticated with.
    private static let callerMark = "webview-host-client-certificate-identity"

    /// Refuses a session in a caller's view whose store already authenticated its connections
    /// with a client certificate in this run, unless the app gives the same certificate again
    /// (not one on a token: its login is not asked for again): WebKit gives the next sign-in the
    /// connection the first certificate authenticated, and the library cannot close the
    /// connections of the app's store. Throws `invalidParameters` saying what to do.
    static func checkCallerView(_ view: WebKitDifferences.WebView, given: ClientCertificate?) throws(WebAuthError) {
        let store = UnsafeMutableRawPointer(WebKitDifferences.websiteDataManager(ofView: view))
        guard let mark = g_object_get_data(store.assumingMemoryBound(to: GObject.self), callerMark) else { return }
        let earlier = String(cString: mark.assumingMemoryBound(to: CChar.self))
        if let given, !earlier.hasPrefix("token: ") {
            if case .pkcs11 = given.source {} else if given.description == earlier { return }
        }
        throw WebAuthError(
            .invalidParameters,
            "The caller's view (customWebview) is in a network session whose connections a client certificate authenticated "
                + "earlier in this run; WebKit would give this sign-in those connections (and a token's login) again, so the server "
                + "would see the earlier certificate. Give each sign-in with a client certificate a view in a new ephemeral network "
                + "session (webkit_network_session_new_ephemeral, or webkit_web_context_new_ephemeral with WebKitGTK 4.1), "
                + "or use the library's window, which does so itself.")
    }

    /// Marks the store of a caller's view whose connections `identity` authenticated (see ``checkCallerView(_:given:)``).
    static func markCallerView(_ view: WebKitDifferences.WebView, identity: String) {
        let store = UnsafeMutableRawPointer(WebKitDifferences.websiteDataManager(ofView: view))
        g_object_set_data_full(store.assumingMemoryBound(to: GObject.self), callerMark, g_strdup(identity)) { g_free($0) }
    }

    /// No certificate: a server that asks ends the session.
    init() { given = nil }

    /// Loads `given` (see ``load(_:)``).
    init(given: ClientCertificate?) throws(WebAuthError) {
        self.given = given
        certificate = try given.map { certificate throws(WebAuthError) in try Self.load(certificate) }
    }

    /// Loads `given` (GIO's `g_tls_certificate_new_from_*`); throws `invalidParameters` saying
    /// which file or URI could not be used and why (unreadable, not a certificate, no private key,
    /// a wrong PKCS #12 password).
    static func load(_ given: ClientCertificate) throws(WebAuthError) -> GObjectRef<UnsafeMutablePointer<GTlsCertificate>> {
        do throws(GLibError) {
            let loaded: UnsafeMutablePointer<GTlsCertificate>? = switch given.source {
            case .pem(let certificate, let key):
                // With no key file, the key must be in the certificate's file: reading that file as
                // both says "no private key" for a certificate alone.
                try withGError { g_tls_certificate_new_from_files(certificate.path, (key ?? certificate).path, $0) }
            case .pkcs12(let file, let password):
                try withGError { g_tls_certificate_new_from_file_with_password(file.path, password ?? "", $0) }
            case .pkcs11(let certificate, let key, _):
                try withGError { g_tls_certificate_new_from_pkcs11_uris(certificate, key, $0) }
            }
            guard let loaded else { throw GLibError(domain: "g-tls-error-quark", code: 0, message: "no certificate") }
            return GObjectRef(adopting: loaded)
        } catch {
            throw WebAuthError(
                .invalidParameters,
                "The client certificate the app gave (\(given)) cannot be used: \(error.message). "
                    + "Give a certificate with its private key (WebviewParameters.clientCertificate).",
                underlyingError: error)
        }
    }
}

extension EmbeddedWebviewSession {
    /// A server asks for a client certificate: the app's, if it gave one; else the one the person
    /// chose for that host earlier in the app's run; else the person chooses among the
    /// certificates on their tokens (listed off the main thread; the request is answered then).
    /// With none anywhere, the session ends with `clientCertificateRequired`, not with the load
    /// failure WebKit's default answer (no certificate) would bring.
    func clientCertificateRequested(_ request: WebKitDifferences.AuthenticationRequest) -> Bool {
        let host = webkit_authentication_request_get_host(request).map { String(cString: $0) } ?? ""
        if let certificate = clientCertificates.certificate {
            offer(certificate.pointer, to: request, host: host)
            return true
        }
        if clientCertificates.waiting[host] != nil {
            clientCertificates.waiting[host]?.append(GObjectRef(retaining: request))
            return true
        }
        clientCertificates.waiting[host] = []
        let pending = GObjectRef(retaining: request)
        Task { [weak self] in
            let found = await Task.detached { TokenCertificates.list() }.value
            guard let self, !self.ended else {
                self?.cancelWaiting()
                webkit_authentication_request_cancel(pending.pointer)
                return
            }
            // The person's earlier choice for this host, while its certificate is the only one
            // there: its PIN is asked again (the session that used it closed its connections).
            // With another certificate there (another person's card), the person chooses again;
            // a token taken out is forgotten.
            if let remembered = self.settings.certificateChoices[host] {
                if found.count == 1, found[0].certificateURI == remembered.certificateURI {
                    self.use(remembered, for: pending.pointer, host: host)
                    return
                }
                if !found.contains(where: { $0.certificateURI == remembered.certificateURI }) {
                    self.settings.certificateChoices[host] = nil
                }
            }
            self.chooseCertificate(among: found, for: pending.pointer, host: host)
        }
        return true
    }

    private func chooseCertificate(among found: [TokenCertificate], for request: WebKitDifferences.AuthenticationRequest, host: String) {
        if let chooser = self.request.parameters.clientCertificateChooser {
            askApp(chooser, among: found, for: request, host: host)
            return
        }
        guard !found.isEmpty else {
            endForCertificate(request, WebAuthError(
                .clientCertificateRequired,
                "The sign-in server \(host) asked for a client certificate (certificate-based sign-in, a smart card), and there is "
                    + "none: no usable certificate on the person's smart cards or tokens (PKCS #11 through p11-kit) and none from the app. "
                    + "Insert the smart card, give one in WebviewParameters.clientCertificate, or sign in with the system browser.",
                url: loading ?? requested))
            return
        }
        guard let over = questionWindow else {
            endForCertificate(request, WebAuthError(
                .clientCertificateRequired,
                "The sign-in server \(host) asked for a client certificate, and the caller's view is in no window to ask the person in. "
                    + "Put the view in a window, or give the certificate in WebviewParameters.clientCertificate."))
            return
        }
        let pending = GObjectRef(retaining: request)
        question?.destroy()
        question = ClientCertificateQuestions.choose(from: found, host: host, over: over) { [weak self] chosen in
            guard let self else { return }
            self.question = nil
            guard let chosen else {
                self.endForCertificate(pending.pointer, WebAuthError(
                    .userCanceled, "The person cancelled the choice of a client certificate for \(host)."))
                return
            }
            self.settings.certificateChoices[host] = chosen
            self.use(chosen, for: pending.pointer, host: host)
        }
    }

    /// The app's chooser answers instead of the library's: its certificate is loaded as the
    /// parameters' would be (its PIN, if a token's, used once; else the library's PIN dialog asks).
    private func askApp(
        _ chooser: @escaping ClientCertificateChooser, among found: [TokenCertificate],
        for request: WebKitDifferences.AuthenticationRequest, host: String
    ) {
        let pending = GObjectRef(retaining: request)
        let candidates = found.map {
            ClientCertificateRequest.Candidate(
                subject: $0.subject, issuer: $0.issuer, notAfter: $0.notAfter, tokenLabel: $0.tokenLabel,
                certificateURI: $0.certificateURI, privateKeyURI: $0.keyURI)
        }
        Task { [weak self] in
            let answer = await chooser(ClientCertificateRequest(host: host, candidates: candidates))
            guard let self, !self.ended else {
                self?.cancelWaiting()
                webkit_authentication_request_cancel(pending.pointer)
                return
            }
            guard let answer else {
                self.endForCertificate(pending.pointer, WebAuthError(
                    .userCanceled, "The app's client certificate chooser gave no certificate for \(host)."))
                return
            }
            do throws(WebAuthError) {
                let certificate = try ClientCertificates.load(answer)
                self.clientCertificates.given = answer
                self.clientCertificates.chosen = found.first { $0.certificateURI == answer.pkcs11URI }
                self.offer(certificate.pointer, to: pending.pointer, host: host)
            } catch {
                self.endForCertificate(pending.pointer, error)
            }
        }
    }

    /// Answers with a certificate on a token (GIO loads it from its `pkcs11:` URIs).
    private func use(_ chosen: TokenCertificate, for request: WebKitDifferences.AuthenticationRequest, host: String) {
        do throws(GLibError) {
            let loaded = try withGError { g_tls_certificate_new_from_pkcs11_uris(chosen.certificateURI, chosen.keyURI, $0) }
            guard let loaded else { throw GLibError(domain: "g-tls-error-quark", code: 0, message: "no certificate") }
            let certificate = GObjectRef(adopting: loaded)
            clientCertificates.chosen = chosen
            offer(certificate.pointer, to: request, host: host)
        } catch {
            settings.certificateChoices[host] = nil
            endForCertificate(request, WebAuthError(
                .clientCertificateRequired,
                "The certificate \(chosen.name) on \(chosen.tokenLabel) could not be used: \(error.message). Check that its token is still there.",
                underlyingError: error))
        }
    }

    /// Answers `request` with `certificate`, and the host's requests that waited for it.
    private func offer(_ certificate: UnsafeMutablePointer<GTlsCertificate>, to request: WebKitDifferences.AuthenticationRequest, host: String) {
        clientCertificates.offeredTo.insert(host)
        let credential = webkit_credential_new_for_certificate(certificate, WEBKIT_CREDENTIAL_PERSISTENCE_NONE)
        webkit_authentication_request_authenticate(request, credential)
        for other in clientCertificates.waiting.removeValue(forKey: host) ?? [] {
            webkit_authentication_request_authenticate(other.pointer, credential)
        }
        webkit_credential_free(credential)
    }

    /// Cancels every request waiting for a certificate.
    private func cancelWaiting() {
        for other in clientCertificates.waiting.values.joined() { webkit_authentication_request_cancel(other.pointer) }
        clientCertificates.waiting = [:]
    }

    /// Cancels `request` (and every request waiting for a certificate) and ends the session with `error`.
    private func endForCertificate(_ request: WebKitDifferences.AuthenticationRequest, _ error: WebAuthError) {
        cancelWaiting()
        webkit_authentication_request_cancel(request)
        window?.loadEnded()
        reporter.fail(error)
    }

    /// Where the library's questions go: its window, or the window holding the caller's view.
    var questionWindow: WebKitDifferences.Window? {
        if let window { return window.window }
        return webView.flatMap { WebKitDifferences.toplevelWindow(of: $0) }
    }

    /// The token holding the certificate asks for its PIN: the app's PIN, once (a token that asks
    /// again refused it, and the session ends with `clientCertificateRequired` saying so, the
    /// token's "final try" warning included, before a wrong PIN is tried again and locks it);
    /// else the library's PIN dialog, again after a wrong PIN, with WebKit's flags said in words.
    /// Cancel there ends the session with `userCanceled`. A locked token ends it at once with
    /// `clientCertificateRequired` saying so.
    func clientCertificatePINRequested(_ request: WebKitDifferences.AuthenticationRequest) -> Bool {
        let flags = webkit_authentication_request_get_certificate_pin_flags(request).rawValue
        let host = webkit_authentication_request_get_host(request).map { String(cString: $0) } ?? ""
        let token = clientCertificates.chosen?.tokenLabel ?? clientCertificates.given.flatMap(Self.tokenLabel) ?? host
        let name = clientCertificates.chosen?.name ?? clientCertificates.given?.description ?? ""
        // A locked token is said so at once, before any PIN is tried (C_GetTokenInfo: quick, even
        // on a card reader).
        if let uri = clientCertificates.chosen?.certificateURI ?? clientCertificates.given.flatMap(Self.pkcs11URI),
            TokenCertificates.isLocked(tokenOf: uri)
        {
            endForCertificate(request, WebAuthError(
                .clientCertificateRequired,
                "The token \(token) holding the certificate \(host) asked for is locked: it refused too many PINs. "
                    + "Only its administrator can unlock it (with its PUK or security officer PIN); no PIN was asked for or tried.",
                url: loading ?? requested))
            return true
        }
        if case .pkcs11(_, _, let pin?) = clientCertificates.given?.source {
            let retry = flags & G_TLS_PASSWORD_RETRY.rawValue != 0 || clientCertificates.pinGiven
            guard retry else {
                clientCertificates.pinGiven = true
                answer(request, pin: pin)
                return true
            }
            let certificate = clientCertificates.given.map(\.description) ?? "the client certificate"
            let why = flags & G_TLS_PASSWORD_FINAL_TRY.rawValue != 0
                ? "refused the app's PIN; one more wrong PIN locks it. Check the PIN before trying again."
                : "refused the app's PIN. Check the PIN the app gives."
            endForCertificate(request, WebAuthError(
                .clientCertificateRequired,
                "The sign-in server \(host) asked for a client certificate, and the token holding \(certificate) " + why,
                url: loading ?? requested))
            return true
        }
        guard let over = questionWindow else {
            endForCertificate(request, WebAuthError(
                .clientCertificateRequired,
                "The token \(token) asks for its PIN, and the caller's view is in no window to ask the person in. "
                    + "Put the view in a window, or give the PIN in ClientCertificate.pkcs11(uri:pin:)."))
            return true
        }
        if flags & G_TLS_PASSWORD_RETRY.rawValue != 0 {
            clientCertificates.wrongPINs += 1
            if clientCertificates.wrongPINs >= ClientCertificates.maximumWrongPINs {
                endForCertificate(request, WebAuthError(
                    .clientCertificateRequired,
                    "The token \(token) refused \(clientCertificates.wrongPINs) PINs for the certificate \(host) asked for; "
                        + "the sign-in was stopped before another try could lock it. The person needs the token's right PIN "
                        + "(or its administrator, when it is locked).",
                    url: loading ?? requested))
                return true
            }
        }
        let pending = GObjectRef(retaining: request)
        question?.destroy()
        question = ClientCertificateQuestions.askPIN(token: token, certificate: name, host: host, flags: flags, over: over) { [weak self] pin in
            guard let self else { return }
            self.question = nil
            guard let pin else {
                // Not theirs, perhaps (another person's card left in the reader): the next sign-in asks which.
                self.settings.certificateChoices[host] = nil
                self.endForCertificate(pending.pointer, WebAuthError(
                    .userCanceled, "The person cancelled the PIN of \(token) asked for by \(host)."))
                return
            }
            self.answer(pending.pointer, pin: pin)
        }
        return true
    }

    /// A page load that failed after the session offered a certificate to its host, with a TLS
    /// error (the server refused the handshake: "Server required TLS certificate" when the token
    /// did not sign): `clientCertificateRequired` saying so, not `network`. `nil` otherwise.
    func certificateLoadFailure(uri: String, error: GLibError?) -> WebAuthError? {
        guard let error, error.domain == "g-tls-error-quark" || error.message.contains("TLS certificate"),
            let host = URL(string: uri)?.host, clientCertificates.offeredTo.contains(host)
        else { return nil }
        let certificate = clientCertificates.given?.description ?? clientCertificates.chosen?.name ?? "the client certificate"
        let why = clientCertificates.pinGiven
            ? "the token holding \(certificate) refused the app's PIN (or could not sign with its key). Check the PIN the app gives."
            : "the handshake with \(certificate) failed (\(error.message)). Check that the certificate is one the server accepts and that its token is still there."
        return WebAuthError(
            .clientCertificateRequired, "The sign-in server \(host) asked for a client certificate, and " + why,
            url: URL(string: uri), underlyingError: error)
    }

    private func answer(_ request: WebKitDifferences.AuthenticationRequest, pin: String) {
        let credential = webkit_credential_new_for_certificate_pin(pin, WEBKIT_CREDENTIAL_PERSISTENCE_NONE)
        webkit_authentication_request_authenticate(request, credential)
        webkit_credential_free(credential)
    }

    /// The app's certificate's `pkcs11:` URI, when it is on a token.
    private static func pkcs11URI(_ certificate: ClientCertificate) -> String? {
        guard case .pkcs11(let uri, _, _) = certificate.source else { return nil }
        return uri
    }

    /// The `token=` attribute of an app's `pkcs11:` URI, percent-decoded.
    private static func tokenLabel(_ certificate: ClientCertificate) -> String? {
        guard case .pkcs11(let uri, _, _) = certificate.source else { return nil }
        let path = uri.split(separator: "?").first.map(String.init) ?? uri
        return path.dropFirst("pkcs11:".count).split(separator: ";")
            .first { $0.lowercased().hasPrefix("token=") }
            .flatMap { String($0.dropFirst("token=".count)).removingPercentEncoding }
    }
}
