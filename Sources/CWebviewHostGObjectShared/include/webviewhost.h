/* WebviewHost for C, Python, JavaScript and Vala: GObject types over the Swift API.
 *
 * One library per toolkit, as WebKitGTK has: libwebviewhost-gtk3 (GTK 3, WebKitGTK 4.1; its
 * introspection namespace WebviewHost-3.0) and libwebviewhost-gtk4 (GTK 4, WebKitGTK 6.0;
 * WebviewHost-4.0), from the same sources. Every call is made on the main thread, in the
 * thread-default main context of the main loop the app runs (gtk_main(), g_application_run(),
 * GLib.MainLoop); the async calls finish there.
 */
#ifndef WEBVIEWHOST_H
#define WEBVIEWHOST_H

#include <gio/gio.h>
#include "webviewhost-toolkit.h"

G_BEGIN_DECLS

/* Errors */

/**
 * WVH_ERROR:
 *
 * The error domain of WebviewHost: one #WvhError code per `WebAuthError.Code` of the Swift API.
 */
#define WVH_ERROR (wvh_error_quark ())
GQuark wvh_error_quark (void);

/**
 * WvhError:
 * @WVH_ERROR_FAILED: an error this version does not name (a plugin's own code).
 * @WVH_ERROR_USER_CANCELED: the person closed the window or pressed Cancel.
 * @WVH_ERROR_CANCELED: the app cancelled (a #GCancellable reports G_IO_ERROR_CANCELLED instead).
 * @WVH_ERROR_SESSION_ALREADY_IN_PROGRESS: another interactive sign-in of the process is running.
 * @WVH_ERROR_PROVIDER_UNAVAILABLE: no web user agent can run (no display, no browser).
 * @WVH_ERROR_INVALID_PARAMETERS: a parameter the API refuses (a malformed URL, an empty client ID).
 * @WVH_ERROR_NETWORK: the identity provider could not be reached.
 * @WVH_ERROR_TLS: the provider's TLS certificate was not trusted.
 * @WVH_ERROR_WEB_PROCESS_TERMINATED: the view's web process ended.
 * @WVH_ERROR_BROWSER_LAUNCH_FAILED: the person's browser could not be started.
 * @WVH_ERROR_TIMED_OUT: the sign-in took longer than its timeout.
 * @WVH_ERROR_REDIRECT_LISTENER_FAILED: the loopback listener could not be opened.
 * @WVH_ERROR_SERVER: the provider answered an OAuth error (its `error` and `error_description` are in the message);
 *   #WvhWebAuthSession, which does no OAuth, never raises it: it returns the URL with the error in its query.
 * @WVH_ERROR_STATE_MISMATCH: the answer does not belong to this sign-in.
 * @WVH_ERROR_INVALID_RESPONSE: the provider's answer failed a check (an ID token, a malformed reply).
 * @WVH_ERROR_INTERACTION_REQUIRED: a silent call needs the person (sign in interactively).
 * @WVH_ERROR_UNSUPPORTED_RESPONSE_MODE: the provider answered in a way the user agent cannot take.
 * @WVH_ERROR_SYSTEM_BROWSER_REQUIRED: the page needs the person's browser and the app allowed no hand-over.
 * @WVH_ERROR_CONSENT_REQUIRED: the person must consent first.
 * @WVH_ERROR_BROKER_UNAVAILABLE: the token broker is not there.
 * @WVH_ERROR_PROTOCOL_MISMATCH: the token broker spoke another protocol.
 * @WVH_ERROR_DEVICE_CODE_EXPIRED: the device code expired before the person approved.
 * @WVH_ERROR_DEVICE_CODE_DENIED: the person refused on the other device.
 * @WVH_ERROR_DEVICE_CODE_BLOCKED: the provider blocked the device code.
 * @WVH_ERROR_INTEGRATED_AUTHENTICATION_UNAVAILABLE: the page asked for Kerberos (Negotiate) and the view
 *   cannot answer it (no or an expired ticket, an ephemeral session, a host not allowed); the message says which.
 * @WVH_ERROR_CLIENT_CERTIFICATE_REQUIRED: a server asked for a client certificate and none could be given.
 *
 * Why a call failed.
 */
