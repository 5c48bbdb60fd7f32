#include "webviewhost-bridge.h"

/**
 * WvhPublicClientApplication:
 *
 * Signs people in to an OpenID Connect provider and keeps their tokens, as MSAL's public client
 * application does: the Swift API's `PublicClientApplication`, for C, Python, JavaScript and
 * Vala. Tokens are kept in the Secret Service.
 *
 * The signals report the steps of the calls this application starts, and only those (never
 * another application's, in this process or any other), in order, on the main thread, as the
 * Swift API's per-call `onStep` does. A call that fails before any page showed (another sign-in
 * running, the provider unreachable) emits #WvhPublicClientApplication::did-fail too, with the
 * error its finish function returns.
 */
struct _WvhPublicClientApplication {
  GObject parent_instance;
  char *client_id, *authority, *redirect_uri, *token_cache, *network_proxy;
  gpointer bridge;
};

static void wvh_public_client_application_initable_init (GInitableIface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (WvhPublicClientApplication, wvh_public_client_application, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (G_TYPE_INITABLE, wvh_public_client_application_initable_init))

enum { PROP_0, PROP_CLIENT_ID, PROP_AUTHORITY, PROP_REDIRECT_URI, PROP_TOKEN_CACHE, PROP_NETWORK_PROXY, N_PROPS };
static GParamSpec *properties[N_PROPS];

static guint signals[WVH_BRIDGE_EVENT_COUNT];

static void
wvh_public_client_application_finalize (GObject *object)
{
  WvhPublicClientApplication *self = WVH_PUBLIC_CLIENT_APPLICATION (object);
  if (self->bridge != NULL)
    wvh_bridge_application_free (self->bridge);
  g_free (self->client_id);
  g_free (self->authority);
  g_free (self->redirect_uri);
  g_free (self->token_cache);
  g_free (self->network_proxy);
  G_OBJECT_CLASS (wvh_public_client_application_parent_class)->finalize (object);
}

static void
wvh_public_client_application_get_property (GObject *object, guint id, GValue *value, GParamSpec *pspec)
{
  WvhPublicClientApplication *self = WVH_PUBLIC_CLIENT_APPLICATION (object);
  switch (id) {
  case PROP_CLIENT_ID: g_value_set_string (value, self->client_id); break;
  case PROP_AUTHORITY: g_value_set_string (value, self->authority); break;
  case PROP_REDIRECT_URI: g_value_set_string (value, self->redirect_uri); break;
  case PROP_TOKEN_CACHE: g_value_set_string (value, self->token_cache); break;
  case PROP_NETWORK_PROXY: g_value_set_string (value, self->network_proxy); break;
  default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, id, pspec);
  }
}

static void
wvh_public_client_application_set_property (GObject *object, guint id, const GValue *value, GParamSpec *pspec)
{
  WvhPublicClientApplication *self = WVH_PUBLIC_CLIENT_APPLICATION (object);
  switch (id) {
  case PROP_CLIENT_ID: g_free (self->client_id); self->client_id = g_value_dup_string (value); break;
  case PROP_AUTHORITY: g_free (self->authority); self->authority = g_value_dup_string (value); break;
  case PROP_REDIRECT_URI: g_free (self->redirect_uri); self->redirect_uri = g_value_dup_string (value); break;
  case PROP_TOKEN_CACHE: g_free (self->token_cache); self->token_cache = g_value_dup_string (value); break;
  case PROP_NETWORK_PROXY: g_free (self->network_proxy); self->network_proxy = g_value_dup_string (value); break;
  default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, id, pspec);
  }
}

static gboolean
wvh_public_client_application_initable_init_impl (GInitable *initable, GCancellable *cancellable, GError **error)
{
  WvhPublicClientApplication *self = WVH_PUBLIC_CLIENT_APPLICATION (initable);
  if (self->bridge != NULL)
    return TRUE;
  self->bridge = wvh_bridge_application_new (self->client_id, self->authority, self->redirect_uri, self->token_cache,
                                             self->network_proxy, error);
  return self->bridge != NULL;
}

static void
wvh_public_client_application_initable_init (GInitableIface *iface)
{
  iface->init = wvh_public_client_application_initable_init_impl;
}

