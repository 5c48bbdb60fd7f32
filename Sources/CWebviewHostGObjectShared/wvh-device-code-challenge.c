#include "webviewhost-bridge.h"

/**
 * WvhDeviceCodeChallenge:
 *
 * What the person needs to sign in on another device (RFC 8628): the code, where to enter it,
 * until when. An app that shows the code itself (%WVH_DEVICE_CODE_DISPLAY_APP) gets it from
 * #WvhPublicClientApplication::device-code.
 */
struct _WvhDeviceCodeChallenge {
  GObject parent_instance;
  char *user_code, *verification_uri, *verification_uri_complete, *message, *instructions;
  gint64 expires_on;
};

G_DEFINE_FINAL_TYPE (WvhDeviceCodeChallenge, wvh_device_code_challenge, G_TYPE_OBJECT)

enum { PROP_0, PROP_USER_CODE, PROP_VERIFICATION_URI, PROP_VERIFICATION_URI_COMPLETE, PROP_EXPIRES_ON, PROP_MESSAGE,
       PROP_INSTRUCTIONS, N_PROPS };
static GParamSpec *properties[N_PROPS];

static void
wvh_device_code_challenge_finalize (GObject *object)
{
  WvhDeviceCodeChallenge *self = WVH_DEVICE_CODE_CHALLENGE (object);
  g_free (self->user_code);
  g_free (self->verification_uri);
  g_free (self->verification_uri_complete);
  g_free (self->message);
  g_free (self->instructions);
  G_OBJECT_CLASS (wvh_device_code_challenge_parent_class)->finalize (object);
}

static void
wvh_device_code_challenge_get_property (GObject *object, guint id, GValue *value, GParamSpec *pspec)
{
  WvhDeviceCodeChallenge *self = WVH_DEVICE_CODE_CHALLENGE (object);
  switch (id) {
  case PROP_USER_CODE: g_value_set_string (value, self->user_code); break;
  case PROP_VERIFICATION_URI: g_value_set_string (value, self->verification_uri); break;
  case PROP_VERIFICATION_URI_COMPLETE: g_value_set_string (value, self->verification_uri_complete); break;
  case PROP_EXPIRES_ON: g_value_set_int64 (value, self->expires_on); break;
  case PROP_MESSAGE: g_value_set_string (value, self->message); break;
  case PROP_INSTRUCTIONS: g_value_set_string (value, self->instructions); break;
  default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, id, pspec);
  }
}