typedef enum {
  WVH_ERROR_FAILED,
  WVH_ERROR_USER_CANCELED,
  WVH_ERROR_CANCELED,
  WVH_ERROR_SESSION_ALREADY_IN_PROGRESS,
  WVH_ERROR_PROVIDER_UNAVAILABLE,
  WVH_ERROR_INVALID_PARAMETERS,
  WVH_ERROR_NETWORK,
  WVH_ERROR_TLS,
  WVH_ERROR_WEB_PROCESS_TERMINATED,
  WVH_ERROR_BROWSER_LAUNCH_FAILED,
  WVH_ERROR_TIMED_OUT,
  WVH_ERROR_REDIRECT_LISTENER_FAILED,
  WVH_ERROR_SERVER,
  WVH_ERROR_STATE_MISMATCH,
  WVH_ERROR_INVALID_RESPONSE,
  WVH_ERROR_INTERACTION_REQUIRED,
  WVH_ERROR_UNSUPPORTED_RESPONSE_MODE,
  WVH_ERROR_SYSTEM_BROWSER_REQUIRED,
  WVH_ERROR_CONSENT_REQUIRED,
  WVH_ERROR_BROKER_UNAVAILABLE,
  WVH_ERROR_PROTOCOL_MISMATCH,
  WVH_ERROR_DEVICE_CODE_EXPIRED,
  WVH_ERROR_DEVICE_CODE_DENIED,
  WVH_ERROR_DEVICE_CODE_BLOCKED,
  WVH_ERROR_INTEGRATED_AUTHENTICATION_UNAVAILABLE,
  WVH_ERROR_CLIENT_CERTIFICATE_REQUIRED,
} WvhError;

/**
 * WvhWebviewType:
 * @WVH_WEBVIEW_TYPE_DEFAULT: the selection policy chooses (the person's browser where one exists).
 * @WVH_WEBVIEW_TYPE_AUTHENTICATION_SESSION: the person's own browser only.
 * @WVH_WEBVIEW_TYPE_EMBEDDED: a WebKitGTK view: a window of the library's, or #WvhInteractiveParameters:custom-webview.
 *
 * Which web user agent shows the sign-in, as MSAL's `MSALWebviewType`.
 */
typedef enum {
  WVH_WEBVIEW_TYPE_DEFAULT,
  WVH_WEBVIEW_TYPE_AUTHENTICATION_SESSION,
  WVH_WEBVIEW_TYPE_EMBEDDED,
} WvhWebviewType;

/**
 * WvhDeviceCodeDisplay:
 * @WVH_DEVICE_CODE_DISPLAY_AUTOMATIC: the library's window when there is a display, else the terminal.
 * @WVH_DEVICE_CODE_DISPLAY_TERMINAL: standard error: the instructions, a QR code of the link, the time left.
 * @WVH_DEVICE_CODE_DISPLAY_WINDOW: the library's window (the code, its QR code, the link, Cancel).
 * @WVH_DEVICE_CODE_DISPLAY_APP: the app shows it itself, from #WvhPublicClientApplication::device-code.
 *
 * Where the person sees the code of a sign-in on another device.
 */
typedef enum {
  WVH_DEVICE_CODE_DISPLAY_AUTOMATIC,
  WVH_DEVICE_CODE_DISPLAY_TERMINAL,
  WVH_DEVICE_CODE_DISPLAY_WINDOW,
  WVH_DEVICE_CODE_DISPLAY_APP,
} WvhDeviceCodeDisplay;

GType wvh_device_code_display_get_type (void);
#define WVH_TYPE_DEVICE_CODE_DISPLAY (wvh_device_code_display_get_type ())
GType wvh_error_get_type (void);
#define WVH_TYPE_ERROR (wvh_error_get_type ())
GType wvh_webview_type_get_type (void);
#define WVH_TYPE_WEBVIEW_TYPE (wvh_webview_type_get_type ())

/* An account */

#define WVH_TYPE_ACCOUNT (wvh_account_get_type ())
G_DECLARE_FINAL_TYPE (WvhAccount, wvh_account, WVH, ACCOUNT, GObject)

const char *wvh_account_get_identifier (WvhAccount *self);
const char *wvh_account_get_username (WvhAccount *self);
const char *wvh_account_get_name (WvhAccount *self);
const char *wvh_account_get_subject (WvhAccount *self);
const char *wvh_account_get_issuer (WvhAccount *self);

