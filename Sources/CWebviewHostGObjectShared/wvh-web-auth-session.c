#include "webviewhost-bridge.h"

/**
 * WvhWebAuthSession:
 *
 * The lower level: one sign-in through a web user agent for any authorization URL, without
 * OAuth (the app builds the URL and reads what comes back), as the Swift API's `WebAuthSession`.
 * The session shows #WvhWebAuthSession:authorization-url and ends when the page reaches
 * #WvhWebAuthSession:redirect-uri: wvh_web_auth_session_start_finish() returns that URL, with
 * its query (`?code=...&state=...`), which the app checks itself. A provider's OAuth error
 * (`?error=access_denied&state=...`) is such a URL too: returned, with
 * #WvhWebAuthSession::did-complete, as ASWebAuthenticationSession does, never a %WVH_ERROR_SERVER.
 *
 * A session runs once. One interactive session runs in a process at a time (a second fails with
 * %WVH_ERROR_SESSION_ALREADY_IN_PROGRESS), whether a #WvhWebAuthSession or a
 * #WvhPublicClientApplication started it.
 *
 * The signals report the steps of this session only, in order, on the main thread, as the
 * Swift session's `observe` does: #WvhWebAuthSession::did-start-load and
 * #WvhWebAuthSession::did-finish-load for each page, then one of
 * #WvhWebAuthSession::did-complete and #WvhWebAuthSession::did-fail, and nothing after it.
 */
struct _WvhWebAuthSession {
  GObject parent_instance;
  char *authorization_url, *redirect_uri;
  WvhInteractiveParameters *parameters;
  gpointer bridge;
  GError *error;
};

G_DEFINE_FINAL_TYPE (WvhWebAuthSession, wvh_web_auth_session, G_TYPE_OBJECT)

enum { PROP_0, PROP_AUTHORIZATION_URL, PROP_REDIRECT_URI, PROP_PARAMETERS, N_PROPS };
static GParamSpec *properties[N_PROPS];

static guint signals[WVH_BRIDGE_EVENT_COUNT];

static void
wvh_web_auth_session_finalize (GObject *object)
{
  WvhWebAuthSession *self = WVH_WEB_AUTH_SESSION (object);
  if (self->bridge != NULL)
    wvh_bridge_web_auth_session_free (self->bridge);
  g_clear_error (&self->error);
  g_free (self->authorization_url);
  g_free (self->redirect_uri);
  g_clear_object (&self->parameters);
  G_OBJECT_CLASS (wvh_web_auth_session_parent_class)->finalize (object);
}

static void
wvh_web_auth_session_get_property (GObject *object, guint id, GValue *value, GParamSpec *pspec)
{
  WvhWebAuthSession *self = WVH_WEB_AUTH_SESSION (object);
  switch (id) {
  case PROP_AUTHORIZATION_URL: g_value_set_string (value, self->authorization_url); break;
  case PROP_REDIRECT_URI: g_value_set_string (value, self->redirect_uri); break;
  case PROP_PARAMETERS: g_value_set_object (value, self->parameters); break;
  default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, id, pspec);
  }
}

static void
wvh_web_auth_session_set_property (GObject *object, guint id, const GValue *value, GParamSpec *pspec)
{
  WvhWebAuthSession *self = WVH_WEB_AUTH_SESSION (object);
  switch (id) {
  case PROP_AUTHORIZATION_URL: g_free (self->authorization_url); self->authorization_url = g_value_dup_string (value); break;
  case PROP_REDIRECT_URI: g_free (self->redirect_uri); self->redirect_uri = g_value_dup_string (value); break;
  case PROP_PARAMETERS: g_clear_object (&self->parameters); self->parameters = g_value_dup_object (value); break;
  default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, id, pspec);
  }
}

