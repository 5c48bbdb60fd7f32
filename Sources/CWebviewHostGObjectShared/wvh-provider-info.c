#include "webviewhost-bridge.h"

/**
 * WvhProviderInfo:
 *
 * A registered provider as a #WvhSelectionPolicy sees it when it chooses: its id, name, kind and
 * priority, whether it can run here (and why not), and what it supports. Read-only; made by the
 * library for each choice.
 */
struct _WvhProviderInfo {
  GObject parent_instance;
  char *id, *display_name, *unavailable_reason;
  WvhProviderKind kind;
  int priority;
  gboolean available, supports_custom_webview, requires_display;
};

G_DEFINE_FINAL_TYPE (WvhProviderInfo, wvh_provider_info, G_TYPE_OBJECT)

enum { INFO_PROP_0, INFO_PROP_ID, INFO_PROP_DISPLAY_NAME, INFO_PROP_KIND, INFO_PROP_PRIORITY, INFO_PROP_AVAILABLE,
       INFO_PROP_UNAVAILABLE_REASON, INFO_PROP_SUPPORTS_CUSTOM_WEBVIEW, INFO_PROP_REQUIRES_DISPLAY, INFO_N_PROPS };
static GParamSpec *info_properties[INFO_N_PROPS];

static void
wvh_provider_info_finalize (GObject *object)
{
  WvhProviderInfo *self = WVH_PROVIDER_INFO (object);
  g_free (self->id);
  g_free (self->display_name);
  g_free (self->unavailable_reason);
  G_OBJECT_CLASS (wvh_provider_info_parent_class)->finalize (object);
}

static void
wvh_provider_info_get_property (GObject *object, guint id, GValue *value, GParamSpec *pspec)
{
  WvhProviderInfo *self = WVH_PROVIDER_INFO (object);
  switch (id) {
  case INFO_PROP_ID: g_value_set_string (value, self->id); break;
  case INFO_PROP_DISPLAY_NAME: g_value_set_string (value, self->display_name); break;
  case INFO_PROP_KIND: g_value_set_enum (value, self->kind); break;
  case INFO_PROP_PRIORITY: g_value_set_int (value, self->priority); break;
  case INFO_PROP_AVAILABLE: g_value_set_boolean (value, self->available); break;
  case INFO_PROP_UNAVAILABLE_REASON: g_value_set_string (value, self->unavailable_reason); break;
  case INFO_PROP_SUPPORTS_CUSTOM_WEBVIEW: g_value_set_boolean (value, self->supports_custom_webview); break;
  case INFO_PROP_REQUIRES_DISPLAY: g_value_set_boolean (value, self->requires_display); break;
  default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, id, pspec);
  }
}

static void
wvh_provider_info_class_init (WvhProviderInfoClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  object_class->finalize = wvh_provider_info_finalize;
  object_class->get_property = wvh_provider_info_get_property;
  GParamFlags flags = G_PARAM_READABLE | G_PARAM_STATIC_STRINGS;
  /**
   * WvhProviderInfo:id:
   *
   * The provider's id (`system-browser`, `embedded`, a plugin's): what
   * #WvhSelectionPolicyInterface.select_provider returns to choose it.
   */
  info_properties[INFO_PROP_ID] = g_param_spec_string ("id", NULL, NULL, NULL, flags);
  /**
   * WvhProviderInfo:display-name:
   *
   * The provider's name for people.
   */
  info_properties[INFO_PROP_DISPLAY_NAME] = g_param_spec_string ("display-name", NULL, NULL, NULL, flags);
  /**
   * WvhProviderInfo:kind:
   *
   * What kind of user agent it is.
   */
  info_properties[INFO_PROP_KIND] = g_param_spec_enum ("kind", NULL, NULL, WVH_TYPE_PROVIDER_KIND, WVH_PROVIDER_KIND_OTHER, flags);
  /**
   * WvhProviderInfo:priority:
   *
   * Its priority: higher is chosen first among providers of its kind by the default policy.
   */
  info_properties[INFO_PROP_PRIORITY] = g_param_spec_int ("priority", NULL, NULL, G_MININT, G_MAXINT, 0, flags);
  /**
   * WvhProviderInfo:available:
   *
   * Whether it can run here and now (a display, a browser, what the provider itself says).
   */
  info_properties[INFO_PROP_AVAILABLE] = g_param_spec_boolean ("available", NULL, NULL, FALSE, flags);
  /**
   * WvhProviderInfo:unavailable-reason:
   *
   * Why it cannot run, when #WvhProviderInfo:available is %FALSE; else %NULL.
   */
  info_properties[INFO_PROP_UNAVAILABLE_REASON] = g_param_spec_string ("unavailable-reason", NULL, NULL, NULL, flags);
  /**
   * WvhProviderInfo:supports-custom-webview:
   *
   * Whether it can show the sign-in in the app's own view (#WvhInteractiveParameters:custom-webview).
   */
  info_properties[INFO_PROP_SUPPORTS_CUSTOM_WEBVIEW] =
      g_param_spec_boolean ("supports-custom-webview", NULL, NULL, FALSE, flags);
  /**
   * WvhProviderInfo:requires-display:
   *
   * Whether it needs a graphical session.
   */
  info_properties[INFO_PROP_REQUIRES_DISPLAY] = g_param_spec_boolean ("requires-display", NULL, NULL, TRUE, flags);
  g_object_class_install_properties (object_class, INFO_N_PROPS, info_properties);
}