static void
wvh_device_code_challenge_class_init (WvhDeviceCodeChallengeClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  object_class->finalize = wvh_device_code_challenge_finalize;
  object_class->get_property = wvh_device_code_challenge_get_property;
  GParamFlags flags = G_PARAM_READABLE | G_PARAM_STATIC_STRINGS;
  /**
   * WvhDeviceCodeChallenge:user-code:
   *
   * The code the person types on the other device.
   */
  properties[PROP_USER_CODE] = g_param_spec_string ("user-code", NULL, NULL, NULL, flags);
  /**
   * WvhDeviceCodeChallenge:verification-uri:
   *
   * Where to type it.
   */
  properties[PROP_VERIFICATION_URI] = g_param_spec_string ("verification-uri", NULL, NULL, NULL, flags);
  /**
   * WvhDeviceCodeChallenge:verification-uri-complete:
   *
   * The same page with the code in it (for a QR code or a click), or %NULL when the provider sends none.
   */
  properties[PROP_VERIFICATION_URI_COMPLETE] = g_param_spec_string ("verification-uri-complete", NULL, NULL, NULL, flags);
  /**
   * WvhDeviceCodeChallenge:expires-on:
   *
   * When the code stops working, in seconds since 1970 (UTC).
   */
  properties[PROP_EXPIRES_ON] = g_param_spec_int64 ("expires-on", NULL, NULL, 0, G_MAXINT64, 0, flags);
  /**
   * WvhDeviceCodeChallenge:message:
   *
   * The provider's own sentence, or %NULL.
   */
  properties[PROP_MESSAGE] = g_param_spec_string ("message", NULL, NULL, NULL, flags);
  /**
   * WvhDeviceCodeChallenge:instructions:
   *
   * What to tell the person, in their language, with the warning against codes someone else sent.
   */
  properties[PROP_INSTRUCTIONS] = g_param_spec_string ("instructions", NULL, NULL, NULL, flags);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
wvh_device_code_challenge_init (WvhDeviceCodeChallenge *self)
{
}

WvhDeviceCodeChallenge *
_wvh_device_code_challenge_new (const char *user_code, const char *verification_uri, const char *verification_uri_complete,
                                gint64 expires_on, const char *message, const char *instructions)
{
  WvhDeviceCodeChallenge *self = g_object_new (WVH_TYPE_DEVICE_CODE_CHALLENGE, NULL);
  self->user_code = g_strdup (user_code);
  self->verification_uri = g_strdup (verification_uri);
  self->verification_uri_complete = g_strdup (verification_uri_complete);
  self->expires_on = expires_on;
  self->message = g_strdup (message);
  self->instructions = g_strdup (instructions);
  return self;
}

/**
 * wvh_device_code_challenge_get_user_code:
 * @self: a #WvhDeviceCodeChallenge
 *
 * Returns: (transfer none): the code the person types on the other device.
 */
const char *
wvh_device_code_challenge_get_user_code (WvhDeviceCodeChallenge *self)
{
  g_return_val_if_fail (WVH_IS_DEVICE_CODE_CHALLENGE (self), NULL);
  return self->user_code;
}

/**
 * wvh_device_code_challenge_get_verification_uri:
 * @self: a #WvhDeviceCodeChallenge
 *
 * Returns: (transfer none): where to type the code.
 */
const char *
wvh_device_code_challenge_get_verification_uri (WvhDeviceCodeChallenge *self)
{
  g_return_val_if_fail (WVH_IS_DEVICE_CODE_CHALLENGE (self), NULL);
  return self->verification_uri;
}

/**
 * wvh_device_code_challenge_get_verification_uri_complete:
 * @self: a #WvhDeviceCodeChallenge
 *
 * Returns: (transfer none) (nullable): the page with the code in it.
 */
const char *
wvh_device_code_challenge_get_verification_uri_complete (WvhDeviceCodeChallenge *self)
{
  g_return_val_if_fail (WVH_IS_DEVICE_CODE_CHALLENGE (self), NULL);
  return self->verification_uri_complete;
}

/**
 * wvh_device_code_challenge_get_expires_on:
 * @self: a #WvhDeviceCodeChallenge
 *
 * Returns: when the code stops working, in seconds since 1970 (UTC).
 */
gint64
wvh_device_code_challenge_get_expires_on (WvhDeviceCodeChallenge *self)
{
  g_return_val_if_fail (WVH_IS_DEVICE_CODE_CHALLENGE (self), 0);
  return self->expires_on;
}

/**
 * wvh_device_code_challenge_get_message:
 * @self: a #WvhDeviceCodeChallenge
 *
 * Returns: (transfer none) (nullable): the provider's own sentence, or %NULL when it sent none.
 */
const char *
wvh_device_code_challenge_get_message (WvhDeviceCodeChallenge *self)
{
  g_return_val_if_fail (WVH_IS_DEVICE_CODE_CHALLENGE (self), NULL);
  return self->message;
}

/**
 * wvh_device_code_challenge_get_instructions:
 * @self: a #WvhDeviceCodeChallenge
 *
 * Returns: (transfer none): what to tell the person, in their language.
 */
const char *
wvh_device_code_challenge_get_instructions (WvhDeviceCodeChallenge *self)
{
  g_return_val_if_fail (WVH_IS_DEVICE_CODE_CHALLENGE (self), NULL);
  return self->instructions;
}
