#if WEBKITGTK_6
import CWebKitGTK4
#else
import CWebKitGTK3
#endif
import CGLib
public import WebviewHost

extension EmbeddedWebviewProvider {
    /// Gives the network session of your own view (GTK 3: its web context) the desktop's proxy
    /// the way the library's window gets it, for a view you pass as ``WebviewParameters/customWebview``.
    ///
    /// When the desktop's proxy URI carries a user name and password (`http_proxy=http://user:password@proxy:3128`,
    /// or GNOME's proxy settings with authentication on, which the ProxyResolver portal passes on
    /// to a Flatpak app), WebKit's default (the desktop's proxy as
    /// it is) cannot load any page: libsoup cannot use such a URI, and a sign-in in the view ends
    /// at once with `network`. This call sets the desktop's proxies without them, with the
    /// desktop's ignored hosts (`WEBKIT_NETWORK_PROXY_MODE_CUSTOM`), and holds the user name and
    /// password for the proxy's first 407, which a sign-in in the view answers with them; WebKit
    /// keeps that answer for the rest of the app's run, so your own pages in that network session
    /// go through the proxy too. A proxy that refuses them is asked about as in the library's
    /// window (``ProxyAuthentication``). Without a user name and password in the desktop's proxy,
    /// it sets WebKit's default mode (the desktop's proxy, as WebKit follows it).
    ///
    /// The settings stay on the network session, for every view in it, until you set others: call
    /// it once, after making the view and before its first page, and again if the desktop's proxy
    /// changes. Main thread. In a Flatpak it asks the ProxyResolver portal (a D-Bus call each for
    /// `http`, `https` and the loopback names) unless a sign-in of this run asked it already.
    ///
    /// - Returns: `true` when the desktop's proxy carried a user name and password (and the view's
    ///   network session now has the proxies without them), `false` when it has WebKit's default.
    @MainActor
    @discardableResult
    public static func useDesktopProxy(in view: WebviewHandle) -> Bool {
        SignInProxy.applyDesktop(toViewOf: wvh_web_view(view.address))
    }
}
