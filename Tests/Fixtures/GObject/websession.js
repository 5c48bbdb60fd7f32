// A GJS GTK 4 app that runs the lower level of WebviewHost's GObject layer (WebviewHost-4.0, from
// GI_TYPELIB_PATH), a WebviewHost.WebAuthSession promisified, for an authorization page a
// libsoup server of this script serves on 127.0.0.1 (its own timer sends the person on to the
// redirect URI), and prints what it saw as JSON.
//   gjs websession.js [denied|cancel|desktop-proxy]
//     denied: the page redirects with error=access_denied, which the session returns as the URL
//             reached (it does no OAuth)
//     desktop-proxy: in the app's own view (a window of its own) given
//             WebviewHost.use_desktop_proxy(view) first: the test sets http_proxy with a user name
//             and password, which the view's first 407 is answered with (applied: what it returned)
//     cancel: the page never redirects; the app calls the session's cancel() once it showed
imports.gi.versions.Gtk = '4.0';
imports.gi.versions.WebKit = '6.0';
imports.gi.versions.Soup = '3.0';
imports.gi.versions.WebviewHost = '4.0';
const { Gio, GLib, Gtk, Soup, WebKit, WebviewHost } = imports.gi;

Gio._promisify(WebviewHost.WebAuthSession.prototype, 'start_async', 'start_finish');

const REDIRECT = 'http://127.0.0.1:23686/session-callback';
const CALLBACK = ARGV[0] === 'denied'
    ? `${REDIRECT}?error=access_denied&error_description=Not+this+time&state=the-state`
    : `${REDIRECT}?code=the-code&state=the-state`;

Gtk.init();
const loop = GLib.MainLoop.new(null, false);
const report = { signals: [] };

const server = new Soup.Server();
server.add_handler('/authorize', (_server, message) => {
    const page = ARGV[0] === 'cancel'
        ? '<!doctype html><title>Authorize</title><p>Waiting for the person.</p>'
        : `<!doctype html><title>Authorize</title><script>setTimeout(() => { location.href = ${JSON.stringify(CALLBACK)}; }, 300);</script>`;
    message.set_status(200, null);
    message.set_response('text/html', Soup.MemoryUse.COPY, new TextEncoder().encode(page));
});
server.listen_local(0, Soup.ServerListenOptions.IPV4_ONLY);
const port = server.get_uris()[0].get_port();

const parameters = new WebviewHost.InteractiveParameters({ webview_type: WebviewHost.WebviewType.EMBEDDED, timeout: 120 });
if (ARGV[0] === 'desktop-proxy') {
    const ownWindow = new Gtk.Window({ title: "An app's own view" });
    const ownView = new WebKit.WebView();
    ownWindow.set_child(ownView);
    ownWindow.present();
    report.applied = WebviewHost.use_desktop_proxy(ownView);
    parameters.custom_webview = ownView;
}
const session = new WebviewHost.WebAuthSession({
    authorization_url: `http://127.0.0.1:${port}/authorize`, redirect_uri: REDIRECT, parameters,
});
session.connect('did-start-load', () => report.signals.push('did-start-load'));
session.connect('did-finish-load', (_session, _url, view) => {
    report.signals.push('did-finish-load');
    report.viewIsWebKit = view instanceof WebKit.WebView;
    if (ARGV[0] === 'cancel' && view && report.cancelledOn === undefined) {
        report.cancelledOn = _url;
        session.cancel();
    }
});
session.connect('did-complete', () => report.signals.push('did-complete'));
session.connect('did-fail', (_session, error) => report.signals.push(`did-fail ${error.message}`));

session.start_async(null).then(url => {
    report.outcome = 'success';
    report.url = url;
}).catch(error => {
    report.outcome = 'error';
    report.error = error.message;
    report.isCanceled = error.matches(WebviewHost.error_quark(), WebviewHost.Error.CANCELED);
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
