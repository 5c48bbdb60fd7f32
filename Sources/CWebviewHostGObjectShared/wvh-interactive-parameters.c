#include "webviewhost-bridge.h"

/**
 * WvhInteractiveParameters:
 *
 * What an interactive sign-in asks for and how it is shown: the Swift API's
 * `InteractiveTokenParameters` with its `WebviewParameters`. Every property has the Swift
 * default until it is set.
 */
struct _WvhInteractiveParameters {
  GObject parent_instance;
  char **scopes;
  char *login_hint, *prompt, *window_title, *provider_id;
  WvhWebviewType webview_type;
  GtkWindow *parent_window;
  WebKitWebView *custom_webview;
  WvhSelectionPolicy *selection_policy;
  int window_width, window_height;
  double timeout;
  gboolean ephemeral, security_keys, security_keys_in_custom_webview;
};

G_DEFINE_FINAL_TYPE (WvhInteractiveParameters, wvh_interactive_parameters, G_TYPE_OBJECT)

enum { PROP_0, PROP_SCOPES, PROP_LOGIN_HINT, PROP_PROMPT, PROP_WEBVIEW_TYPE, PROP_PARENT_WINDOW, PROP_CUSTOM_WEBVIEW,
       PROP_WINDOW_TITLE, PROP_WINDOW_WIDTH, PROP_WINDOW_HEIGHT, PROP_TIMEOUT, PROP_EPHEMERAL, PROP_PROVIDER_ID, PROP_SELECTION_POLICY,
       PROP_SECURITY_KEYS, PROP_SECURITY_KEYS_IN_CUSTOM_WEBVIEW, N_PROPS };
static GParamSpec *properties[N_PROPS];

static void
wvh_interactive_parameters_finalize (GObject *object)
{
  WvhInteractiveParameters *self = WVH_INTERACTIVE_PARAMETERS (object);
  g_strfreev (self->scopes);
  g_free (self->login_hint);
  g_free (self->prompt);
  g_free (self->window_title);
  g_free (self->provider_id);
  g_clear_object (&self->parent_window);
  g_clear_object (&self->custom_webview);
  g_clear_object (&self->selection_policy);
  G_OBJECT_CLASS (wvh_interactive_parameters_parent_class)->finalize (object);
}

static void
wvh_interactive_parameters_get_property (GObject *object, guint id, GValue *value, GParamSpec *pspec)
{
  WvhInteractiveParameters *self = WVH_INTERACTIVE_PARAMETERS (object);
  switch (id) {
  case PROP_SCOPES: g_value_set_boxed (value, self->scopes); break;
  case PROP_LOGIN_HINT: g_value_set_string (value, self->login_hint); break;
  case PROP_PROMPT: g_value_set_string (value, self->prompt); break;
  case PROP_WEBVIEW_TYPE: g_value_set_enum (value, self->webview_type); break;
  case PROP_PARENT_WINDOW: g_value_set_object (value, self->parent_window); break;
  case PROP_CUSTOM_WEBVIEW: g_value_set_object (value, self->custom_webview); break;
  case PROP_WINDOW_TITLE: g_value_set_string (value, self->window_title); break;
  case PROP_WINDOW_WIDTH: g_value_set_int (value, self->window_width); break;
  case PROP_WINDOW_HEIGHT: g_value_set_int (value, self->window_height); break;
  case PROP_TIMEOUT: g_value_set_double (value, self->timeout); break;
  case PROP_EPHEMERAL: g_value_set_boolean (value, self->ephemeral); break;
  case PROP_SECURITY_KEYS: g_value_set_boolean (value, self->security_keys); break;
  case PROP_SECURITY_KEYS_IN_CUSTOM_WEBVIEW: g_value_set_boolean (value, self->security_keys_in_custom_webview); break;
  case PROP_PROVIDER_ID: g_value_set_string (value, self->provider_id); break;
  case PROP_SELECTION_POLICY: g_value_set_object (value, self->selection_policy); break;
  default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, id, pspec);
  }
}