/* The tokens of a sign-in */

#define WVH_TYPE_AUTHENTICATION_RESULT (wvh_authentication_result_get_type ())
G_DECLARE_FINAL_TYPE (WvhAuthenticationResult, wvh_authentication_result, WVH, AUTHENTICATION_RESULT, GObject)

const char *wvh_authentication_result_get_access_token (WvhAuthenticationResult *self);
const char *wvh_authentication_result_get_id_token (WvhAuthenticationResult *self);
gint64 wvh_authentication_result_get_expires_on (WvhAuthenticationResult *self);
const char *const *wvh_authentication_result_get_scopes (WvhAuthenticationResult *self);
WvhAccount *wvh_authentication_result_get_account (WvhAuthenticationResult *self);
gboolean wvh_authentication_result_get_has_refresh_token (WvhAuthenticationResult *self);

/* A sign-in on another device */

#define WVH_TYPE_DEVICE_CODE_CHALLENGE (wvh_device_code_challenge_get_type ())
G_DECLARE_FINAL_TYPE (WvhDeviceCodeChallenge, wvh_device_code_challenge, WVH, DEVICE_CODE_CHALLENGE, GObject)

const char *wvh_device_code_challenge_get_user_code (WvhDeviceCodeChallenge *self);
const char *wvh_device_code_challenge_get_verification_uri (WvhDeviceCodeChallenge *self);
const char *wvh_device_code_challenge_get_verification_uri_complete (WvhDeviceCodeChallenge *self);
gint64 wvh_device_code_challenge_get_expires_on (WvhDeviceCodeChallenge *self);
const char *wvh_device_code_challenge_get_message (WvhDeviceCodeChallenge *self);
const char *wvh_device_code_challenge_get_instructions (WvhDeviceCodeChallenge *self);

/* How an interactive sign-in is shown */

#define WVH_TYPE_INTERACTIVE_PARAMETERS (wvh_interactive_parameters_get_type ())
G_DECLARE_FINAL_TYPE (WvhInteractiveParameters, wvh_interactive_parameters, WVH, INTERACTIVE_PARAMETERS, GObject)

WvhInteractiveParameters *wvh_interactive_parameters_new (void);

/* Providers written in any language */

/**
 * WvhProviderKind:
 * @WVH_PROVIDER_KIND_SYSTEM_BROWSER: the person's own browser (chosen first by the default policy).
 * @WVH_PROVIDER_KIND_EMBEDDED_VIEW: a web view inside the app (%WVH_WEBVIEW_TYPE_EMBEDDED chooses among these).
 * @WVH_PROVIDER_KIND_OTHER: anything else (a kiosk browser, a terminal).
 *
 * What kind of user agent a provider is, for the selection policy.
 */
typedef enum {
  WVH_PROVIDER_KIND_SYSTEM_BROWSER,
  WVH_PROVIDER_KIND_EMBEDDED_VIEW,
  WVH_PROVIDER_KIND_OTHER,
} WvhProviderKind;

GType wvh_provider_kind_get_type (void);
#define WVH_TYPE_PROVIDER_KIND (wvh_provider_kind_get_type ())

#define WVH_TYPE_PROVIDER_SESSION (wvh_provider_session_get_type ())
G_DECLARE_FINAL_TYPE (WvhProviderSession, wvh_provider_session, WVH, PROVIDER_SESSION, GObject)

const char *wvh_provider_session_get_authorization_url (WvhProviderSession *self);
const char *wvh_provider_session_get_redirect_uri (WvhProviderSession *self);
gboolean wvh_provider_session_is_finished (WvhProviderSession *self);
void wvh_provider_session_did_start_load (WvhProviderSession *self, const char *url);
void wvh_provider_session_did_finish_load (WvhProviderSession *self, const char *url);
gboolean wvh_provider_session_complete (WvhProviderSession *self, const char *callback_url);
void wvh_provider_session_fail (WvhProviderSession *self, WvhError code, const char *message);

#define WVH_TYPE_WEBVIEW_PROVIDER (wvh_webview_provider_get_type ())
G_DECLARE_INTERFACE (WvhWebviewProvider, wvh_webview_provider, WVH, WEBVIEW_PROVIDER, GObject)

