#include "webviewhost.h"

G_DEFINE_QUARK (webview-host-error-quark, wvh_error)

GType
wvh_error_get_type (void)
{
  static gsize type = 0;
  static const GEnumValue values[] = {
    { WVH_ERROR_FAILED, "WVH_ERROR_FAILED", "failed" },
    { WVH_ERROR_USER_CANCELED, "WVH_ERROR_USER_CANCELED", "user-canceled" },
    { WVH_ERROR_CANCELED, "WVH_ERROR_CANCELED", "canceled" },
    { WVH_ERROR_SESSION_ALREADY_IN_PROGRESS, "WVH_ERROR_SESSION_ALREADY_IN_PROGRESS", "session-already-in-progress" },
    { WVH_ERROR_PROVIDER_UNAVAILABLE, "WVH_ERROR_PROVIDER_UNAVAILABLE", "provider-unavailable" },
    { WVH_ERROR_INVALID_PARAMETERS, "WVH_ERROR_INVALID_PARAMETERS", "invalid-parameters" },
    { WVH_ERROR_NETWORK, "WVH_ERROR_NETWORK", "network" },
    { WVH_ERROR_TLS, "WVH_ERROR_TLS", "tls" },
    { WVH_ERROR_WEB_PROCESS_TERMINATED, "WVH_ERROR_WEB_PROCESS_TERMINATED", "web-process-terminated" },
    { WVH_ERROR_BROWSER_LAUNCH_FAILED, "WVH_ERROR_BROWSER_LAUNCH_FAILED", "browser-launch-failed" },
    { WVH_ERROR_TIMED_OUT, "WVH_ERROR_TIMED_OUT", "timed-out" },
    { WVH_ERROR_REDIRECT_LISTENER_FAILED, "WVH_ERROR_REDIRECT_LISTENER_FAILED", "redirect-listener-failed" },
    { WVH_ERROR_SERVER, "WVH_ERROR_SERVER", "server" },
    { WVH_ERROR_STATE_MISMATCH, "WVH_ERROR_STATE_MISMATCH", "state-mismatch" },
    { WVH_ERROR_INVALID_RESPONSE, "WVH_ERROR_INVALID_RESPONSE", "invalid-response" },
    { WVH_ERROR_INTERACTION_REQUIRED, "WVH_ERROR_INTERACTION_REQUIRED", "interaction-required" },
    { WVH_ERROR_UNSUPPORTED_RESPONSE_MODE, "WVH_ERROR_UNSUPPORTED_RESPONSE_MODE", "unsupported-response-mode" },
    { WVH_ERROR_SYSTEM_BROWSER_REQUIRED, "WVH_ERROR_SYSTEM_BROWSER_REQUIRED", "system-browser-required" },
    { WVH_ERROR_CONSENT_REQUIRED, "WVH_ERROR_CONSENT_REQUIRED", "consent-required" },
    { WVH_ERROR_BROKER_UNAVAILABLE, "WVH_ERROR_BROKER_UNAVAILABLE", "broker-unavailable" },
    { WVH_ERROR_PROTOCOL_MISMATCH, "WVH_ERROR_PROTOCOL_MISMATCH", "protocol-mismatch" },
    { WVH_ERROR_DEVICE_CODE_EXPIRED, "WVH_ERROR_DEVICE_CODE_EXPIRED", "device-code-expired" },
    { WVH_ERROR_DEVICE_CODE_DENIED, "WVH_ERROR_DEVICE_CODE_DENIED", "device-code-denied" },
    { WVH_ERROR_DEVICE_CODE_BLOCKED, "WVH_ERROR_DEVICE_CODE_BLOCKED", "device-code-blocked" },
    { WVH_ERROR_INTEGRATED_AUTHENTICATION_UNAVAILABLE, "WVH_ERROR_INTEGRATED_AUTHENTICATION_UNAVAILABLE",
      "integrated-authentication-unavailable" },
    { WVH_ERROR_CLIENT_CERTIFICATE_REQUIRED, "WVH_ERROR_CLIENT_CERTIFICATE_REQUIRED", "client-certificate-required" },
    { 0, NULL, NULL },
  };
  if (g_once_init_enter (&type))
    g_once_init_leave (&type, g_enum_register_static (g_intern_static_string ("WvhError"), values));
  return type;
}

GType
wvh_webview_type_get_type (void)
{
  static gsize type = 0;
  static const GEnumValue values[] = {
    { WVH_WEBVIEW_TYPE_DEFAULT, "WVH_WEBVIEW_TYPE_DEFAULT", "default" },
    { WVH_WEBVIEW_TYPE_AUTHENTICATION_SESSION, "WVH_WEBVIEW_TYPE_AUTHENTICATION_SESSION", "authentication-session" },
    { WVH_WEBVIEW_TYPE_EMBEDDED, "WVH_WEBVIEW_TYPE_EMBEDDED", "embedded" },
    { 0, NULL, NULL },
  };
  if (g_once_init_enter (&type))
    g_once_init_leave (&type, g_enum_register_static (g_intern_static_string ("WvhWebviewType"), values));
  return type;
}

GType
wvh_device_code_display_get_type (void)
{
  static gsize type = 0;
  static const GEnumValue values[] = {
    { WVH_DEVICE_CODE_DISPLAY_AUTOMATIC, "WVH_DEVICE_CODE_DISPLAY_AUTOMATIC", "automatic" },
    { WVH_DEVICE_CODE_DISPLAY_TERMINAL, "WVH_DEVICE_CODE_DISPLAY_TERMINAL", "terminal" },
    { WVH_DEVICE_CODE_DISPLAY_WINDOW, "WVH_DEVICE_CODE_DISPLAY_WINDOW", "window" },
    { WVH_DEVICE_CODE_DISPLAY_APP, "WVH_DEVICE_CODE_DISPLAY_APP", "app" },
    { 0, NULL, NULL },
  };
  if (g_once_init_enter (&type))
    g_once_init_leave (&type, g_enum_register_static (g_intern_static_string ("WvhDeviceCodeDisplay"), values));
  return type;
}

GType
wvh_provider_kind_get_type (void)
{
  static gsize type = 0;
  static const GEnumValue values[] = {
    { WVH_PROVIDER_KIND_SYSTEM_BROWSER, "WVH_PROVIDER_KIND_SYSTEM_BROWSER", "system-browser" },
    { WVH_PROVIDER_KIND_EMBEDDED_VIEW, "WVH_PROVIDER_KIND_EMBEDDED_VIEW", "embedded-view" },
    { WVH_PROVIDER_KIND_OTHER, "WVH_PROVIDER_KIND_OTHER", "other" },
    { 0, NULL, NULL },
  };
  if (g_once_init_enter (&type))
    g_once_init_leave (&type, g_enum_register_static (g_intern_static_string ("WvhProviderKind"), values));
  return type;
}
