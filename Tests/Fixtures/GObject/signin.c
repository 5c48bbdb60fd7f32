/* A C GTK 3 app that signs in through WebviewHost's GObject layer (libwebviewhost-gtk3, through
 * its pkg-config file), as the README shows, and prints what it saw as JSON:
 *   signin CLIENT_ID ISSUER USERNAME PASSWORD AUTOPILOT_JS
 * The library's window; the page signed in by the autopilot from did-finish-load; then a silent
 * renewal; then a sign-out and the accounts left; and the NULL and wrong-type arguments the API
 * forbids, which must be criticals and never a crash. */
#include <webviewhost.h>
#include <stdio.h>
#include <string.h>

static GMainLoop *loop;
static const char *scopes[] = { "openid", "profile", "email", "offline_access", NULL };
static char *script;
static char *access_token;
static int criticals;
static GString *signals;

static GLogWriterOutput
count_criticals (GLogLevelFlags level, const GLogField *fields, gsize n_fields, gpointer data)
{
  if (level & G_LOG_LEVEL_CRITICAL) {
    criticals++;
    return G_LOG_WRITER_HANDLED;
  }
  return g_log_writer_default (level, fields, n_fields, data);
}

static void
on_finish_load (WvhPublicClientApplication *app, const char *url, WebKitWebView *view, gpointer data)
{
  g_string_append (signals, "\"did-finish-load\",");
  if (view != NULL)
    webkit_web_view_evaluate_javascript (view, script, -1, NULL, NULL, NULL, NULL, NULL);
}

static void
on_signal (WvhPublicClientApplication *app, const char *url, WebKitWebView *view, gpointer name)
{
  g_string_append_printf (signals, "\"%s\",", (const char *) name);
}

static void
fail (const char *step, GError *error)
{
  printf ("{\"outcome\": \"error\", \"step\": \"%s\", \"domain\": \"%s\", \"code\": %d}\n", step,
          g_quark_to_string (error->domain), error->code);
  g_error_free (error);
  g_main_loop_quit (loop);
}

static void
accounts_done (GObject *source, GAsyncResult *result, gpointer data)
{
  GError *error = NULL;
  GPtrArray *accounts = wvh_public_client_application_get_accounts_finish (WVH_PUBLIC_CLIENT_APPLICATION (source), result, &error);
  if (accounts == NULL) {
    fail ("accounts", error);
    return;
  }
  /* The API's misuses: each a critical, none a crash. */
  g_log_set_writer_func (count_criticals, NULL, NULL);
  wvh_public_client_application_acquire_token_async (NULL, NULL, NULL, NULL, NULL);
  wvh_public_client_application_acquire_token_async ((WvhPublicClientApplication *) accounts, NULL, NULL, NULL, NULL);
  g_assert_null (wvh_account_get_username (NULL));
  wvh_public_client_application_acquire_token_silent_async (WVH_PUBLIC_CLIENT_APPLICATION (source), NULL, NULL, FALSE, NULL, NULL, NULL);
  g_assert_null (wvh_web_auth_session_new (NULL, "http://127.0.0.1:23687/callback", NULL));
  wvh_web_auth_session_start_async ((WvhWebAuthSession *) accounts, NULL, NULL, NULL);
  g_assert_null (wvh_web_auth_session_start_finish (NULL, NULL, NULL));
  g_assert_null (wvh_selection_policy_select_provider ((WvhSelectionPolicy *) source, NULL, NULL, NULL));
  g_assert_false (wvh_provider_info_get_available ((WvhProviderInfo *) source));
  g_assert_null (wvh_provider_info_get_id (NULL));
  printf ("{\"outcome\": \"success\", \"signals\": [%s\"end\"], \"silentDiffers\": %s, \"signedOut\": %s, \"accountsAfter\": %u, "
          "\"criticals\": %d}\n",
          signals->str, GPOINTER_TO_INT (data) & 1 ? "true" : "false", GPOINTER_TO_INT (data) & 2 ? "true" : "false",
          accounts->len, criticals);
  g_ptr_array_unref (accounts);
  g_main_loop_quit (loop);
}