static void
wvh_web_auth_session_constructed (GObject *object)
{
  WvhWebAuthSession *self = WVH_WEB_AUTH_SESSION (object);
  G_OBJECT_CLASS (wvh_web_auth_session_parent_class)->constructed (object);
  /* The Swift session, made now so that wvh_web_auth_session_cancel() works before the start too;
   * a URL the API refuses is the start's error. */
  WvhBridgeInteractive values;
  _wvh_interactive_parameters_fill (self->parameters, &values);
  self->bridge = wvh_bridge_web_auth_session_new (self->authorization_url, self->redirect_uri, &values, &self->error);
}

static void
wvh_web_auth_session_class_init (WvhWebAuthSessionClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  object_class->finalize = wvh_web_auth_session_finalize;
  object_class->get_property = wvh_web_auth_session_get_property;
  object_class->set_property = wvh_web_auth_session_set_property;
  object_class->constructed = wvh_web_auth_session_constructed;
  GParamFlags flags = G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS;
  /**
   * WvhWebAuthSession:authorization-url:
   *
   * The page the session opens, built by the app (with its `state`, a PKCE challenge, the
   * redirect URI...). With the person's browser and a loopback redirect URI, give the URI its
   * port: the URL is not rewritten.
   */
  properties[PROP_AUTHORIZATION_URL] = g_param_spec_string ("authorization-url", NULL, NULL, NULL, flags);
  /**
   * WvhWebAuthSession:redirect-uri:
   *
   * Where the session ends (`http://127.0.0.1:8400/callback`, `com.example.app:/oauth2redirect`):
   * the first page at this URI, with its query, is the session's result; the view never loads it.
   */
  properties[PROP_REDIRECT_URI] = g_param_spec_string ("redirect-uri", NULL, NULL, NULL, flags);
  /**
   * WvhWebAuthSession:parameters:
   *
   * How the session is shown, or %NULL for the defaults: the webview properties of a
   * #WvhInteractiveParameters (#WvhInteractiveParameters:webview-type, :parent-window,
   * :custom-webview, :window-title, :window-width, :window-height, :timeout, :ephemeral,
   * :provider-id, :security-keys, :security-keys-in-custom-webview). Its #WvhInteractiveParameters:scopes, :login-hint and :prompt are OAuth's
   * and this session ignores them: put what the provider needs in the authorization URL.
   */
  properties[PROP_PARAMETERS] = g_param_spec_object ("parameters", NULL, NULL, WVH_TYPE_INTERACTIVE_PARAMETERS, flags);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /**
   * WvhWebAuthSession::did-start-load:
   * @self: the session
   * @url: the page
   * @webview: (nullable): the view that shows it (the library's or the app's), %NULL in the person's browser
   *
   * A page of this session started loading.
   */
  /**
   * WvhWebAuthSession::did-finish-load:
   * @self: the session
   * @url: the page
   * @webview: (nullable): the view that shows it, %NULL in the person's browser
   *
   * A page of this session finished loading.
   */
  /**
   * WvhWebAuthSession::did-fail:
   * @self: the session
   * @error: why (%WVH_ERROR)
   * @webview: (nullable): the view, %NULL when there was none
   *
   * The session failed (cancelling included); its last signal. wvh_web_auth_session_start_finish()
   * returns the same error, or G_IO_ERROR_CANCELLED when the start's #GCancellable ended it.
   */
  /**
   * WvhWebAuthSession::did-complete:
   * @self: the session
   * @url: the URL at the redirect URI the provider sent the person to
   * @webview: (nullable): the view, %NULL in the person's browser
   *
   * The session reached the redirect URI; its last signal. wvh_web_auth_session_start_finish()
   * returns @url.
   */
  _wvh_call_signals_install (G_TYPE_FROM_CLASS (klass), FALSE, signals);
}

static void
wvh_web_auth_session_init (WvhWebAuthSession *self)
{
}

