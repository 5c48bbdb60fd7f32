#include "webviewhost-bridge.h"

/**
 * WvhAuthenticationResult:
 *
 * The tokens of a sign-in or a renewal (`AuthenticationResult` in the Swift API), already
 * verified and kept in the token cache.
 */
struct _WvhAuthenticationResult {
  GObject parent_instance;
  char *access_token, *id_token;
  gint64 expires_on;
  char **scopes;
  WvhAccount *account;
  gboolean has_refresh_token;
};

G_DEFINE_FINAL_TYPE (WvhAuthenticationResult, wvh_authentication_result, G_TYPE_OBJECT)

enum { RESULT_PROP_0, RESULT_PROP_ACCESS_TOKEN, RESULT_PROP_ID_TOKEN, RESULT_PROP_EXPIRES_ON, RESULT_PROP_SCOPES,
       RESULT_PROP_ACCOUNT, RESULT_PROP_HAS_REFRESH_TOKEN, RESULT_N_PROPS };
static GParamSpec *result_properties[RESULT_N_PROPS];

static void
wvh_authentication_result_finalize (GObject *object)
{
  WvhAuthenticationResult *self = WVH_AUTHENTICATION_RESULT (object);
  g_free (self->access_token);
  g_free (self->id_token);
  g_strfreev (self->scopes);
  g_clear_object (&self->account);
  G_OBJECT_CLASS (wvh_authentication_result_parent_class)->finalize (object);
}

static void
wvh_authentication_result_get_property (GObject *object, guint id, GValue *value, GParamSpec *pspec)
{
  WvhAuthenticationResult *self = WVH_AUTHENTICATION_RESULT (object);
  switch (id) {
  case RESULT_PROP_ACCESS_TOKEN: g_value_set_string (value, self->access_token); break;
  case RESULT_PROP_ID_TOKEN: g_value_set_string (value, self->id_token); break;
  case RESULT_PROP_EXPIRES_ON: g_value_set_int64 (value, self->expires_on); break;
  case RESULT_PROP_SCOPES: g_value_set_boxed (value, self->scopes); break;
  case RESULT_PROP_ACCOUNT: g_value_set_object (value, self->account); break;
  case RESULT_PROP_HAS_REFRESH_TOKEN: g_value_set_boolean (value, self->has_refresh_token); break;
  default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, id, pspec);
  }
}

static void
wvh_authentication_result_class_init (WvhAuthenticationResultClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  object_class->finalize = wvh_authentication_result_finalize;
  object_class->get_property = wvh_authentication_result_get_property;
  GParamFlags flags = G_PARAM_READABLE | G_PARAM_STATIC_STRINGS;
  /**
   * WvhAuthenticationResult:access-token:
   *
   * The access token, for the API the scopes name.
   */
  result_properties[RESULT_PROP_ACCESS_TOKEN] = g_param_spec_string ("access-token", NULL, NULL, NULL, flags);
  /**
   * WvhAuthenticationResult:id-token:
   *
   * The verified ID token (empty when the provider sent none: see the Swift API's `hasIDToken`).
   */
  result_properties[RESULT_PROP_ID_TOKEN] = g_param_spec_string ("id-token", NULL, NULL, NULL, flags);
  /**
   * WvhAuthenticationResult:expires-on:
   *
   * When the access token expires, in seconds since 1970 (UTC).
   */
  result_properties[RESULT_PROP_EXPIRES_ON] = g_param_spec_int64 ("expires-on", NULL, NULL, 0, G_MAXINT64, 0, flags);
  /**
   * WvhAuthenticationResult:scopes:
   *
   * The scopes the access token was granted for.
   */
  result_properties[RESULT_PROP_SCOPES] = g_param_spec_boxed ("scopes", NULL, NULL, G_TYPE_STRV, flags);
  /**
   * WvhAuthenticationResult:account:
   *
   * Who signed in.
   */
  result_properties[RESULT_PROP_ACCOUNT] = g_param_spec_object ("account", NULL, NULL, WVH_TYPE_ACCOUNT, flags);
  /**
   * WvhAuthenticationResult:has-refresh-token:
   *
   * Whether the provider gave a refresh token (kept in the token cache, never handed out).
   */
  result_properties[RESULT_PROP_HAS_REFRESH_TOKEN] = g_param_spec_boolean ("has-refresh-token", NULL, NULL, FALSE, flags);
  g_object_class_install_properties (object_class, RESULT_N_PROPS, result_properties);
}

static void
wvh_authentication_result_init (WvhAuthenticationResult *self)
{
}

WvhAuthenticationResult *
_wvh_authentication_result_new (const char *access_token, const char *id_token, gint64 expires_on, const char *const *scopes,
                                WvhAccount *account, gboolean has_refresh_token)
{
  WvhAuthenticationResult *self = g_object_new (WVH_TYPE_AUTHENTICATION_RESULT, NULL);
  self->access_token = g_strdup (access_token);
  self->id_token = g_strdup (id_token);
  self->expires_on = expires_on;
  self->scopes = g_strdupv ((char **) scopes);
  self->account = g_object_ref (account);
  self->has_refresh_token = has_refresh_token;
  return self;
}

/**
 * wvh_authentication_result_get_access_token:
 * @self: a #WvhAuthenticationResult
 *
 * Returns: (transfer none): the access token.
 */
const char *
wvh_authentication_result_get_access_token (WvhAuthenticationResult *self)
{
  g_return_val_if_fail (WVH_IS_AUTHENTICATION_RESULT (self), NULL);
  return self->access_token;
}

/**
 * wvh_authentication_result_get_id_token:
 * @self: a #WvhAuthenticationResult
 *
 * Returns: (transfer none): the ID token (empty when the provider sent none).
 */
const char *
wvh_authentication_result_get_id_token (WvhAuthenticationResult *self)
{
  g_return_val_if_fail (WVH_IS_AUTHENTICATION_RESULT (self), NULL);
  return self->id_token;
}

/**
 * wvh_authentication_result_get_expires_on:
 * @self: a #WvhAuthenticationResult
 *
 * Returns: when the access token expires, in seconds since 1970 (UTC).
 */
gint64
wvh_authentication_result_get_expires_on (WvhAuthenticationResult *self)
{
  g_return_val_if_fail (WVH_IS_AUTHENTICATION_RESULT (self), 0);
  return self->expires_on;
}

/**
 * wvh_authentication_result_get_scopes:
 * @self: a #WvhAuthenticationResult
 *
 * Returns: (transfer none) (array zero-terminated=1): the granted scopes.
 */
const char *const *
wvh_authentication_result_get_scopes (WvhAuthenticationResult *self)
{
  g_return_val_if_fail (WVH_IS_AUTHENTICATION_RESULT (self), NULL);
  return (const char *const *) self->scopes;
}

/**
 * wvh_authentication_result_get_account:
 * @self: a #WvhAuthenticationResult
 *
 * Returns: (transfer none): who signed in.
 */
WvhAccount *
wvh_authentication_result_get_account (WvhAuthenticationResult *self)
{
  g_return_val_if_fail (WVH_IS_AUTHENTICATION_RESULT (self), NULL);
  return self->account;
}

/**
 * wvh_authentication_result_get_has_refresh_token:
 * @self: a #WvhAuthenticationResult
 *
 * Returns: whether the provider gave a refresh token.
 */
gboolean
wvh_authentication_result_get_has_refresh_token (WvhAuthenticationResult *self)
{
  g_return_val_if_fail (WVH_IS_AUTHENTICATION_RESULT (self), FALSE);
  return self->has_refresh_token;
}
