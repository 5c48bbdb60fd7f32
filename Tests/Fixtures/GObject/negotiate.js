// A GJS GTK 4 app at work, through WebviewHost's GObject layer (WebviewHost-4.0): negotiate.py's
// steps. Its intranet sign-in page asks for the person's Kerberos ticket over plain http, so the
// app names it with WebviewHost.allow_negotiate first thing; prewarms the library's window; then
// signs in with the lower level (WebviewHost.WebAuthSession, promisified). Prints JSON.
//   gjs negotiate.js BASE      (the page's http origin; the test gives KRB5_CONFIG and KRB5CCNAME)
imports.gi.versions.Gtk = '4.0';
imports.gi.versions.WebKit = '6.0';
imports.gi.versions.WebviewHost = '4.0';
const { Gio, GLib, Gtk, WebviewHost } = imports.gi;

Gio._promisify(WebviewHost.WebAuthSession.prototype, 'start_async', 'start_finish');

const [base] = ARGV;
const REDIRECT = 'http://127.0.0.1:23688/intranet-callback';
Gtk.init();
const loop = GLib.MainLoop.new(null, false);
const report = {};

function allow(origins) {
    try {
        return { added: WebviewHost.allow_negotiate(origins) };
    } catch (error) {
        return { error: { domain: GLib.quark_to_string(error.domain), code: error.code, message: error.message } };
    }
}

// At the start of the app, before any web view: a wrong origin is refused (nothing added), then the intranet's.
report.refused = allow([base, 'ftp://intranet.example.com']);
report.allowed = allow([base]);

const app = new WebviewHost.PublicClientApplication({
    client_id: 'intranet-app', authority: base, redirect_uri: REDIRECT, token_cache: 'memory',
});
app.init(null);
const embedded = new WebviewHost.InteractiveParameters({ webview_type: WebviewHost.WebviewType.EMBEDDED, timeout: 120 });
report.prewarmed = app.prewarm(embedded);
// WebKit's network process now runs: the list can no longer reach it.
report.late = allow([base]);

const query = `redirect_uri=${encodeURIComponent(REDIRECT)}&state=intranet-state`;
const session = new WebviewHost.WebAuthSession({
    authorization_url: `${base}/authorize?${query}`, redirect_uri: REDIRECT, parameters: embedded,
});
session.start_async(null).then(url => {
    report.outcome = 'success';
    report.url = url;
}).catch(error => {
    report.outcome = 'error';
    report.error = { domain: GLib.quark_to_string(error.domain), code: error.code, message: error.message };
}).finally(() => {
    report.visibleWindows = Gtk.Window.list_toplevels().filter(w => w.visible).map(w => w.title);
    print(JSON.stringify(report));
    loop.quit();
});
GLib.timeout_add_seconds(GLib.PRIORITY_DEFAULT, 150, () => {
    report.outcome = 'timeout';
    print(JSON.stringify(report));
    loop.quit();
    return GLib.SOURCE_REMOVE;
});
loop.run();