static void
wvh_interactive_parameters_set_property (GObject *object, guint id, const GValue *value, GParamSpec *pspec)
{
  WvhInteractiveParameters *self = WVH_INTERACTIVE_PARAMETERS (object);
  switch (id) {
  case PROP_SCOPES: g_strfreev (self->scopes); self->scopes = g_value_dup_boxed (value); break;
  case PROP_LOGIN_HINT: g_free (self->login_hint); self->login_hint = g_value_dup_string (value); break;
  case PROP_PROMPT: g_free (self->prompt); self->prompt = g_value_dup_string (value); break;
  case PROP_WEBVIEW_TYPE: self->webview_type = g_value_get_enum (value); break;
  case PROP_PARENT_WINDOW: g_clear_object (&self->parent_window); self->parent_window = g_value_dup_object (value); break;
  case PROP_CUSTOM_WEBVIEW: g_clear_object (&self->custom_webview); self->custom_webview = g_value_dup_object (value); break;
  case PROP_WINDOW_TITLE: g_free (self->window_title); self->window_title = g_value_dup_string (value); break;
  case PROP_WINDOW_WIDTH: self->window_width = g_value_get_int (value); break;
  case PROP_WINDOW_HEIGHT: self->window_height = g_value_get_int (value); break;
  case PROP_TIMEOUT: self->timeout = g_value_get_double (value); break;
  case PROP_EPHEMERAL: self->ephemeral = g_value_get_boolean (value); break;
  case PROP_SECURITY_KEYS: self->security_keys = g_value_get_boolean (value); break;
  case PROP_SECURITY_KEYS_IN_CUSTOM_WEBVIEW: self->security_keys_in_custom_webview = g_value_get_boolean (value); break;
  case PROP_PROVIDER_ID: g_free (self->provider_id); self->provider_id = g_value_dup_string (value); break;
  case PROP_SELECTION_POLICY:
    g_clear_object (&self->selection_policy);
    self->selection_policy = g_value_dup_object (value);
    break;
  default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, id, pspec);
  }
}

