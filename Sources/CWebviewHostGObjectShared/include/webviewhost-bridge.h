/* Between the GObject types (C) and the Swift API: not part of the public API, not introspected.
 * The wvh_bridge_* functions are written in Swift (@_cdecl, WebviewHostGObjectGTK3); the
 * _wvh_* ones in C, for the Swift side. All are called on the main thread. */
#ifndef WEBVIEWHOST_BRIDGE_H
#define WEBVIEWHOST_BRIDGE_H

#include "webviewhost.h"

G_BEGIN_DECLS

/* What an interactive call asks for, read from a WvhInteractiveParameters. */
typedef struct {
  const char *const *scopes;
  const char *login_hint;
  const char *prompt;
  WvhWebviewType webview_type;
  GtkWindow *parent_window;
  WebKitWebView *custom_webview;
  const char *window_title;
  int window_width;
  int window_height;
  double timeout_seconds;
  gboolean ephemeral;
  gboolean security_keys;
  gboolean security_keys_in_custom_webview;
  const char *provider_id;
  WvhSelectionPolicy *selection_policy;
  WvhInteractiveParameters *object; /* the parameters themselves, for the selection policy */
} WvhBridgeInteractive;

/* Called once when a call ends: its result (transfer full: a GObject, a GPtrArray, or a boolean
 * as GINT_TO_POINTER, as the call's finish function takes it) or an error (transfer full). */
typedef void (*WvhBridgeDone) (gpointer data, gpointer result, GError *error);

typedef enum {
  WVH_BRIDGE_EVENT_DID_START_LOAD,
  WVH_BRIDGE_EVENT_DID_FINISH_LOAD,
  WVH_BRIDGE_EVENT_DID_FAIL,
  WVH_BRIDGE_EVENT_DID_COMPLETE,
  WVH_BRIDGE_EVENT_WILL_SWITCH_TO_BROKER_APP,
  WVH_BRIDGE_EVENT_WILL_SWITCH_TO_SYSTEM_BROWSER,
  WVH_BRIDGE_EVENT_DEVICE_CODE,
  WVH_BRIDGE_EVENT_COUNT, /* not an event: how many there are */
} WvhBridgeEvent;

/* C (wvh-call-signals.c): the steps' signals, declared once for both types that carry them (the
 * application adds the broker, browser and device-code ones), and emitted by event; a slot left 0
 * is a step the type has no signal for. */
void _wvh_call_signals_install (GType type, gboolean application, guint signals[WVH_BRIDGE_EVENT_COUNT]);
void _wvh_call_signals_emit (gpointer instance, const guint signals[WVH_BRIDGE_EVENT_COUNT], WvhBridgeEvent event, const char *url,
                             gpointer webview, const GError *error, WvhDeviceCodeChallenge *challenge);
/* A call's end into its GTask (taken): an object, a GPtrArray, a string, a boolean (GINT_TO_POINTER). */
void _wvh_task_done_object (gpointer data, gpointer result, GError *error);
void _wvh_task_done_array (gpointer data, gpointer result, GError *error);
void _wvh_task_done_string (gpointer data, gpointer result, GError *error);
void _wvh_task_done_boolean (gpointer data, gpointer result, GError *error);

/* C: the values of a WvhInteractiveParameters (valid while it lives); NULL gives the defaults. */
void _wvh_interactive_parameters_fill (WvhInteractiveParameters *self, WvhBridgeInteractive *out);

/* C, for Swift: the provider interface and its sessions. */
gboolean _wvh_webview_provider_is_available (WvhWebviewProvider *self, char **reason);
void _wvh_webview_provider_start (WvhWebviewProvider *self, WvhProviderSession *session);
void _wvh_webview_provider_dismiss (WvhWebviewProvider *self, WvhProviderSession *session);
/* bridge: the Swift session's (retained; released in finalize with wvh_bridge_session_free). */
WvhProviderSession *_wvh_provider_session_new (const char *authorization_url, const char *redirect_uri, gpointer bridge);

typedef enum {
  WVH_BRIDGE_REPORT_DID_START_LOAD,
  WVH_BRIDGE_REPORT_DID_FINISH_LOAD,
  WVH_BRIDGE_REPORT_COMPLETE,
  WVH_BRIDGE_REPORT_FAIL,
  WVH_BRIDGE_REPORT_IS_FINISHED,
} WvhBridgeReport;

/* Swift */
gboolean wvh_bridge_register_provider (WvhWebviewProvider *provider, const char *id, const char *display_name, WvhProviderKind kind,
                                       int priority, gboolean requires_display, GError **error);
