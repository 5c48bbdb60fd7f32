// A GJS GTK 4 app whose own WebviewHost.SelectionPolicy (WebviewHost-4.0), written in JavaScript,
// puts an AUTHENTICATION_SESSION call (the person's browser, which the test desktop lacks) in the
// library's embedded window, where the autopilot signs in; prints what it saw as JSON.
//   gjs policy.js CLIENT_ID ISSUER USERNAME PASSWORD
imports.gi.versions.Gtk = '4.0';
imports.gi.versions.WebKit = '6.0';
imports.gi.versions.WebviewHost = '4.0';
const { Gio, GLib, GObject, Gtk, WebviewHost } = imports.gi;
const System = imports.system;

Gio._promisify(WebviewHost.PublicClientApplication.prototype, 'acquire_token_async', 'acquire_token_finish');

const [clientId, issuer, username, password] = ARGV;
const here = GLib.path_get_dirname(System.programInvocationName);
const [, bytes] = GLib.file_get_contents(GLib.build_filenamev([here, '..', 'Glewlwyd', 'autopilot.js']));
const script = new TextDecoder().decode(bytes)
    .replace('__USERNAME__', JSON.stringify(username))
    .replace('__PASSWORDS__', JSON.stringify([password]))
    .replace('__ON_LOGOUT__', 'return;');

Gtk.init();
const loop = GLib.MainLoop.new(null, false);
const report = { asked: 0 };
let parameters = null;
const kept = [];

const EmbeddedFirst = GObject.registerClass({ Implements: [WebviewHost.SelectionPolicy] },
    class EmbeddedFirst extends GObject.Object {
        vfunc_select_provider(callParameters, providers) {
            report.asked += 1;
            if (report.asked === 1) {  // the call's own; the invoker's below is counted only
                report.sawParameters = callParameters === parameters;
                report.providerIDs = providers.map(provider => provider.id);
            }
            // Each provider's getters against its properties; the list kept past this call.
            report.getterMismatches = (report.getterMismatches ?? []).concat(providers.filter(p =>
                JSON.stringify([p.get_id(), p.get_display_name(), p.get_kind(), p.get_priority(), p.get_available(),
                    p.get_unavailable_reason(), p.get_supports_custom_webview(), p.get_requires_display()]) !==
                JSON.stringify([p.id, p.display_name, p.kind, p.priority, p.available,
                    p.unavailable_reason, p.supports_custom_webview, p.requires_display])).map(p => p.id));
            kept.push(...providers);
            const embedded = providers.find(provider => provider.kind === WebviewHost.ProviderKind.EMBEDDED_VIEW && provider.available);
            return embedded ? embedded.id : null;
        }
    });

const app = new WebviewHost.PublicClientApplication({
    client_id: clientId, authority: issuer, redirect_uri: 'http://127.0.0.1:23685/embedded-callback', token_cache: 'memory',
});
app.init(null);
app.connect('did-finish-load', (_app, url, view) => {
    if (!view)
        return;
    report.viewTitle = view.get_root()?.get_title();
    view.evaluate_javascript(script, -1, null, null, null, null);
});

parameters = new WebviewHost.InteractiveParameters({
    scopes: ['openid', 'profile', 'email', 'offline_access'], webview_type: WebviewHost.WebviewType.AUTHENTICATION_SESSION,
    timeout: 120, window_title: "Signed in by the policy's choice", selection_policy: new EmbeddedFirst(),
});

async function main() {
    try {
        const tokens = await app.acquire_token_async(parameters, null);
        report.outcome = 'success';
        report.username = tokens.account.username;
        // The interface's invoker (select_provider) from JavaScript, with the providers the
        // call's policy got, kept past that call and collected around.
        System.gc();
        const direct = new EmbeddedFirst();
        const before = report.asked;
        report.invoked = { chosen: direct.select_provider(new WebviewHost.InteractiveParameters(), kept) };
        report.invoked.asked = report.asked - before;
        System.gc();
        report.invoked.ids = [...new Set(kept.map(p => p.get_id()))].sort();
    } catch (error) {
        report.outcome = 'error';
        report.error = { domain: GLib.quark_to_string(error.domain), code: error.code, message: error.message };
    }
    print(JSON.stringify(report));
    loop.quit();
}

main();
GLib.timeout_add_seconds(GLib.PRIORITY_DEFAULT, 170, () => { report.outcome = 'timeout'; print(JSON.stringify(report)); loop.quit(); });
loop.run();