static void
wvh_public_client_application_class_init (WvhPublicClientApplicationClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  object_class->finalize = wvh_public_client_application_finalize;
  object_class->get_property = wvh_public_client_application_get_property;
  object_class->set_property = wvh_public_client_application_set_property;
  GParamFlags flags = G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS;
  /**
   * WvhPublicClientApplication:client-id:
   *
   * The app's client ID at the identity provider.
   */
  properties[PROP_CLIENT_ID] = g_param_spec_string ("client-id", NULL, NULL, NULL, flags);
  /**
   * WvhPublicClientApplication:authority:
   *
   * The provider's issuer URL (https, or http on a loopback address).
   */
  properties[PROP_AUTHORITY] = g_param_spec_string ("authority", NULL, NULL, NULL, flags);
  /**
   * WvhPublicClientApplication:redirect-uri:
   *
   * The redirect URI registered for the app (`http://127.0.0.1/callback`: any free port).
   */
  properties[PROP_REDIRECT_URI] = g_param_spec_string ("redirect-uri", NULL, NULL, NULL, flags);
  /**
   * WvhPublicClientApplication:token-cache:
   *
   * Where tokens are kept, as the Swift configuration's `tokenCacheStorage`: %NULL or
   * `secret-service` for the Secret Service (the default), `memory` for this run only, or
   * `file:` and a path for a file of MSAL's format (unencrypted; mode 0600).
   */
  properties[PROP_TOKEN_CACHE] = g_param_spec_string ("token-cache", NULL, NULL, NULL, flags);
  /**
   * WvhPublicClientApplication:network-proxy:
   *
   * The proxy for every request of a sign-in (the library's requests and its window's pages),
   * as the Swift configuration's `networkProxy`: `http://host:port`, `https://`, `socks5://`;
   * %NULL (the default) follows the desktop's proxy settings.
   */
  properties[PROP_NETWORK_PROXY] = g_param_spec_string ("network-proxy", NULL, NULL, NULL, flags);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /**
   * WvhPublicClientApplication::did-start-load:
   * @self: the application
   * @url: the page
   * @webview: (nullable): the view that shows it (the library's or the app's), %NULL in the person's browser
   *
   * A page of a sign-in started loading.
   */
  /**
   * WvhPublicClientApplication::did-finish-load:
   * @self: the application
   * @url: the page
   * @webview: (nullable): the view that shows it, %NULL in the person's browser
   *
   * A page of a sign-in finished loading.
   */
  /**
   * WvhPublicClientApplication::did-fail:
   * @self: the application
   * @error: why (%WVH_ERROR)
   * @webview: (nullable): the view, %NULL when there was none
   *
   * A sign-in failed (cancelling included); the call's finish function returns the same error.
   */
  /**
   * WvhPublicClientApplication::did-complete:
   * @self: the application
   * @url: the callback URL the provider sent the person to
   * @webview: (nullable): the view, %NULL in the person's browser
   *
   * A sign-in reached the redirect URI; the tokens are being fetched.
   */
  /**
   * WvhPublicClientApplication::will-switch-to-broker-app:
   * @self: the application
   * @url: the broker app's URI the sign-in page went to (`msauth://...`), or the authority when
   *   the sign-in is handed to a token broker before any page
   *
   * A token broker (Microsoft's identity broker) is about to take the sign-in over. Where no
   * broker takes a page's `msauth://` URI, the call goes on in the view.
   */
  /**
   * WvhPublicClientApplication::will-switch-to-system-browser:
   * @self: the application
   * @url: the page the embedded view showed when the sign-in moved ("" when none had loaded)
   *
   * The sign-in moves from the embedded view to the person's browser: the person chose
   * "Continue in your browser", or the page needs what the view cannot do (a provider that
   * refuses embedded views, a passkey where no security key is reachable). The browser opens a
   * new authorization request; the call's finish function returns its tokens.
   */
  /**
   * WvhPublicClientApplication::device-code:
   * @self: the application
   * @challenge: the code and where to enter it
   *
   * A sign-in on another device whose display is %WVH_DEVICE_CODE_DISPLAY_APP has its code:
   * show it (the library shows it itself for the other displays). Cancel the call's
   * #GCancellable when the person gives up.
   */
  _wvh_call_signals_install (G_TYPE_FROM_CLASS (klass), TRUE, signals);
}

static void
wvh_public_client_application_init (WvhPublicClientApplication *self)
{
}

void
_wvh_public_client_application_emit (WvhPublicClientApplication *self, WvhBridgeEvent event, const char *url, gpointer webview,
                                     const GError *error, WvhDeviceCodeChallenge *challenge)
{
  g_return_if_fail (WVH_IS_PUBLIC_CLIENT_APPLICATION (self));
  _wvh_call_signals_emit (self, signals, event, url, webview, error, challenge);
}

