// A GJS GTK 4 app whose sign-in leaves the embedded view, through WebviewHost's GObject layer
// (WebviewHost-4.0, from GI_TYPELIB_PATH); prints each application's signals, in order, as JSON.
// The modes are switch.py's:
//   gjs switch.js browser CLIENT_ID ISSUER
//     the person clicks "Continue in your browser" in the library's window once the login page
//     loaded; the desktop's (scripted) browser signs in: will-switch-to-system-browser, then
//     did-complete and the tokens
//   gjs switch.js broker
//     an authority of this script's own (a libsoup server on 127.0.0.1) whose page goes to
//     msauth://... by its own timer: will-switch-to-broker-app with that URI; the app cancels
//   Both: a second application, idle in the same process, records every signal it gets (none).
imports.gi.versions.Gtk = '4.0';
imports.gi.versions.WebKit = '6.0';
imports.gi.versions.Soup = '3.0';
imports.gi.versions.WebviewHost = '4.0';
const { Gio, GLib, Gtk, Soup, WebviewHost } = imports.gi;

Gio._promisify(WebviewHost.PublicClientApplication.prototype, 'acquire_token_async', 'acquire_token_finish');

const mode = ARGV[0];
const REDIRECT = 'http://127.0.0.1:23685/embedded-callback';
const BROKER_URI = 'msauth://enroll?cpurl=https%3A%2F%2Fportal.example.com';
const SIGNALS = ['did-start-load', 'did-finish-load', 'did-complete', 'did-fail',
    'will-switch-to-system-browser', 'will-switch-to-broker-app'];

Gtk.init();
const loop = GLib.MainLoop.new(null, false);
const report = { mode, signals: { A: [], B: [] } };
const cancellable = new Gio.Cancellable();

// The server is kept at the top level: a block's const would be collected, and the server with it.
let clientId, issuer, server = null, port = 0;
if (mode === 'broker') {
    server = new Soup.Server();
    server.add_handler(null, (_server, message, path) => {
        const base = `http://127.0.0.1:${port}`;
        const [body, type] = path === '/.well-known/openid-configuration'
            ? [JSON.stringify({
                issuer: base, authorization_endpoint: `${base}/authorize`, token_endpoint: `${base}/token`,
                jwks_uri: `${base}/keys`, response_types_supported: ['code'], subject_types_supported: ['public'],
                id_token_signing_alg_values_supported: ['RS256'],
            }), 'application/json']
            : ['<!doctype html><title>Use the app</title><p>Opening the Authenticator app...</p>' +
               `<script>setTimeout(() => { location.href = ${JSON.stringify(BROKER_URI)}; }, 300);</script>`, 'text/html'];
        message.set_status(path === '/.well-known/openid-configuration' || path === '/authorize' ? 200 : 404, null);
        message.set_response(type, Soup.MemoryUse.COPY, new TextEncoder().encode(body));
    });
    server.listen_local(0, Soup.ServerListenOptions.IPV4_ONLY);
    port = server.get_uris()[0].get_port();
    [clientId, issuer] = ['switch-app', `http://127.0.0.1:${port}`];
    report.brokerURI = BROKER_URI;
} else {
    [clientId, issuer] = ARGV.slice(1, 3);
}

/** The widget and everything inside it (a GTK 4 window's title bar is one of its children). */
function* widgets(widget) {
    yield widget;
    for (let child = widget.get_first_child(); child; child = child.get_next_sibling())
        yield* widgets(child);
}

/** The person's click on the library's window's "Continue in your browser". */
function clickContinueInBrowser(view) {
    const window = view.get_root();
    for (const widget of widgets(window)) {
        if (widget instanceof Gtk.Button && widget.get_visible() &&
            (widget.get_label() ?? '').replaceAll('_', '') === 'Continue in your browser') {
            report.clickedIn = window.get_title();
            widget.emit('clicked');
            return;
        }
    }
    report.buttons = [...widgets(window)].filter(w => w instanceof Gtk.Button).map(w => w.get_label());
}

const apps = {};
for (const name of ['A', 'B']) {
    const app = new WebviewHost.PublicClientApplication({
        client_id: clientId, authority: issuer, redirect_uri: REDIRECT, token_cache: 'memory',
    });
    app.init(null);
    // did-start-load, did-finish-load and did-complete carry (url, view), did-fail (error, view),
    // the will-switch-* signals (url).
    for (const signal of SIGNALS) {
        app.connect(signal, (_app, detail, view) => {
            const shown = ['did-start-load', 'did-finish-load'].includes(signal) ? signal
                : `${signal} ${detail instanceof GLib.Error ? detail.code : detail}`;
            report.signals[name].push(shown);
            if (name !== 'A')
                return;
            if (signal === 'did-finish-load' && mode === 'browser' && view && report.clickedIn === undefined) {
                report.clickedOn = detail.split('?')[0];
                clickContinueInBrowser(view);
            }
            if (signal === 'will-switch-to-broker-app')
                GLib.idle_add(GLib.PRIORITY_DEFAULT, () => { cancellable.cancel(); return GLib.SOURCE_REMOVE; });
        });
    }
    apps[name] = app;
}

const parameters = new WebviewHost.InteractiveParameters({
    scopes: ['openid', 'profile', 'email', 'offline_access'], webview_type: WebviewHost.WebviewType.EMBEDDED, timeout: 120,
});
apps.A.acquire_token_async(parameters, cancellable).then(tokens => {
    report.outcome = 'success';
    report.username = tokens.account.username;
}).catch(error => {
    report.outcome = 'error';
    report.error = { domain: GLib.quark_to_string(error.domain), code: error.code, message: error.message };
    report.isCancelled = error.matches(Gio.io_error_quark(), Gio.IOErrorEnum.CANCELLED);
}).finally(() => {
    report.visibleWindows = Gtk.Window.list_toplevels().filter(w => w.visible).map(w => w.title);
    print(JSON.stringify(report));
    loop.quit();
});
GLib.timeout_add_seconds(GLib.PRIORITY_DEFAULT, 170, () => {
    report.outcome = 'timeout';
    print(JSON.stringify(report));
    loop.quit();
    return GLib.SOURCE_REMOVE;
});
loop.run();
