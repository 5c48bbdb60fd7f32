#if WEBKITGTK_6
import CWebKitGTK4
#else
import CWebKitGTK3
#endif
import CGLib
import Foundation
import GLibSupport
import WebviewHost

/// A session's sign-in cookies (``WebviewHost/WebviewParameters/signInCookies``, a broker's SSO
/// cookie) in the cookie store of its view: added before the first load
/// (`webkit_cookie_manager_add_cookie`), deleted when the session ends.
///
/// Each is a libsoup session cookie (no `max-age`, so WebKit's SQLite cookie storage never
/// writes it: libsoup's database jar stores only cookies that expire), host-only (a domain
/// without a leading dot matches that host alone), `HttpOnly`, and `Secure` with
/// `SameSite=None` when ``WebviewHost/SignInCookie/isSecure`` (a sign-in page may be framed or
/// posted to across sites), else libsoup's default `Lax`.
@MainActor
final class SignInCookieJar {
    private let manager: GObjectRef<WebKitDifferences.CookieManager>
    private let cookies: [SignInCookie]

    private init(manager: GObjectRef<WebKitDifferences.CookieManager>, cookies: [SignInCookie]) {
        self.manager = manager
        self.cookies = cookies
    }

    /// Adds `cookies` to `manager` and returns the jar that removes them.
    ///
    /// - Throws: `invalidParameters` for a cookie that cannot be set (``WebviewHost/SignInCookie/problem``),
    ///   before any is added; `providerUnavailable` when WebKit refuses one (the ones added
    ///   before it are removed again).
    static func install(_ cookies: [SignInCookie], in manager: WebKitDifferences.CookieManager) async throws(WebAuthError) -> SignInCookieJar {
        for cookie in cookies {
            if let problem = cookie.problem {
                throw WebAuthError(.invalidParameters, "The sign-in cookies cannot be set: \(problem).")
            }
        }
        let jar = SignInCookieJar(manager: GObjectRef(retaining: manager), cookies: cookies)
        for (index, cookie) in cookies.enumerated() {
            if let failure = await jar.add(cookie) {
                SignInCookieJar(manager: jar.manager, cookies: Array(cookies[..<index])).remove()
                throw WebAuthError(
                    .providerUnavailable, "WebKit did not take the sign-in cookie \(cookie.name) for \(cookie.host): \(failure.message)",
                    underlyingError: failure)
            }
        }
        return jar
    }

    /// Deletes the cookies again; WebKit finishes it in the background.
    func remove() {
        for cookie in cookies {
            let soupCookie = Self.soupCookie(cookie)
            webkit_cookie_manager_delete_cookie(manager.pointer, soupCookie, nil, nil, nil)
            soup_cookie_free(soupCookie)
        }
    }

    private func add(_ cookie: SignInCookie) async -> GLibError? {
        let soupCookie = Self.soupCookie(cookie)
        defer { soup_cookie_free(soupCookie) }
        let manager = manager
        return await withCheckedContinuation { (continuation: CheckedContinuation<GLibError?, Never>) in
            webkit_cookie_manager_add_cookie(
                manager.pointer, soupCookie, nil, AsyncReadyCallback.function,
                AsyncReadyCallback.userData { _, result in
                    var error: UnsafeMutablePointer<GError>?
                    webkit_cookie_manager_add_cookie_finish(manager.pointer, result, &error)
                    continuation.resume(returning: error.map { GLibError(consuming: $0) })
                })
        }
    }

    /// A new `SoupCookie` for `cookie` (the caller frees it).
    private static func soupCookie(_ cookie: SignInCookie) -> OpaquePointer {
        // max_age -1: a session cookie.
        let made = soup_cookie_new(cookie.name, cookie.value, cookie.host, "/", -1)!
        soup_cookie_set_http_only(made, 1)
        if cookie.isSecure {
            soup_cookie_set_secure(made, 1)
            soup_cookie_set_same_site_policy(made, SOUP_SAME_SITE_POLICY_NONE)
        }
        return made
    }
}