void
_wvh_web_auth_session_emit (WvhWebAuthSession *self, WvhBridgeEvent event, const char *url, gpointer webview, const GError *error)
{
  g_return_if_fail (WVH_IS_WEB_AUTH_SESSION (self));
  _wvh_call_signals_emit (self, signals, event, url, webview, error, NULL);
}

/**
 * wvh_web_auth_session_new:
 * @authorization_url: the page to open
 * @redirect_uri: where the session ends
 * @parameters: (nullable): how it is shown (its webview properties); %NULL for the defaults
 *
 * Makes a session; wvh_web_auth_session_start_async() runs it. Call on the main thread.
 *
 * Returns: (transfer full): the session.
 */
WvhWebAuthSession *
wvh_web_auth_session_new (const char *authorization_url, const char *redirect_uri, WvhInteractiveParameters *parameters)
{
  g_return_val_if_fail (authorization_url != NULL, NULL);
  g_return_val_if_fail (redirect_uri != NULL, NULL);
  g_return_val_if_fail (parameters == NULL || WVH_IS_INTERACTIVE_PARAMETERS (parameters), NULL);
  return g_object_new (WVH_TYPE_WEB_AUTH_SESSION, "authorization-url", authorization_url, "redirect-uri", redirect_uri,
                       "parameters", parameters, NULL);
}

/**
 * wvh_web_auth_session_start_async:
 * @self: a #WvhWebAuthSession
 * @cancellable: (nullable): cancels the session (its window closes; G_IO_ERROR_CANCELLED)
 * @callback: (scope async): called on the main thread when the session ends
 * @user_data: (closure): for @callback
 *
 * Shows #WvhWebAuthSession:authorization-url in a web user agent (the library's window, the
 * app's own #WebKitWebView, or the person's browser) and waits until a page reaches
 * #WvhWebAuthSession:redirect-uri. Once per session. Fails with %WVH_ERROR_INVALID_PARAMETERS
 * when either URL is missing or not a URL, and with %WVH_ERROR_SESSION_ALREADY_IN_PROGRESS while
 * another sign-in of the process runs. Call on the main thread; finish with
 * wvh_web_auth_session_start_finish().
 */
void
wvh_web_auth_session_start_async (WvhWebAuthSession *self, GCancellable *cancellable, GAsyncReadyCallback callback,
                                  gpointer user_data)
{
  g_return_if_fail (WVH_IS_WEB_AUTH_SESSION (self));
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));
  GTask *task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, wvh_web_auth_session_start_async);
  if (self->bridge == NULL) {
    g_task_return_error (task, self->error != NULL ? g_error_copy (self->error)
                                                   : g_error_new_literal (WVH_ERROR, WVH_ERROR_INVALID_PARAMETERS, "No session."));
    g_object_unref (task);
    return;
  }
  wvh_bridge_web_auth_session_start (self->bridge, self, cancellable, _wvh_task_done_string, task);
}

/**
 * wvh_web_auth_session_start_finish:
 * @self: a #WvhWebAuthSession
 * @result: the #GAsyncResult given to the callback
 * @error: why the session failed (%WVH_ERROR, or G_IO_ERROR_CANCELLED)
 *
 * Returns: (transfer full): the URL the provider sent the person to at the redirect URI, with
 *   its query, or %NULL with @error set.
 */
char *
wvh_web_auth_session_start_finish (WvhWebAuthSession *self, GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (WVH_IS_WEB_AUTH_SESSION (self), NULL);
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == wvh_web_auth_session_start_async, NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

/**
 * wvh_web_auth_session_cancel:
 * @self: a #WvhWebAuthSession
 *
 * Ends the session with %WVH_ERROR_CANCELED (its window closes), before or after its start. Has
 * no effect once it ended. Call on the main thread.
 */
void
wvh_web_auth_session_cancel (WvhWebAuthSession *self)
{
  g_return_if_fail (WVH_IS_WEB_AUTH_SESSION (self));
  if (self->bridge != NULL)
    wvh_bridge_web_auth_session_cancel (self->bridge);
}