static void
wvh_provider_info_init (WvhProviderInfo *self)
{
}

WvhProviderInfo *
_wvh_provider_info_new (const char *id, const char *display_name, WvhProviderKind kind, int priority, gboolean available,
                        const char *unavailable_reason, gboolean supports_custom_webview, gboolean requires_display)
{
  WvhProviderInfo *self = g_object_new (WVH_TYPE_PROVIDER_INFO, NULL);
  self->id = g_strdup (id);
  self->display_name = g_strdup (display_name);
  self->kind = kind;
  self->priority = priority;
  self->available = available;
  self->unavailable_reason = available ? NULL : g_strdup (unavailable_reason);
  self->supports_custom_webview = supports_custom_webview;
  self->requires_display = requires_display;
  return self;
}

GPtrArray *
_wvh_provider_info_array_new (void)
{
  return g_ptr_array_new_with_free_func (g_object_unref);
}

/**
 * wvh_provider_info_get_id:
 * @self: a #WvhProviderInfo
 *
 * Returns: (transfer none): the provider's id.
 */
const char *
wvh_provider_info_get_id (WvhProviderInfo *self)
{
  g_return_val_if_fail (WVH_IS_PROVIDER_INFO (self), NULL);
  return self->id;
}

/**
 * wvh_provider_info_get_display_name:
 * @self: a #WvhProviderInfo
 *
 * Returns: (transfer none): the provider's name for people.
 */
const char *
wvh_provider_info_get_display_name (WvhProviderInfo *self)
{
  g_return_val_if_fail (WVH_IS_PROVIDER_INFO (self), NULL);
  return self->display_name;
}

/**
 * wvh_provider_info_get_kind:
 * @self: a #WvhProviderInfo
 *
 * Returns: what kind of user agent the provider is.
 */
WvhProviderKind
wvh_provider_info_get_kind (WvhProviderInfo *self)
{
  g_return_val_if_fail (WVH_IS_PROVIDER_INFO (self), WVH_PROVIDER_KIND_OTHER);
  return self->kind;
}

/**
 * wvh_provider_info_get_priority:
 * @self: a #WvhProviderInfo
 *
 * Returns: the provider's priority (higher first).
 */
int
wvh_provider_info_get_priority (WvhProviderInfo *self)
{
  g_return_val_if_fail (WVH_IS_PROVIDER_INFO (self), 0);
  return self->priority;
}

/**
 * wvh_provider_info_get_available:
 * @self: a #WvhProviderInfo
 *
 * Returns: whether the provider can run here and now.
 */
gboolean
wvh_provider_info_get_available (WvhProviderInfo *self)
{
  g_return_val_if_fail (WVH_IS_PROVIDER_INFO (self), FALSE);
  return self->available;
}

/**
 * wvh_provider_info_get_unavailable_reason:
 * @self: a #WvhProviderInfo
 *
 * Returns: (transfer none) (nullable): why the provider cannot run, or %NULL when it can.
 */
const char *
wvh_provider_info_get_unavailable_reason (WvhProviderInfo *self)
{
  g_return_val_if_fail (WVH_IS_PROVIDER_INFO (self), NULL);
  return self->unavailable_reason;
}

/**
 * wvh_provider_info_get_supports_custom_webview:
 * @self: a #WvhProviderInfo
 *
 * Returns: whether the provider can show the sign-in in the app's own #WebKitWebView.
 */
gboolean
wvh_provider_info_get_supports_custom_webview (WvhProviderInfo *self)
{
  g_return_val_if_fail (WVH_IS_PROVIDER_INFO (self), FALSE);
  return self->supports_custom_webview;
}

/**
 * wvh_provider_info_get_requires_display:
 * @self: a #WvhProviderInfo
 *
 * Returns: whether the provider needs a graphical session.
 */
gboolean
wvh_provider_info_get_requires_display (WvhProviderInfo *self)
{
  g_return_val_if_fail (WVH_IS_PROVIDER_INFO (self), TRUE);
  return self->requires_display;
}