/**
 * wvh_public_client_application_new:
 * @client_id: the app's client ID at the provider
 * @authority: the provider's issuer URL (https, or http on a loopback address)
 * @redirect_uri: the redirect URI registered for the app
 * @error: a #GError for a configuration the library refuses (%WVH_ERROR_INVALID_PARAMETERS)
 *
 * Makes an application, its token cache in the Secret Service (see
 * #WvhPublicClientApplication:token-cache for another store: g_initable_new() with the
 * properties). Call on the main thread.
 *
 * Returns: (transfer full) (nullable): the application, or %NULL with @error set.
 */
WvhPublicClientApplication *
wvh_public_client_application_new (const char *client_id, const char *authority, const char *redirect_uri, GError **error)
{
  g_return_val_if_fail (client_id != NULL, NULL);
  g_return_val_if_fail (authority != NULL, NULL);
  g_return_val_if_fail (redirect_uri != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);
  return g_initable_new (WVH_TYPE_PUBLIC_CLIENT_APPLICATION, NULL, error, "client-id", client_id, "authority", authority,
                         "redirect-uri", redirect_uri, NULL);
}

static gboolean
ready (WvhPublicClientApplication *self, GTask *task)
{
  if (self->bridge != NULL)
    return TRUE;
  GError *error = NULL;
  if (!g_initable_init (G_INITABLE (self), NULL, &error)) {
    g_task_return_error (task, error);
    g_object_unref (task);
    return FALSE;
  }
  return TRUE;
}

/**
 * wvh_public_client_application_acquire_token_async:
 * @self: a #WvhPublicClientApplication
 * @parameters: (nullable): what to ask for and how to show it; %NULL for the defaults
 * @cancellable: (nullable): cancels the sign-in (its window closes; G_IO_ERROR_CANCELLED)
 * @callback: (scope async): called on the main thread when the sign-in ends
 * @user_data: (closure): for @callback
 *
 * Signs the person in through a web user agent (the library's window, the app's own
 * #WebKitWebView, or the person's browser) and gets verified tokens, which the token cache
 * keeps. Call on the main thread; finish with wvh_public_client_application_acquire_token_finish().
 */
void
wvh_public_client_application_acquire_token_async (WvhPublicClientApplication *self, WvhInteractiveParameters *parameters,
                                                   GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data)
{
  g_return_if_fail (WVH_IS_PUBLIC_CLIENT_APPLICATION (self));
  g_return_if_fail (parameters == NULL || WVH_IS_INTERACTIVE_PARAMETERS (parameters));
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));
  GTask *task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, wvh_public_client_application_acquire_token_async);
  if (!ready (self, task))
    return;
  WvhBridgeInteractive values;
  _wvh_interactive_parameters_fill (parameters, &values);
  wvh_bridge_acquire_token (self->bridge, self, &values, cancellable, _wvh_task_done_object, task);
}

/**
 * wvh_public_client_application_acquire_token_finish:
 * @self: a #WvhPublicClientApplication
 * @result: the #GAsyncResult given to the callback
 * @error: why the sign-in failed (%WVH_ERROR, or G_IO_ERROR_CANCELLED)
 *
 * Returns: (transfer full): the tokens, or %NULL with @error set.
 */
WvhAuthenticationResult *
wvh_public_client_application_acquire_token_finish (WvhPublicClientApplication *self, GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (WVH_IS_PUBLIC_CLIENT_APPLICATION (self), NULL);
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == wvh_public_client_application_acquire_token_async, NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

/**
 * wvh_public_client_application_acquire_token_silent_async:
 * @self: a #WvhPublicClientApplication
 * @account: who signed in earlier (a result's #WvhAuthenticationResult:account)
 * @scopes: (array zero-terminated=1) (nullable): the scopes, as for the interactive call
 * @force_refresh: renew even when the cached access token is still valid
 * @cancellable: (nullable): cancels the call (G_IO_ERROR_CANCELLED)
 * @callback: (scope async): called on the main thread when the call ends
 * @user_data: (closure): for @callback
 *
 * A token for @account without the person: the cached one while it is valid, else a renewed
 * one. Fails with %WVH_ERROR_INTERACTION_REQUIRED when the person must sign in again.
 */
void
wvh_public_client_application_acquire_token_silent_async (WvhPublicClientApplication *self, WvhAccount *account,
                                                          const char *const *scopes, gboolean force_refresh,
                                                          GCancellable *cancellable, GAsyncReadyCallback callback,
                                                          gpointer user_data)
{
  g_return_if_fail (WVH_IS_PUBLIC_CLIENT_APPLICATION (self));
  g_return_if_fail (WVH_IS_ACCOUNT (account));
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));
  GTask *task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, wvh_public_client_application_acquire_token_silent_async);
  if (!ready (self, task))
    return;
  wvh_bridge_acquire_token_silent (self->bridge, wvh_account_get_identifier (account), scopes, force_refresh, cancellable,
                                   _wvh_task_done_object, task);
}

