#if WEBKITGTK_6
import CWebKitGTK4
#else
import CWebKitGTK3
#endif
import CGLib
import Foundation
import GLibSupport
import WebviewHost

/// What a failed load, a refused certificate or an ended web process means for a sign-in: which
/// failures are only the session's own doing, and the ``WebAuthError`` the others end it with.
@MainActor
enum SignInLoadFailure {
    /// "Frame load interrupted by policy change" and "load cancelled" (WebKit's, or GIO's for a
    /// request it stopped): our own ignore decisions, or a load another one replaced. A load the
    /// page could not get fails otherwise (and a TLS refusal has its own signal).
    ///
    /// GIO's "cancelled" counts only once a page is in (`pageCommitted`). Before that, any
    /// cancellation is watched instead (``EmbeddedWebviewSession``'s `watchCancellation`): a load
    /// nobody replaced is loaded again once, then ends the session as `network`.
    static func isOwnCancellation(_ error: GLibError, pageCommitted: Bool) -> Bool {
        let policyDomain = String(cString: g_quark_to_string(webkit_policy_error_quark()))
        let networkDomain = String(cString: g_quark_to_string(webkit_network_error_quark()))
        let gioDomain = String(cString: g_quark_to_string(g_io_error_quark()))
        return (error.domain == policyDomain
            && error.code == Int32(WEBKIT_POLICY_ERROR_FRAME_LOAD_INTERRUPTED_BY_POLICY_CHANGE.rawValue))
            || (error.domain == networkDomain && error.code == Int32(WEBKIT_NETWORK_ERROR_CANCELLED.rawValue))
            || (pageCommitted && error.domain == gioDomain && error.code == Int32(G_IO_ERROR_CANCELLED.rawValue))
    }

    /// Whether `error` is a cancelled load (WebKit's or GIO's), which a new load usually replaced.
    static func isCancellation(_ error: GLibError) -> Bool {
        let networkDomain = String(cString: g_quark_to_string(webkit_network_error_quark()))
        let gioDomain = String(cString: g_quark_to_string(g_io_error_quark()))
        return (error.domain == networkDomain && error.code == Int32(WEBKIT_NETWORK_ERROR_CANCELLED.rawValue))
            || (error.domain == gioDomain && error.code == Int32(G_IO_ERROR_CANCELLED.rawValue))
    }

    /// Whether `error` is the connection dropping under the request (GIO's partial input, which
    /// libsoup says as "Connection terminated unexpectedly", a closed connection or a broken pipe),
    /// which a second try on a new connection usually gets past.
    static func isDroppedConnection(_ error: GLibError) -> Bool {
        let gioDomain = String(cString: g_quark_to_string(g_io_error_quark()))
        return error.domain == gioDomain
            && [G_IO_ERROR_PARTIAL_INPUT, G_IO_ERROR_CONNECTION_CLOSED, G_IO_ERROR_BROKEN_PIPE].map { Int32($0.rawValue) }.contains(error.code)
    }

    /// `network`: the page at `uri` could not be loaded (`load-failed`).
    /// `inCallerViewOnDefaultProxy`: the page was a caller's view's, whose store the app did not
    /// give the desktop's proxy (``EmbeddedWebviewProvider/useDesktopProxy(in:)``).
    static func network(uri: String, error: GLibError?, inCallerViewOnDefaultProxy: Bool = false) -> WebAuthError {
        WebAuthError(
            .network,
            "The sign-in page could not be loaded: \(error?.message ?? "unknown error"). Check the network connection and try again."
                + desktopProxyHint(inCallerViewOnDefaultProxy: inCallerViewOnDefaultProxy),
            url: URL(string: uri), underlyingError: error)
    }

    /// What the app can do when its own view fails behind a desktop proxy whose URI carries a user
    /// name and password: a view on WebKit's default proxy mode gets that URI as it is, which
    /// libsoup cannot use (it fails at once, "Message was restarted too many times"). "" otherwise.
    private static func desktopProxyHint(inCallerViewOnDefaultProxy: Bool) -> String {
        guard inCallerViewOnDefaultProxy, SignInProxy.desktopProxyMayCarryCredential else { return "" }
        return " The desktop's proxy names a user name and password in its address, which WebKit cannot use as it is: "
            + "the app gives its own view the desktop's proxy without them with EmbeddedWebviewProvider.useDesktopProxy(in:) "
            + "(wvh_use_desktop_proxy from C, WebviewHost.use_desktop_proxy from Python and JavaScript)."
    }

    /// `tls`: the page's certificate was refused (`load-failed-with-tls-errors`, with its
    /// `GTlsCertificateFlags`); TLS errors are never bypassed.
    static func tls(uri: String, errors: UInt32) -> WebAuthError {
        WebAuthError(
            .tls,
            "The sign-in page's TLS certificate is not trusted (\(describeTLSErrors(errors))); "
                + "the page was not loaded. Check the server's certificate or the system's trusted certificates.",
            url: URL(string: uri))
    }

    /// `webProcessTerminated`: the page's process ended (`web-process-terminated`, with its reason).
    static func webProcessTerminated(reason: UInt32) -> WebAuthError {
        let why = switch WebKitWebProcessTerminationReason(reason) {
        case WEBKIT_WEB_PROCESS_CRASHED: "crashed"
        case WEBKIT_WEB_PROCESS_EXCEEDED_MEMORY_LIMIT: "used too much memory"
        default: "was terminated"
        }
        return WebAuthError(.webProcessTerminated, "The web page's process \(why); start the sign-in again.")
    }

    private static func describeTLSErrors(_ flags: UInt32) -> String {
        let names: [(GTlsCertificateFlags, String)] = [
            (G_TLS_CERTIFICATE_UNKNOWN_CA, "unknown issuer"),
            (G_TLS_CERTIFICATE_BAD_IDENTITY, "wrong host name"),
            (G_TLS_CERTIFICATE_NOT_ACTIVATED, "not yet valid"),
            (G_TLS_CERTIFICATE_EXPIRED, "expired"),
            (G_TLS_CERTIFICATE_REVOKED, "revoked"),
            (G_TLS_CERTIFICATE_INSECURE, "insecure algorithm"),
        ]
        let found = names.filter { flags & $0.0.rawValue != 0 }.map(\.1)
        return found.isEmpty ? "certificate error" : found.joined(separator: ", ")
    }
}
