#include "webviewhost-bridge.h"

/**
 * WvhProviderSession:
 *
 * One sign-in a #WvhWebviewProvider shows: the authorization URL to open, the redirect URI the
 * provider watches for, and the calls that report back to the library. It ends exactly once:
 * the first wvh_provider_session_complete() or wvh_provider_session_fail() (or the person, the
 * app or the timeout) ends it, and later reports do nothing.
 */
struct _WvhProviderSession {
  GObject parent_instance;
  char *authorization_url, *redirect_uri;
  gpointer bridge;
};

G_DEFINE_FINAL_TYPE (WvhProviderSession, wvh_provider_session, G_TYPE_OBJECT)

enum { PROP_0, PROP_AUTHORIZATION_URL, PROP_REDIRECT_URI, N_PROPS };
static GParamSpec *properties[N_PROPS];

static void
wvh_provider_session_finalize (GObject *object)
{
  WvhProviderSession *self = WVH_PROVIDER_SESSION (object);
  if (self->bridge != NULL)
    wvh_bridge_session_free (self->bridge);
  g_free (self->authorization_url);
  g_free (self->redirect_uri);
  G_OBJECT_CLASS (wvh_provider_session_parent_class)->finalize (object);
}

static void
wvh_provider_session_get_property (GObject *object, guint id, GValue *value, GParamSpec *pspec)
{
  WvhProviderSession *self = WVH_PROVIDER_SESSION (object);
  switch (id) {
  case PROP_AUTHORIZATION_URL: g_value_set_string (value, self->authorization_url); break;
  case PROP_REDIRECT_URI: g_value_set_string (value, self->redirect_uri); break;
  default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, id, pspec);
  }
}

static void
wvh_provider_session_class_init (WvhProviderSessionClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  object_class->finalize = wvh_provider_session_finalize;
  object_class->get_property = wvh_provider_session_get_property;
  GParamFlags flags = G_PARAM_READABLE | G_PARAM_STATIC_STRINGS;
  /**
   * WvhProviderSession:authorization-url:
   *
   * The page to open.
   */
  properties[PROP_AUTHORIZATION_URL] = g_param_spec_string ("authorization-url", NULL, NULL, NULL, flags);
  /**
   * WvhProviderSession:redirect-uri:
   *
   * Where the provider's page sends the user agent at the end: the callback to report with
   * wvh_provider_session_complete().
   */
  properties[PROP_REDIRECT_URI] = g_param_spec_string ("redirect-uri", NULL, NULL, NULL, flags);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
wvh_provider_session_init (WvhProviderSession *self)
{
}

WvhProviderSession *
_wvh_provider_session_new (const char *authorization_url, const char *redirect_uri, gpointer bridge)
{
  WvhProviderSession *self = g_object_new (WVH_TYPE_PROVIDER_SESSION, NULL);
  self->authorization_url = g_strdup (authorization_url);
  self->redirect_uri = g_strdup (redirect_uri);
  self->bridge = bridge;
  return self;
}

/**
 * wvh_provider_session_get_authorization_url:
 * @self: a #WvhProviderSession
 *
 * Returns: (transfer none): the page to open.
 */
const char *
wvh_provider_session_get_authorization_url (WvhProviderSession *self)
{
  g_return_val_if_fail (WVH_IS_PROVIDER_SESSION (self), NULL);
  return self->authorization_url;
}

/**
 * wvh_provider_session_get_redirect_uri:
 * @self: a #WvhProviderSession
 *
 * Returns: (transfer none): the redirect URI the sign-in ends at.
 */
const char *
wvh_provider_session_get_redirect_uri (WvhProviderSession *self)
{
  g_return_val_if_fail (WVH_IS_PROVIDER_SESSION (self), NULL);
  return self->redirect_uri;
}

/**
 * wvh_provider_session_is_finished:
 * @self: a #WvhProviderSession
 *
 * Returns: whether the session has its outcome (a provider stops its work).
 */
gboolean
wvh_provider_session_is_finished (WvhProviderSession *self)
{
  g_return_val_if_fail (WVH_IS_PROVIDER_SESSION (self), TRUE);
  return wvh_bridge_session_report (self->bridge, WVH_BRIDGE_REPORT_IS_FINISHED, NULL, 0, NULL);
}

/**
 * wvh_provider_session_did_start_load:
 * @self: a #WvhProviderSession
 * @url: the page
 *
 * A page of the sign-in started loading (the app's did-start-load).
 */
void
wvh_provider_session_did_start_load (WvhProviderSession *self, const char *url)
{
  g_return_if_fail (WVH_IS_PROVIDER_SESSION (self));
  g_return_if_fail (url != NULL);
  wvh_bridge_session_report (self->bridge, WVH_BRIDGE_REPORT_DID_START_LOAD, url, 0, NULL);
}

/**
 * wvh_provider_session_did_finish_load:
 * @self: a #WvhProviderSession
 * @url: the page
 *
 * A page of the sign-in finished loading.
 */
void
wvh_provider_session_did_finish_load (WvhProviderSession *self, const char *url)
{
  g_return_if_fail (WVH_IS_PROVIDER_SESSION (self));
  g_return_if_fail (url != NULL);
  wvh_bridge_session_report (self->bridge, WVH_BRIDGE_REPORT_DID_FINISH_LOAD, url, 0, NULL);
}

/**
 * wvh_provider_session_complete:
 * @self: a #WvhProviderSession
 * @callback_url: the URL the provider's page sent the user agent to
 *
 * Ends the session with the callback, when it is one of the session's redirect URI (the
 * library checks it and its state).
 *
 * Returns: %TRUE when @callback_url is the session's redirect and ended it.
 */
gboolean
wvh_provider_session_complete (WvhProviderSession *self, const char *callback_url)
{
  g_return_val_if_fail (WVH_IS_PROVIDER_SESSION (self), FALSE);
  g_return_val_if_fail (callback_url != NULL, FALSE);
  return wvh_bridge_session_report (self->bridge, WVH_BRIDGE_REPORT_COMPLETE, callback_url, 0, NULL);
}

/**
 * wvh_provider_session_fail:
 * @self: a #WvhProviderSession
 * @code: why, as a #WvhError
 * @message: what happened, for the app's developer
 *
 * Ends the session with an error.
 */
void
wvh_provider_session_fail (WvhProviderSession *self, WvhError code, const char *message)
{
  g_return_if_fail (WVH_IS_PROVIDER_SESSION (self));
  wvh_bridge_session_report (self->bridge, WVH_BRIDGE_REPORT_FAIL, NULL, code, message != NULL ? message : "");
}