static void
wvh_interactive_parameters_class_init (WvhInteractiveParametersClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  object_class->finalize = wvh_interactive_parameters_finalize;
  object_class->get_property = wvh_interactive_parameters_get_property;
  object_class->set_property = wvh_interactive_parameters_set_property;
  GParamFlags flags = G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS;
  /**
   * WvhInteractiveParameters:scopes:
   *
   * The scopes to ask for, beside `openid`, `profile` and `offline_access`.
   */
  properties[PROP_SCOPES] = g_param_spec_boxed ("scopes", NULL, NULL, G_TYPE_STRV, flags);
  /**
   * WvhInteractiveParameters:login-hint:
   *
   * The username to suggest, or %NULL.
   */
  properties[PROP_LOGIN_HINT] = g_param_spec_string ("login-hint", NULL, NULL, NULL, flags);
  /**
   * WvhInteractiveParameters:prompt:
   *
   * OpenID Connect's `prompt` (`login`, `consent`, `select_account`, `none`, `create`), or %NULL.
   */
  properties[PROP_PROMPT] = g_param_spec_string ("prompt", NULL, NULL, NULL, flags);
  /**
   * WvhInteractiveParameters:webview-type:
   *
   * Which user agent shows the sign-in.
   */
  properties[PROP_WEBVIEW_TYPE] = g_param_spec_enum ("webview-type", NULL, NULL, WVH_TYPE_WEBVIEW_TYPE, WVH_WEBVIEW_TYPE_DEFAULT, flags);
  /**
   * WvhInteractiveParameters:parent-window:
   *
   * The app window the library's sign-in window is modal over, or %NULL.
   */
  properties[PROP_PARENT_WINDOW] = g_param_spec_object ("parent-window", NULL, NULL, GTK_TYPE_WINDOW, flags);
  /**
   * WvhInteractiveParameters:custom-webview:
   *
   * The app's own #WebKitWebView: the sign-in page loads there instead of in a window of the
   * library's. The view is the app's again when the call finishes, with its back/forward list
   * as it was before the call: no sign-in page stays in its history.
   */
  properties[PROP_CUSTOM_WEBVIEW] = g_param_spec_object ("custom-webview", NULL, NULL, WEBKIT_TYPE_WEB_VIEW, flags);
  /**
   * WvhInteractiveParameters:window-title:
   *
   * The title of the library's window; %NULL shows "Sign in" in the person's language.
   */
  properties[PROP_WINDOW_TITLE] = g_param_spec_string ("window-title", NULL, NULL, NULL, flags);
  /**
   * WvhInteractiveParameters:window-width:
   *
   * The library's window's width in logical pixels; 0 for the default (520).
   */
  properties[PROP_WINDOW_WIDTH] = g_param_spec_int ("window-width", NULL, NULL, 0, 10000, 0, flags);
  /**
   * WvhInteractiveParameters:window-height:
   *
   * The library's window's height in logical pixels; 0 for the default (680).
   */
  properties[PROP_WINDOW_HEIGHT] = g_param_spec_int ("window-height", NULL, NULL, 0, 10000, 0, flags);
  /**
   * WvhInteractiveParameters:timeout:
   *
   * How many seconds the sign-in may take before it fails with %WVH_ERROR_TIMED_OUT; 0 for the provider's default.
   */
  properties[PROP_TIMEOUT] = g_param_spec_double ("timeout", NULL, NULL, 0, G_MAXDOUBLE, 0, flags);
  /**
   * WvhInteractiveParameters:ephemeral:
   *
   * Sign in in a web context that shares no cookies with earlier sign-ins (no single sign-on).
   */
  properties[PROP_EPHEMERAL] = g_param_spec_boolean ("ephemeral", NULL, NULL, FALSE, flags);
  /**
   * WvhInteractiveParameters:security-keys:
   *
   * Whether a sign-in page's Web Authentication API calls (passkeys, security keys) are answered
   * in the library's window with the person's security keys, when one is plugged in as the
   * session starts (the Swift API's `WebviewParameters.securityKeys`). %FALSE: such a call moves
   * the sign-in to the person's browser, as when no key is plugged in. On by default.
   */
  properties[PROP_SECURITY_KEYS] = g_param_spec_boolean ("security-keys", NULL, NULL, TRUE, flags);
  /**
   * WvhInteractiveParameters:security-keys-in-custom-webview:
   *
   * Whether the same is done in the app's own #WvhInteractiveParameters:custom-webview: the
   * library's scripts go into that view for the session only (the Swift API's
   * `WebviewParameters.securityKeysInCustomWebview`). Off by default.
   */
  properties[PROP_SECURITY_KEYS_IN_CUSTOM_WEBVIEW] =
      g_param_spec_boolean ("security-keys-in-custom-webview", NULL, NULL, FALSE, flags);
  /**
   * WvhInteractiveParameters:provider-id:
   *
   * A registered provider to use by its id (`embedded`, `system-browser`, a plugin's), or %NULL
   * to let #WvhInteractiveParameters:webview-type and the selection policy choose.
   */
  properties[PROP_PROVIDER_ID] = g_param_spec_string ("provider-id", NULL, NULL, NULL, flags);
  /**
   * WvhInteractiveParameters:selection-policy:
   *
   * The app's own choice of provider for the calls made with these parameters only
   * (wvh_public_client_application_acquire_token_async(), wvh_public_client_application_sign_out_async(),
   * a #WvhWebAuthSession): asked once per call, on the main thread, with these parameters and the
   * registered providers; its %NULL answer leaves the choice to
   * #WvhInteractiveParameters:webview-type, #WvhInteractiveParameters:provider-id and the
   * default policy. %NULL (the default): no policy of the app's. See #WvhSelectionPolicy.
   */
  properties[PROP_SELECTION_POLICY] =
      g_param_spec_object ("selection-policy", NULL, NULL, WVH_TYPE_SELECTION_POLICY, flags);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
wvh_interactive_parameters_init (WvhInteractiveParameters *self)
{
  self->webview_type = WVH_WEBVIEW_TYPE_DEFAULT;
  self->security_keys = TRUE;
}

/**
 * wvh_interactive_parameters_new:
 *
 * Returns: (transfer full): parameters with the Swift API's defaults.
 */
WvhInteractiveParameters *
wvh_interactive_parameters_new (void)
{
  return g_object_new (WVH_TYPE_INTERACTIVE_PARAMETERS, NULL);
}

void
_wvh_interactive_parameters_fill (WvhInteractiveParameters *self, WvhBridgeInteractive *out)
{
  memset (out, 0, sizeof *out);
  out->security_keys = TRUE; /* the Swift default, also with no parameters */
  if (self == NULL)
    return;
  out->scopes = (const char *const *) self->scopes;
  out->login_hint = self->login_hint;
  out->prompt = self->prompt;
  out->webview_type = self->webview_type;
  out->parent_window = self->parent_window;
  out->custom_webview = self->custom_webview;
  out->window_title = self->window_title;
  out->window_width = self->window_width;
  out->window_height = self->window_height;
  out->timeout_seconds = self->timeout;
  out->ephemeral = self->ephemeral;
  out->security_keys = self->security_keys;
  out->security_keys_in_custom_webview = self->security_keys_in_custom_webview;
  out->provider_id = self->provider_id;
  out->selection_policy = self->selection_policy;
  out->object = self;
}