static void
sign_out_done (GObject *source, GAsyncResult *result, gpointer data)
{
  GError *error = NULL;
  gboolean removed = wvh_public_client_application_sign_out_finish (WVH_PUBLIC_CLIENT_APPLICATION (source), result, &error);
  if (error != NULL) {
    fail ("sign-out", error);
    return;
  }
  wvh_public_client_application_get_accounts_async (WVH_PUBLIC_CLIENT_APPLICATION (source), NULL, accounts_done,
                                                    GINT_TO_POINTER (GPOINTER_TO_INT (data) | (removed ? 2 : 0)));
}

static void
silent_done (GObject *source, GAsyncResult *result, gpointer data)
{
  GError *error = NULL;
  WvhAuthenticationResult *renewed =
      wvh_public_client_application_acquire_token_silent_finish (WVH_PUBLIC_CLIENT_APPLICATION (source), result, &error);
  if (renewed == NULL) {
    fail ("silent", error);
    return;
  }
  gboolean differs = g_strcmp0 (wvh_authentication_result_get_access_token (renewed), access_token) != 0;
  WvhAccount *account = g_object_ref (wvh_authentication_result_get_account (renewed));
  g_object_unref (renewed);
  wvh_public_client_application_sign_out_async (WVH_PUBLIC_CLIENT_APPLICATION (source), account, FALSE, NULL, NULL, sign_out_done,
                                                GINT_TO_POINTER (differs ? 1 : 0));
  g_object_unref (account);
}

static void
signed_in (GObject *source, GAsyncResult *result, gpointer data)
{
  GError *error = NULL;
  WvhAuthenticationResult *tokens = wvh_public_client_application_acquire_token_finish (WVH_PUBLIC_CLIENT_APPLICATION (source), result, &error);
  if (tokens == NULL) {
    fail ("sign-in", error);
    return;
  }
  access_token = g_strdup (wvh_authentication_result_get_access_token (tokens));
  wvh_public_client_application_acquire_token_silent_async (WVH_PUBLIC_CLIENT_APPLICATION (source),
                                                            wvh_authentication_result_get_account (tokens), scopes, TRUE, NULL,
                                                            silent_done, NULL);
  g_object_unref (tokens);
}

int
main (int argc, char **argv)
{
  if (argc < 6)
    return 2;
  gtk_init (&argc, &argv);
  loop = g_main_loop_new (NULL, FALSE);
  signals = g_string_new (NULL);
  char *text;
  if (!g_file_get_contents (argv[5], &text, NULL, NULL))
    return 2;
  char *user = g_strdup_printf ("\"%s\"", argv[3]), *passwords = g_strdup_printf ("[\"%s\"]", argv[4]);
  char **parts = g_strsplit (text, "__USERNAME__", -1);
  char *step = g_strjoinv (user, parts);
  g_strfreev (parts);
  parts = g_strsplit (step, "__PASSWORDS__", -1);
  g_free (step);
  step = g_strjoinv (passwords, parts);
  g_strfreev (parts);
  parts = g_strsplit (step, "__ON_LOGOUT__", -1);
  script = g_strjoinv ("return;", parts);
  g_strfreev (parts);
  g_free (step);
  g_free (text);
  g_free (user);
  g_free (passwords);

  GError *error = NULL;
  WvhPublicClientApplication *app = g_initable_new (WVH_TYPE_PUBLIC_CLIENT_APPLICATION, NULL, &error, "client-id", argv[1],
                                                    "authority", argv[2], "redirect-uri", "http://127.0.0.1:23685/embedded-callback",
                                                    "token-cache", "memory", NULL);
  if (app == NULL) {
    fail ("new", error);
    return 1;
  }
  g_signal_connect (app, "did-start-load", G_CALLBACK (on_signal), "did-start-load");
  g_signal_connect (app, "did-finish-load", G_CALLBACK (on_finish_load), NULL);
  g_signal_connect (app, "did-complete", G_CALLBACK (on_signal), "did-complete");
  WvhInteractiveParameters *parameters = wvh_interactive_parameters_new ();
  g_object_set (parameters, "scopes", scopes, "webview-type", WVH_WEBVIEW_TYPE_EMBEDDED, "timeout", 120.0, NULL);
  wvh_public_client_application_acquire_token_async (app, parameters, NULL, signed_in, NULL);
  g_object_unref (parameters);
  g_main_loop_run (loop);
  g_object_unref (app);
  g_main_loop_unref (loop);
  g_free (script);
  g_free (access_token);
  g_string_free (signals, TRUE);
  return 0;
}