/**
 * wvh_public_client_application_acquire_token_silent_finish:
 * @self: a #WvhPublicClientApplication
 * @result: the #GAsyncResult given to the callback
 * @error: why the call failed
 *
 * Returns: (transfer full): the tokens, or %NULL with @error set.
 */
WvhAuthenticationResult *
wvh_public_client_application_acquire_token_silent_finish (WvhPublicClientApplication *self, GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (WVH_IS_PUBLIC_CLIENT_APPLICATION (self), NULL);
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == wvh_public_client_application_acquire_token_silent_async, NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

/**
 * wvh_public_client_application_acquire_token_with_device_code_async:
 * @self: a #WvhPublicClientApplication
 * @scopes: (array zero-terminated=1) (nullable): the scopes, as for the interactive call
 * @display: where the person sees the code
 * @parent: (nullable): the app window the library's code window belongs to
 * @cancellable: (nullable): cancels the sign-in (G_IO_ERROR_CANCELLED)
 * @callback: (scope async): called on the main thread when the sign-in ends
 * @user_data: (closure): for @callback
 *
 * Signs the person in on another device (OAuth's device authorization grant, RFC 8628): the
 * provider gives a code, @display shows it (or #WvhPublicClientApplication::device-code hands it
 * to the app), the person enters
 * it on their phone or computer, and the call ends with the tokens. Fails with
 * %WVH_ERROR_DEVICE_CODE_EXPIRED, %WVH_ERROR_DEVICE_CODE_DENIED or %WVH_ERROR_DEVICE_CODE_BLOCKED.
 */
void
wvh_public_client_application_acquire_token_with_device_code_async (WvhPublicClientApplication *self, const char *const *scopes,
                                                                    WvhDeviceCodeDisplay display, GtkWindow *parent,
                                                                    GCancellable *cancellable, GAsyncReadyCallback callback,
                                                                    gpointer user_data)
{
  g_return_if_fail (WVH_IS_PUBLIC_CLIENT_APPLICATION (self));
  g_return_if_fail (display <= WVH_DEVICE_CODE_DISPLAY_APP);
  g_return_if_fail (parent == NULL || GTK_IS_WINDOW (parent));
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));
  GTask *task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, wvh_public_client_application_acquire_token_with_device_code_async);
  if (!ready (self, task))
    return;
  wvh_bridge_acquire_token_with_device_code (self->bridge, self, scopes, display, parent, cancellable, _wvh_task_done_object, task);
}

/**
 * wvh_public_client_application_acquire_token_with_device_code_finish:
 * @self: a #WvhPublicClientApplication
 * @result: the #GAsyncResult given to the callback
 * @error: why the sign-in failed
 *
 * Returns: (transfer full): the tokens, or %NULL with @error set.
 */