gboolean wvh_bridge_unregister_provider (const char *id);
gboolean wvh_bridge_use_desktop_proxy (gpointer web_view);
gboolean wvh_bridge_allow_negotiate (const char *const *origins, GError **error);
gboolean wvh_bridge_session_report (gpointer bridge, WvhBridgeReport report, const char *url, WvhError code, const char *message);
void wvh_bridge_session_free (gpointer bridge);
gpointer wvh_bridge_application_new (const char *client_id, const char *authority, const char *redirect_uri, const char *token_cache,
                                     const char *network_proxy, GError **error);
void wvh_bridge_application_free (gpointer bridge);
void wvh_bridge_acquire_token (gpointer bridge, WvhPublicClientApplication *emitter, const WvhBridgeInteractive *parameters,
                               GCancellable *cancellable, WvhBridgeDone done, gpointer data);
void wvh_bridge_acquire_token_silent (gpointer bridge, const char *account_identifier, const char *const *scopes,
                                      gboolean force_refresh, GCancellable *cancellable, WvhBridgeDone done, gpointer data);
void wvh_bridge_acquire_token_with_device_code (gpointer bridge, WvhPublicClientApplication *emitter, const char *const *scopes,
                                                WvhDeviceCodeDisplay display, GtkWindow *parent, GCancellable *cancellable,
                                                WvhBridgeDone done, gpointer data);
void wvh_bridge_get_accounts (gpointer bridge, GCancellable *cancellable, WvhBridgeDone done, gpointer data);
/* The id of the provider that prepared (transfer full), or NULL. */
char *wvh_bridge_application_prewarm (gpointer bridge, const WvhBridgeInteractive *parameters);
void wvh_bridge_sign_out (gpointer bridge, WvhPublicClientApplication *emitter, const char *account_identifier,
                          gboolean at_identity_provider, const WvhBridgeInteractive *parameters, GCancellable *cancellable,
                          WvhBridgeDone done, gpointer data);
/* The Swift session of a WvhWebAuthSession and its page (retained; released with wvh_bridge_web_auth_session_free),
 * or NULL with error set for a URL the API refuses. */
gpointer wvh_bridge_web_auth_session_new (const char *authorization_url, const char *redirect_uri,
                                          const WvhBridgeInteractive *parameters, GError **error);
void wvh_bridge_web_auth_session_free (gpointer bridge);
/* done: with the callback URL (a string, transfer full) or the error. */
void wvh_bridge_web_auth_session_start (gpointer bridge, WvhWebAuthSession *emitter, GCancellable *cancellable, WvhBridgeDone done,
                                        gpointer data);
void wvh_bridge_web_auth_session_cancel (gpointer bridge);

/* C, for Swift */
WvhAccount *_wvh_account_new (const char *identifier, const char *username, const char *name, const char *subject,
                              const char *issuer);
WvhAuthenticationResult *_wvh_authentication_result_new (const char *access_token, const char *id_token, gint64 expires_on,
                                                         const char *const *scopes, WvhAccount *account,
                                                         gboolean has_refresh_token);
WvhDeviceCodeChallenge *_wvh_device_code_challenge_new (const char *user_code, const char *verification_uri,
                                                        const char *verification_uri_complete, gint64 expires_on,
                                                        const char *message, const char *instructions);
/* challenge: for WVH_BRIDGE_EVENT_DEVICE_CODE (transfer none). */
void _wvh_public_client_application_emit (WvhPublicClientApplication *self, WvhBridgeEvent event, const char *url,
                                          gpointer webview, const GError *error, WvhDeviceCodeChallenge *challenge);
void _wvh_web_auth_session_emit (WvhWebAuthSession *self, WvhBridgeEvent event, const char *url, gpointer webview,
                                 const GError *error);
/* Runs done with the result or error: a C function pointer Swift can call. */
void _wvh_bridge_call_done (WvhBridgeDone done, gpointer data, gpointer result, GError *error);
/* A provider as a selection policy sees it (transfer full), and an array of them that unrefs them. */
WvhProviderInfo *_wvh_provider_info_new (const char *id, const char *display_name, WvhProviderKind kind, int priority,
                                         gboolean available, const char *unavailable_reason, gboolean supports_custom_webview,
                                         gboolean requires_display);
GPtrArray *_wvh_provider_info_array_new (void);
/* A new array of accounts that unrefs them (transfer full). */
GPtrArray *_wvh_account_array_new (void);

G_END_DECLS

#endif