/**
 * WvhWebviewProviderInterface:
 * @g_iface: the parent interface
 * @is_available: whether the provider can run now; %FALSE with a reason the person can act on.
 *   Optional: a provider without it is always available.
 * @start: show @session's authorization URL; report its loads, then end it once with
 *   wvh_provider_session_complete() (the callback URL the provider saw) or
 *   wvh_provider_session_fail().
 * @dismiss: take the provider's UI down; called once, after the session ended, whatever ended
 *   it (the provider's report, the person, the app's cancel, the timeout). Optional.
 *
 * A web user agent written in any language (Python, JavaScript, Vala, C), which the selection
 * policy chooses like a built-in one once wvh_webview_provider_register() registered it. The
 * contract is the Swift API's `WebviewProvider` (Docs: ImplementingAProvider).
 */
/**
 * WvhWebviewProviderInterface::is_available:
 * @self: the provider
 * @reason: (out) (transfer full) (optional) (nullable): why it cannot run, when it cannot
 *
 * Returns: whether the provider can run now.
 */
/**
 * WvhWebviewProviderInterface::start:
 * @self: the provider
 * @session: the sign-in to show
 */
/**
 * WvhWebviewProviderInterface::dismiss:
 * @self: the provider
 * @session: the sign-in that ended
 */
struct _WvhWebviewProviderInterface {
  GTypeInterface g_iface;
  gboolean (*is_available) (WvhWebviewProvider *self, char **reason);
  void (*start) (WvhWebviewProvider *self, WvhProviderSession *session);
  void (*dismiss) (WvhWebviewProvider *self, WvhProviderSession *session);
};

gboolean wvh_webview_provider_register (WvhWebviewProvider *self,
                                        const char         *id,
                                        const char         *display_name,
                                        WvhProviderKind     kind,
                                        int                 priority,
                                        gboolean            requires_display,
                                        GError            **error);
gboolean wvh_webview_provider_unregister (const char *id);

gboolean wvh_use_desktop_proxy (WebKitWebView *web_view);
gboolean wvh_allow_negotiate (const char *const *origins, GError **error);

/* Choosing the provider: a selection policy in any language */

#define WVH_TYPE_PROVIDER_INFO (wvh_provider_info_get_type ())
G_DECLARE_FINAL_TYPE (WvhProviderInfo, wvh_provider_info, WVH, PROVIDER_INFO, GObject)

const char *wvh_provider_info_get_id (WvhProviderInfo *self);
const char *wvh_provider_info_get_display_name (WvhProviderInfo *self);
WvhProviderKind wvh_provider_info_get_kind (WvhProviderInfo *self);
int wvh_provider_info_get_priority (WvhProviderInfo *self);
gboolean wvh_provider_info_get_available (WvhProviderInfo *self);
const char *wvh_provider_info_get_unavailable_reason (WvhProviderInfo *self);
gboolean wvh_provider_info_get_supports_custom_webview (WvhProviderInfo *self);
gboolean wvh_provider_info_get_requires_display (WvhProviderInfo *self);

#define WVH_TYPE_SELECTION_POLICY (wvh_selection_policy_get_type ())
G_DECLARE_INTERFACE (WvhSelectionPolicy, wvh_selection_policy, WVH, SELECTION_POLICY, GObject)

/**
 * WvhSelectionPolicyInterface:
 * @g_iface: the parent interface
 * @select_provider: the id of the provider that runs the sign-in, %NULL to leave the choice to
 *   the default policy, or %NULL with @error set to refuse the sign-in.
 *
 * The app's own choice of provider for the calls whose #WvhInteractiveParameters:selection-policy
 * it is, in any language (Python, JavaScript, Vala, C): the Swift API's `WebviewSelectionPolicy`.
 */
/**
 * WvhSelectionPolicyInterface::select_provider:
 * @self: the policy
 * @parameters: the parameters of the call
 * @providers: (element-type WvhProviderInfo): the registered providers, highest priority first
 * @error: why the sign-in cannot run (its message is the call's)
 *
 * Returns: (transfer full) (nullable): a registered provider's id, or %NULL.
 */
struct _WvhSelectionPolicyInterface {
  GTypeInterface g_iface;
  char *(*select_provider) (WvhSelectionPolicy       *self,
                            WvhInteractiveParameters *parameters,
                            GPtrArray                *providers,
                            GError                  **error);
};