WvhAuthenticationResult *
wvh_public_client_application_acquire_token_with_device_code_finish (WvhPublicClientApplication *self, GAsyncResult *result,
                                                                     GError **error)
{
  g_return_val_if_fail (WVH_IS_PUBLIC_CLIENT_APPLICATION (self), NULL);
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == wvh_public_client_application_acquire_token_with_device_code_async,
                        NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

/**
 * wvh_public_client_application_prewarm:
 * @self: a #WvhPublicClientApplication
 * @parameters: (nullable): the parameters the next wvh_public_client_application_acquire_token_async()
 *   will be given (which web user agent, the app's own view); %NULL for the defaults
 *
 * Warm start for the next interactive sign-in: the web user agent that the call with @parameters
 * would use prepares ahead of time for this application's authority (the embedded view makes its
 * window with its web process running and the authority's host resolved, so the sign-in window
 * shows its page sooner; the person's browser has nothing to prepare). Call it when the app shows
 * its sign-in button. Nothing is shown and nothing is asked. Main thread.
 *
 * Returns: (transfer full) (nullable): the id of the provider that would be chosen (and
 *   prepared), or %NULL when none would be, or when the application could not be made (see
 *   g_initable_init()).
 */
char *
wvh_public_client_application_prewarm (WvhPublicClientApplication *self, WvhInteractiveParameters *parameters)
{
  g_return_val_if_fail (WVH_IS_PUBLIC_CLIENT_APPLICATION (self), NULL);
  g_return_val_if_fail (parameters == NULL || WVH_IS_INTERACTIVE_PARAMETERS (parameters), NULL);
  if (self->bridge == NULL && !g_initable_init (G_INITABLE (self), NULL, NULL))
    return NULL;
  WvhBridgeInteractive values;
  _wvh_interactive_parameters_fill (parameters, &values);
  return wvh_bridge_application_prewarm (self->bridge, &values);
}

/**
 * wvh_public_client_application_get_accounts_async:
 * @self: a #WvhPublicClientApplication
 * @cancellable: (nullable): cancels the call
 * @callback: (scope async): called on the main thread with the accounts
 * @user_data: (closure): for @callback
 *
 * The accounts signed in to this app, read from the token cache's store (or the token broker's).
 */
void
wvh_public_client_application_get_accounts_async (WvhPublicClientApplication *self, GCancellable *cancellable,
                                                  GAsyncReadyCallback callback, gpointer user_data)
{
  g_return_if_fail (WVH_IS_PUBLIC_CLIENT_APPLICATION (self));
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));
  GTask *task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, wvh_public_client_application_get_accounts_async);
  if (!ready (self, task))
    return;
  wvh_bridge_get_accounts (self->bridge, cancellable, _wvh_task_done_array, task);
}

/**
 * wvh_public_client_application_get_accounts_finish:
 * @self: a #WvhPublicClientApplication
 * @result: the #GAsyncResult given to the callback
 * @error: why the store could not be read
 *
 * Returns: (transfer container) (element-type WvhAccount): the accounts, or %NULL with @error set. The
 *   array holds a reference to each account: free it with g_ptr_array_unref() and keep (ref) an
 *   account that must outlive it.
 */
GPtrArray *
wvh_public_client_application_get_accounts_finish (WvhPublicClientApplication *self, GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (WVH_IS_PUBLIC_CLIENT_APPLICATION (self), NULL);
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == wvh_public_client_application_get_accounts_async, NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

/**
 * wvh_public_client_application_sign_out_async:
 * @self: a #WvhPublicClientApplication
 * @account: who signs out
 * @at_identity_provider: also end the person's session at the provider (OpenID Connect
 *   RP-Initiated Logout, shown as @parameters say), not only this app's tokens
 * @parameters: (nullable): how the provider's sign-out page is shown; %NULL for the defaults
 * @cancellable: (nullable): cancels the provider's part (the tokens are gone already)
 * @callback: (scope async): called on the main thread when the sign-out ends
 * @user_data: (closure): for @callback
 *
 * Signs @account out of this app: its tokens leave the token cache; with
 * @at_identity_provider, the provider ends its session too.
 */
void
wvh_public_client_application_sign_out_async (WvhPublicClientApplication *self, WvhAccount *account, gboolean at_identity_provider,
                                              WvhInteractiveParameters *parameters, GCancellable *cancellable,
                                              GAsyncReadyCallback callback, gpointer user_data)
{
  g_return_if_fail (WVH_IS_PUBLIC_CLIENT_APPLICATION (self));
  g_return_if_fail (WVH_IS_ACCOUNT (account));
  g_return_if_fail (parameters == NULL || WVH_IS_INTERACTIVE_PARAMETERS (parameters));
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));
  GTask *task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, wvh_public_client_application_sign_out_async);
  if (!ready (self, task))
    return;
  WvhBridgeInteractive values;
  _wvh_interactive_parameters_fill (parameters, &values);
  wvh_bridge_sign_out (self->bridge, self, wvh_account_get_identifier (account), at_identity_provider, &values, cancellable,
                       _wvh_task_done_boolean, task);
}

/**
 * wvh_public_client_application_sign_out_finish:
 * @self: a #WvhPublicClientApplication
 * @result: the #GAsyncResult given to the callback
 * @error: why the provider's part failed (%WVH_ERROR)
 *
 * Returns: %TRUE when the account's tokens were in the cache and are gone; %FALSE with @error set
 *   when the sign-out at the provider failed (the tokens are gone all the same).
 */
gboolean
wvh_public_client_application_sign_out_finish (WvhPublicClientApplication *self, GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (WVH_IS_PUBLIC_CLIENT_APPLICATION (self), FALSE);
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == wvh_public_client_application_sign_out_async, FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}
