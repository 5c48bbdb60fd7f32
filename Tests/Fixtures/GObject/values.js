// A GJS GTK 4 app that uses the GObject layer's values (WebviewHost-4.0) without signing in, under
// G_DEBUG=fatal-criticals: every property of WvhInteractiveParameters set (the object ones from
// objects of its own: a Gtk.Window, a WebKit.WebView, a JavaScript WvhSelectionPolicy), dropped
// from JavaScript's side and collected, read back twice; an application's construct properties
// read back; the error domain; a JavaScript provider registered and unregistered both ways.
// Prints what it read as JSON; a wrong annotation aborts it.
//   gjs values.js
imports.gi.versions.Gtk = '4.0';
imports.gi.versions.WebKit = '6.0';
imports.gi.versions.WebviewHost = '4.0';
const { GLib, GObject, Gtk, WebKit, WebviewHost } = imports.gi;
const System = imports.system;

Gtk.init();
const report = {};

const Policy = GObject.registerClass({ Implements: [WebviewHost.SelectionPolicy] },
    class Policy extends GObject.Object {
        vfunc_select_provider(_parameters, _providers) {
            return null;
        }
    });

const Provider = GObject.registerClass({ Implements: [WebviewHost.WebviewProvider] },
    class Provider extends GObject.Object {
        vfunc_is_available() {
            return [true, null];
        }

        vfunc_start(session) {
            session.fail(WebviewHost.Error.PROVIDER_UNAVAILABLE, 'not used');
        }
    });

/** Parameters whose object properties are the only references to their objects once it returns. */
function made() {
    const parameters = new WebviewHost.InteractiveParameters();
    const window = new Gtk.Window({ title: 'values' });
    parameters.scopes = ['openid', 'profile', 'offline_access'];
    parameters.login_hint = 'alice@example.com';
    parameters.prompt = 'select_account';
    parameters.webview_type = WebviewHost.WebviewType.EMBEDDED;
    parameters.parent_window = window;
    parameters.custom_webview = new WebKit.WebView();
    parameters.window_title = 'Sign in to Values';
    parameters.window_width = 640;
    parameters.window_height = 480;
    parameters.timeout = 42.5;
    parameters.ephemeral = true;
    parameters.security_keys = false;
    parameters.security_keys_in_custom_webview = true;
    parameters.provider_id = 'values-provider';
    parameters.selection_policy = new Policy();
    return [parameters, window];
}

function read(parameters) {
    return {
        'scopes': [...parameters.scopes],
        'login-hint': parameters.login_hint,
        'prompt': parameters.prompt,
        'webview-type': parameters.webview_type,
        'parent-window': parameters.parent_window ? parameters.parent_window.get_title() : null,
        'custom-webview': parameters.custom_webview ? parameters.custom_webview.constructor.$gtype.name : null,
        'window-title': parameters.window_title,
        'window-width': parameters.window_width,
        'window-height': parameters.window_height,
        'timeout': parameters.timeout,
        'ephemeral': parameters.ephemeral,
        'security-keys': parameters.security_keys,
        'security-keys-in-custom-webview': parameters.security_keys_in_custom_webview,
        'provider-id': parameters.provider_id,
        'selection-policy': parameters.selection_policy ? parameters.selection_policy.constructor.$gtype.name : null,
    };
}

const fresh = new WebviewHost.InteractiveParameters();
report['security-key-defaults'] = [fresh.security_keys, fresh.security_keys_in_custom_webview];
const [parameters, window] = made();
System.gc();
report['parameters'] = read(parameters);
System.gc();
report['parameters-again'] = read(parameters);
const cleared = ['parent_window', 'custom_webview', 'selection_policy', 'login_hint', 'provider_id'];
for (const name of cleared)
    parameters[name] = null;
System.gc();
report['parameters-cleared'] = cleared.map(name => parameters[name] === null);
window.destroy();

const app = new WebviewHost.PublicClientApplication({
    client_id: 'values-client', authority: 'https://login.example.com/tenant', redirect_uri: 'http://127.0.0.1/callback',
    token_cache: 'memory', network_proxy: 'http://127.0.0.1:3128',
});
System.gc();
report['application'] = Object.fromEntries(
    ['client-id', 'authority', 'redirect-uri', 'token-cache', 'network-proxy'].map(name => [name, app[name.replaceAll('-', '_')]]));

report['error-domain'] = GLib.quark_to_string(WebviewHost.error_quark());

const provider = new Provider();
const KIND = WebviewHost.ProviderKind.SYSTEM_BROWSER;
report['registered'] = provider.register('values-provider', 'Values', KIND, 10, false);
report['unregistered'] = WebviewHost.webview_provider_unregister('values-provider');
report['unregistered-again'] = WebviewHost.webview_provider_unregister('values-provider');
provider.register('values-provider', 'Values', KIND, 10, false);
report['unregistered-by-method'] = WebviewHost.WebviewProvider.unregister('values-provider');
System.gc();

print(JSON.stringify(report));