char *wvh_selection_policy_select_provider (WvhSelectionPolicy       *self,
                                            WvhInteractiveParameters *parameters,
                                            GPtrArray                *providers,
                                            GError                  **error);

/* The public client application */

#define WVH_TYPE_PUBLIC_CLIENT_APPLICATION (wvh_public_client_application_get_type ())
G_DECLARE_FINAL_TYPE (WvhPublicClientApplication, wvh_public_client_application, WVH, PUBLIC_CLIENT_APPLICATION, GObject)

WvhPublicClientApplication *wvh_public_client_application_new (const char *client_id,
                                                                const char *authority,
                                                                const char *redirect_uri,
                                                                GError    **error);

void wvh_public_client_application_acquire_token_async (WvhPublicClientApplication *self,
                                                        WvhInteractiveParameters   *parameters,
                                                        GCancellable               *cancellable,
                                                        GAsyncReadyCallback         callback,
                                                        gpointer                    user_data);
WvhAuthenticationResult *wvh_public_client_application_acquire_token_finish (WvhPublicClientApplication *self,
                                                                             GAsyncResult               *result,
                                                                             GError                    **error);

void wvh_public_client_application_acquire_token_silent_async (WvhPublicClientApplication *self,
                                                               WvhAccount                 *account,
                                                               const char *const          *scopes,
                                                               gboolean                    force_refresh,
                                                               GCancellable               *cancellable,
                                                               GAsyncReadyCallback         callback,
                                                               gpointer                    user_data);
WvhAuthenticationResult *wvh_public_client_application_acquire_token_silent_finish (WvhPublicClientApplication *self,
                                                                                    GAsyncResult               *result,
                                                                                    GError                    **error);

void wvh_public_client_application_acquire_token_with_device_code_async (WvhPublicClientApplication *self,
                                                                         const char *const          *scopes,
                                                                         WvhDeviceCodeDisplay        display,
                                                                         GtkWindow                  *parent,
                                                                         GCancellable               *cancellable,
                                                                         GAsyncReadyCallback         callback,
                                                                         gpointer                    user_data);
WvhAuthenticationResult *wvh_public_client_application_acquire_token_with_device_code_finish (WvhPublicClientApplication *self,
                                                                                              GAsyncResult               *result,
                                                                                              GError                    **error);

char *wvh_public_client_application_prewarm (WvhPublicClientApplication *self, WvhInteractiveParameters *parameters);
void wvh_public_client_application_get_accounts_async (WvhPublicClientApplication *self,
                                                       GCancellable               *cancellable,
                                                       GAsyncReadyCallback         callback,
                                                       gpointer                    user_data);
GPtrArray *wvh_public_client_application_get_accounts_finish (WvhPublicClientApplication *self,
                                                              GAsyncResult               *result,
                                                              GError                    **error);

void wvh_public_client_application_sign_out_async (WvhPublicClientApplication *self,
                                                   WvhAccount                 *account,
                                                   gboolean                    at_identity_provider,
                                                   WvhInteractiveParameters   *parameters,
                                                   GCancellable               *cancellable,
                                                   GAsyncReadyCallback         callback,
                                                   gpointer                    user_data);
gboolean wvh_public_client_application_sign_out_finish (WvhPublicClientApplication *self,
                                                        GAsyncResult               *result,
                                                        GError                    **error);

/* The lower level: a session for any authorization URL */

#define WVH_TYPE_WEB_AUTH_SESSION (wvh_web_auth_session_get_type ())
G_DECLARE_FINAL_TYPE (WvhWebAuthSession, wvh_web_auth_session, WVH, WEB_AUTH_SESSION, GObject)

WvhWebAuthSession *wvh_web_auth_session_new (const char               *authorization_url,
                                             const char               *redirect_uri,
                                             WvhInteractiveParameters *parameters);
void wvh_web_auth_session_start_async (WvhWebAuthSession  *self,
                                       GCancellable       *cancellable,
                                       GAsyncReadyCallback callback,
                                       gpointer            user_data);
char *wvh_web_auth_session_start_finish (WvhWebAuthSession *self,
                                         GAsyncResult      *result,
                                         GError           **error);
void wvh_web_auth_session_cancel (WvhWebAuthSession *self);

G_END_DECLS

#endif
