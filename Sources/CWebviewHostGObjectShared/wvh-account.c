#include "webviewhost-bridge.h"

/**
 * WvhAccount:
 *
 * A person signed in to this app (`Account` in the Swift API): pass it to
 * wvh_public_client_application_acquire_token_silent_async() for a token without the person.
 */
struct _WvhAccount {
  GObject parent_instance;
  char *identifier, *username, *name, *subject, *issuer;
};

G_DEFINE_FINAL_TYPE (WvhAccount, wvh_account, G_TYPE_OBJECT)

enum { ACCOUNT_PROP_0, ACCOUNT_PROP_IDENTIFIER, ACCOUNT_PROP_USERNAME, ACCOUNT_PROP_NAME, ACCOUNT_PROP_SUBJECT,
       ACCOUNT_PROP_ISSUER, ACCOUNT_N_PROPS };
static GParamSpec *account_properties[ACCOUNT_N_PROPS];

static void
wvh_account_finalize (GObject *object)
{
  WvhAccount *self = WVH_ACCOUNT (object);
  g_free (self->identifier);
  g_free (self->username);
  g_free (self->name);
  g_free (self->subject);
  g_free (self->issuer);
  G_OBJECT_CLASS (wvh_account_parent_class)->finalize (object);
}

static void
wvh_account_get_property (GObject *object, guint id, GValue *value, GParamSpec *pspec)
{
  WvhAccount *self = WVH_ACCOUNT (object);
  switch (id) {
  case ACCOUNT_PROP_IDENTIFIER: g_value_set_string (value, self->identifier); break;
  case ACCOUNT_PROP_USERNAME: g_value_set_string (value, self->username); break;
  case ACCOUNT_PROP_NAME: g_value_set_string (value, self->name); break;
  case ACCOUNT_PROP_SUBJECT: g_value_set_string (value, self->subject); break;
  case ACCOUNT_PROP_ISSUER: g_value_set_string (value, self->issuer); break;
  default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, id, pspec);
  }
}

static void
wvh_account_class_init (WvhAccountClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  object_class->finalize = wvh_account_finalize;
  object_class->get_property = wvh_account_get_property;
  GParamFlags flags = G_PARAM_READABLE | G_PARAM_STATIC_STRINGS;
  /**
   * WvhAccount:identifier:
   *
   * The account's key in the token cache (MSAL's home account ID).
   */
  account_properties[ACCOUNT_PROP_IDENTIFIER] = g_param_spec_string ("identifier", NULL, NULL, NULL, flags);
  /**
   * WvhAccount:username:
   *
   * The name the person signs in with (`preferred_username`), or %NULL.
   */
  account_properties[ACCOUNT_PROP_USERNAME] = g_param_spec_string ("username", NULL, NULL, NULL, flags);
  /**
   * WvhAccount:name:
   *
   * The person's display name, or %NULL.
   */
  account_properties[ACCOUNT_PROP_NAME] = g_param_spec_string ("name", NULL, NULL, NULL, flags);
  /**
   * WvhAccount:subject:
   *
   * The ID token's `sub`.
   */
  account_properties[ACCOUNT_PROP_SUBJECT] = g_param_spec_string ("subject", NULL, NULL, NULL, flags);
  /**
   * WvhAccount:issuer:
   *
   * The ID token's `iss`.
   */
  account_properties[ACCOUNT_PROP_ISSUER] = g_param_spec_string ("issuer", NULL, NULL, NULL, flags);
  g_object_class_install_properties (object_class, ACCOUNT_N_PROPS, account_properties);
}

static void
wvh_account_init (WvhAccount *self)
{
}

WvhAccount *
_wvh_account_new (const char *identifier, const char *username, const char *name, const char *subject, const char *issuer)
{
  WvhAccount *self = g_object_new (WVH_TYPE_ACCOUNT, NULL);
  self->identifier = g_strdup (identifier);
  self->username = g_strdup (username);
  self->name = g_strdup (name);
  self->subject = g_strdup (subject);
  self->issuer = g_strdup (issuer);
  return self;
}

/**
 * wvh_account_get_identifier:
 * @self: a #WvhAccount
 *
 * Returns: (transfer none): the account's key in the token cache.
 */
const char *
wvh_account_get_identifier (WvhAccount *self)
{
  g_return_val_if_fail (WVH_IS_ACCOUNT (self), NULL);
  return self->identifier;
}

/**
 * wvh_account_get_username:
 * @self: a #WvhAccount
 *
 * Returns: (transfer none) (nullable): the name the person signs in with.
 */
const char *
wvh_account_get_username (WvhAccount *self)
{
  g_return_val_if_fail (WVH_IS_ACCOUNT (self), NULL);
  return self->username;
}

/**
 * wvh_account_get_name:
 * @self: a #WvhAccount
 *
 * Returns: (transfer none) (nullable): the person's display name.
 */
const char *
wvh_account_get_name (WvhAccount *self)
{
  g_return_val_if_fail (WVH_IS_ACCOUNT (self), NULL);
  return self->name;
}

/**
 * wvh_account_get_subject:
 * @self: a #WvhAccount
 *
 * Returns: (transfer none): the ID token's `sub`.
 */
const char *
wvh_account_get_subject (WvhAccount *self)
{
  g_return_val_if_fail (WVH_IS_ACCOUNT (self), NULL);
  return self->subject;
}

/**
 * wvh_account_get_issuer:
 * @self: a #WvhAccount
 *
 * Returns: (transfer none): the ID token's `iss`.
 */
const char *
wvh_account_get_issuer (WvhAccount *self)
{
  g_return_val_if_fail (WVH_IS_ACCOUNT (self), NULL);
  return self->issuer;
}

GPtrArray *
_wvh_account_array_new (void)
{
  return g_ptr_array_new_with_free_func (g_object_unref);
}
