// A selection policy written in Vala (WebviewHost-4.0's .vapi), asked through the library's
// wvh_selection_policy_select_provider as the library asks it; prints its answers as JSON.
//   valac --pkg webviewhost-gtk4 policy.vala && ./policy
class KioskFirst : Object, WebviewHost.SelectionPolicy {
    public int asked = 0;

    public string? select_provider (WebviewHost.InteractiveParameters parameters,
                                    GenericArray<WebviewHost.ProviderInfo> providers) throws Error {
        asked++;
        foreach (var provider in providers.data) {
            if (provider.get_id () == "kiosk" && provider.get_available ())
                return "kiosk";
        }
        if (parameters.provider_id == "kiosk-only")
            throw new WebviewHost.Error.PROVIDER_UNAVAILABLE ("This terminal signs in at the kiosk only.");
        return null;
    }
}

int main (string[] args) {
    var policy = new KioskFirst ();
    var parameters = new WebviewHost.InteractiveParameters ();
    parameters.selection_policy = policy;
    var none = new GenericArray<WebviewHost.ProviderInfo> ();
    string? chosen = "unset", refused = null;
    try {
        chosen = ((WebviewHost.SelectionPolicy) parameters.selection_policy).select_provider (parameters, none);
        parameters.provider_id = "kiosk-only";
        policy.select_provider (parameters, none);
    } catch (WebviewHost.Error error) {
        refused = "%s %d %s".printf (error.domain.to_string (), error.code, error.message);
    } catch (Error error) {
        refused = "another domain: " + error.message;
    }
    print ("{\"chosen\": %s, \"refused\": \"%s\", \"asked\": %d}\n", chosen == null ? "null" : "\"" + chosen + "\"",
           refused ?? "", policy.asked);
    return 0;
}
