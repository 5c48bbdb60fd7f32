#include "webviewhost-bridge.h"

#include <string.h>

/* The signals of a call's steps and the GTask plumbing of a call's end, written once for
 * WvhPublicClientApplication and WvhWebAuthSession. Each type documents its own signals; the
 * Swift side maps every WebAuthEvent kind to a WvhBridgeEvent in one exhaustive switch, so a new
 * kind does not compile until it reaches C. */

void
_wvh_call_signals_install (GType type, gboolean application, guint signals[WVH_BRIDGE_EVENT_COUNT])
{
  GSignalFlags flags = G_SIGNAL_RUN_LAST;
  memset (signals, 0, sizeof (guint) * WVH_BRIDGE_EVENT_COUNT);
  signals[WVH_BRIDGE_EVENT_DID_START_LOAD] = g_signal_new ("did-start-load", type, flags, 0, NULL, NULL, NULL, G_TYPE_NONE, 2,
                                                           G_TYPE_STRING, WEBKIT_TYPE_WEB_VIEW);
  signals[WVH_BRIDGE_EVENT_DID_FINISH_LOAD] = g_signal_new ("did-finish-load", type, flags, 0, NULL, NULL, NULL, G_TYPE_NONE, 2,
                                                            G_TYPE_STRING, WEBKIT_TYPE_WEB_VIEW);
  signals[WVH_BRIDGE_EVENT_DID_FAIL] = g_signal_new ("did-fail", type, flags, 0, NULL, NULL, NULL, G_TYPE_NONE, 2, G_TYPE_ERROR,
                                                     WEBKIT_TYPE_WEB_VIEW);
  signals[WVH_BRIDGE_EVENT_DID_COMPLETE] = g_signal_new ("did-complete", type, flags, 0, NULL, NULL, NULL, G_TYPE_NONE, 2,
                                                         G_TYPE_STRING, WEBKIT_TYPE_WEB_VIEW);
  if (!application)
    return;
  signals[WVH_BRIDGE_EVENT_WILL_SWITCH_TO_BROKER_APP] = g_signal_new ("will-switch-to-broker-app", type, flags, 0, NULL, NULL, NULL,
                                                                      G_TYPE_NONE, 1, G_TYPE_STRING);
  signals[WVH_BRIDGE_EVENT_WILL_SWITCH_TO_SYSTEM_BROWSER] = g_signal_new ("will-switch-to-system-browser", type, flags, 0, NULL,
                                                                          NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);
  signals[WVH_BRIDGE_EVENT_DEVICE_CODE] = g_signal_new ("device-code", type, flags, 0, NULL, NULL, NULL, G_TYPE_NONE, 1,
                                                        WVH_TYPE_DEVICE_CODE_CHALLENGE);
}

void
_wvh_call_signals_emit (gpointer instance, const guint signals[WVH_BRIDGE_EVENT_COUNT], WvhBridgeEvent event, const char *url,
                        gpointer webview, const GError *error, WvhDeviceCodeChallenge *challenge)
{
  g_return_if_fail (G_IS_OBJECT (instance));
  g_return_if_fail (event < WVH_BRIDGE_EVENT_COUNT);
  guint signal = signals[event];
  if (signal == 0) /* a step this type has no signal for */
    return;
  WebKitWebView *view = webview != NULL && WEBKIT_IS_WEB_VIEW (webview) ? WEBKIT_WEB_VIEW (webview) : NULL;
  switch (event) {
  case WVH_BRIDGE_EVENT_DID_START_LOAD:
  case WVH_BRIDGE_EVENT_DID_FINISH_LOAD:
  case WVH_BRIDGE_EVENT_DID_COMPLETE: g_signal_emit (instance, signal, 0, url != NULL ? url : "", view); break;
  case WVH_BRIDGE_EVENT_DID_FAIL: g_signal_emit (instance, signal, 0, error, view); break;
  case WVH_BRIDGE_EVENT_WILL_SWITCH_TO_BROKER_APP:
  case WVH_BRIDGE_EVENT_WILL_SWITCH_TO_SYSTEM_BROWSER: g_signal_emit (instance, signal, 0, url != NULL ? url : ""); break;
  case WVH_BRIDGE_EVENT_DEVICE_CODE: g_signal_emit (instance, signal, 0, challenge); break;
  case WVH_BRIDGE_EVENT_COUNT: break;
  }
}

void
_wvh_task_done_object (gpointer data, gpointer result, GError *error)
{
  GTask *task = data;
  if (error != NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, result, g_object_unref);
  g_object_unref (task);
}

void
_wvh_task_done_array (gpointer data, gpointer result, GError *error)
{
  GTask *task = data;
  if (error != NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, result, (GDestroyNotify) g_ptr_array_unref);
  g_object_unref (task);
}

void
_wvh_task_done_string (gpointer data, gpointer result, GError *error)
{
  GTask *task = data;
  if (error != NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, result, g_free);
  g_object_unref (task);
}

void
_wvh_task_done_boolean (gpointer data, gpointer result, GError *error)
{
  GTask *task = data;
  if (error != NULL)
    g_task_return_error (task, error);
  else
    g_task_return_boolean (task, GPOINTER_TO_INT (result));
  g_object_unref (task);
}

void
_wvh_bridge_call_done (WvhBridgeDone done, gpointer data, gpointer result, GError *error)
{
  done (data, result, error);
}
