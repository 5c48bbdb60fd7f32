#include "webviewhost-bridge.h"

/**
 * WvhSelectionPolicy:
 *
 * The app's own choice of the provider that shows a sign-in, written in any language: set it
 * as #WvhInteractiveParameters:selection-policy and every call made with those parameters asks
 * it, and only those calls (other calls, running at the same time or later, keep their own
 * choice). It is the Swift API's `WebviewSelectionPolicy` for one call.
 *
 * The library calls #WvhSelectionPolicyInterface.select_provider once per call, on the main
 * thread, from the main loop the app runs, when it chooses the provider (after the identity
 * provider's discovery, before anything is shown). It must return at once (never run a main
 * loop of its own). Its answer:
 *
 * - a registered provider's id: that provider runs the sign-in, as if
 *   #WvhInteractiveParameters:provider-id named it (an id that is not registered, a provider
 *   that cannot run here, or one that cannot show a #WvhInteractiveParameters:custom-webview
 *   fails the call with %WVH_ERROR_PROVIDER_UNAVAILABLE or %WVH_ERROR_INVALID_PARAMETERS, the
 *   message naming the id);
 * - %NULL: the default policy chooses, from #WvhInteractiveParameters:webview-type and
 *   #WvhInteractiveParameters:provider-id, as without a policy;
 * - %NULL with @error set (in Python, raising `GLib.Error`): the call fails with that message,
 *   as %WVH_ERROR_INVALID_PARAMETERS when @error is that code of %WVH_ERROR, else as
 *   %WVH_ERROR_PROVIDER_UNAVAILABLE. Nothing is shown.
 *
 * In Python:
 *
 * ```python
 * class KioskFirst(GObject.Object, WebviewHost.SelectionPolicy):
 *     def do_select_provider(self, parameters, providers):
 *         if any(p.props.id == "kiosk" and p.props.available for p in providers):
 *             return "kiosk"
 *         return None                    # the default policy's choice
 * ```
 */

G_DEFINE_INTERFACE (WvhSelectionPolicy, wvh_selection_policy, G_TYPE_OBJECT)

static void
wvh_selection_policy_default_init (WvhSelectionPolicyInterface *iface)
{
}

/**
 * wvh_selection_policy_select_provider:
 * @self: the policy
 * @parameters: the parameters of the call
 * @providers: (element-type WvhProviderInfo): the registered providers, highest priority first
 * @error: why the sign-in cannot run
 *
 * Asks @self for the provider of a call made with @parameters (the library does this itself;
 * an app calls it to test its own policy). A policy without #WvhSelectionPolicyInterface.select_provider
 * leaves the choice to the default policy.
 *
 * Returns: (transfer full) (nullable): the chosen provider's id; %NULL for the default choice,
 *   or %NULL with @error set when the policy refuses the sign-in.
 */
char *
wvh_selection_policy_select_provider (WvhSelectionPolicy *self, WvhInteractiveParameters *parameters, GPtrArray *providers,
                                      GError **error)
{
  g_return_val_if_fail (WVH_IS_SELECTION_POLICY (self), NULL);
  g_return_val_if_fail (WVH_IS_INTERACTIVE_PARAMETERS (parameters), NULL);
  g_return_val_if_fail (providers != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);
  WvhSelectionPolicyInterface *iface = WVH_SELECTION_POLICY_GET_IFACE (self);
  if (iface->select_provider == NULL)
    return NULL;
  return iface->select_provider (self, parameters, providers, error);
}
