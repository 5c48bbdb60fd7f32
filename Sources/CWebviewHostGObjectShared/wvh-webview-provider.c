#include "webviewhost-bridge.h"

G_DEFINE_INTERFACE (WvhWebviewProvider, wvh_webview_provider, G_TYPE_OBJECT)

static void
wvh_webview_provider_default_init (WvhWebviewProviderInterface *iface)
{
}

/**
 * wvh_webview_provider_register:
 * @self: the provider
 * @id: its identifier, unique among registered providers (`kiosk`); a registered id is replaced
 * @display_name: its name for people (logs, `WEBVIEW_HOST_PROVIDER=help`)
 * @kind: what kind of user agent it is
 * @priority: higher is chosen first among providers of its kind
 * @requires_display: whether it needs a graphical session
 * @error: %WVH_ERROR_INVALID_PARAMETERS for an empty id
 *
 * Registers @self for every sign-in of the process: the selection policy chooses it like a
 * built-in provider (%WVH_WEBVIEW_TYPE_DEFAULT by @kind and @priority, or by its id through
 * #WvhInteractiveParameters:provider-id). The registry keeps a reference. Call on the main thread.
 *
 * Returns: %TRUE when it was registered.
 */
gboolean
wvh_webview_provider_register (WvhWebviewProvider *self, const char *id, const char *display_name, WvhProviderKind kind,
                               int priority, gboolean requires_display, GError **error)
{
  g_return_val_if_fail (WVH_IS_WEBVIEW_PROVIDER (self), FALSE);
  g_return_val_if_fail (id != NULL, FALSE);
  g_return_val_if_fail (kind <= WVH_PROVIDER_KIND_OTHER, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);
  WvhWebviewProviderInterface *iface = WVH_WEBVIEW_PROVIDER_GET_IFACE (self);
  if (iface->start == NULL) {
    g_set_error (error, WVH_ERROR, WVH_ERROR_INVALID_PARAMETERS, "The provider %s does not implement start.", id);
    return FALSE;
  }
  return wvh_bridge_register_provider (self, id, display_name != NULL ? display_name : id, kind, priority, requires_display, error);
}

/**
 * wvh_webview_provider_unregister:
 * @id: a registered provider's id
 *
 * Takes a provider out of the registry (sessions it runs go on).
 *
 * Returns: %TRUE when one was registered under @id.
 */
gboolean
wvh_webview_provider_unregister (const char *id)
{
  g_return_val_if_fail (id != NULL, FALSE);
  return wvh_bridge_unregister_provider (id);
}

/**
 * wvh_use_desktop_proxy:
 * @web_view: a view of the app's own, which it passes as #WvhInteractiveParameters:custom-webview
 *
 * Gives @web_view's network session (GTK 3: its web context) the desktop's proxy the way the
 * library's window gets it. When the desktop's proxy URI carries a user name and password
 * (`http_proxy=http://user:password@proxy:3128`, or GNOME's proxy settings with authentication
 * on), WebKit cannot use it as it is and a sign-in in the view ends at once with
 * %WVH_ERROR_NETWORK: this sets the desktop's proxies without them, with the desktop's ignored
 * hosts, and they answer the proxy's first 407 (WebKit keeps that answer for the app's run, so
 * the app's own pages in that network session go through too). Without a user name and password
 * in the desktop's proxy, it sets WebKit's default mode.
 *
 * The settings stay on the network session, for every view in it, until the app sets others:
 * call it once, after making the view and before its first page. Main thread.
 *
 * Returns: %TRUE when the desktop's proxy carried a user name and password (the network session
 *   now has the proxies without them), %FALSE when it has WebKit's default mode.
 */
gboolean
wvh_use_desktop_proxy (WebKitWebView *web_view)
{
  g_return_val_if_fail (WEBKIT_IS_WEB_VIEW (web_view), FALSE);
  return wvh_bridge_use_desktop_proxy (web_view);
}

/**
 * wvh_allow_negotiate:
 * @origins: (array zero-terminated=1): the http or https origins that may get the person's Kerberos
 *   ticket, such as `http://intranet.example.com:8080` or `https://adfs.example.com` (no port: any port)
 * @error: %WVH_ERROR_INVALID_PARAMETERS for an origin that is not http or https with a host, or
 *   when the library has already made a sign-in window (or prewarmed one)
 *
 * Lets the embedded view answer `WWW-Authenticate: Negotiate` (Windows Integrated Authentication:
 * Kerberos with the person's ticket, as AD FS and intranet sign-in pages ask) at these origins,
 * plain http included. Without this call WebKit answers Negotiate at every https host and at no
 * http one; once origins are named, only they are answered: name the https ones that ask too.
 *
 * Process-wide, and only before the app's first web view: WebKit's network process reads the
 * list once, from the environment it inherits when it starts (libsoup's
 * `SOUP_GSSAPI_TRUSTED_URIS`, which this call extends). Call it at the start of the app, before
 * it makes a #WebKitWebView of its own (for #WvhInteractiveParameters:custom-webview) or starts a
 * sign-in. Main thread.
 *
 * Returns: %TRUE when the origins were added, %FALSE with @error set (nothing added).
 */
gboolean
wvh_allow_negotiate (const char *const *origins, GError **error)
{
  g_return_val_if_fail (origins != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);
  return wvh_bridge_allow_negotiate (origins, error);
}

gboolean
_wvh_webview_provider_is_available (WvhWebviewProvider *self, char **reason)
{
  WvhWebviewProviderInterface *iface = WVH_WEBVIEW_PROVIDER_GET_IFACE (self);
  if (iface->is_available == NULL)
    return TRUE;
  return iface->is_available (self, reason);
}

void
_wvh_webview_provider_start (WvhWebviewProvider *self, WvhProviderSession *session)
{
  WVH_WEBVIEW_PROVIDER_GET_IFACE (self)->start (self, session);
}

void
_wvh_webview_provider_dismiss (WvhWebviewProvider *self, WvhProviderSession *session)
{
  WvhWebviewProviderInterface *iface = WVH_WEBVIEW_PROVIDER_GET_IFACE (self);
  if (iface->dismiss != NULL)
    iface->dismiss (self, session);
}
