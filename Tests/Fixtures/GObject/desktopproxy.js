// A GJS GTK 4 app whose own view signs in behind the desktop's proxy when that proxy's URI
// carries a user name and password (the test sets http_proxy=http://user:password@127.0.0.1:PORT):
// WebviewHost.use_desktop_proxy(view), then a WebAuthSession in that view (custom_webview) for an
// authorization page this script serves on 127.0.0.1, which redirects at once. Prints JSON.
//   gjs desktopproxy.js
imports.gi.versions.Gtk = '4.0';
imports.gi.versions.WebKit = '6.0';
imports.gi.versions.Soup = '3.0';
imports.gi.versions.WebviewHost = '4.0';
const { Gio, GLib, Gtk, Soup, WebKit, WebviewHost } = imports.gi;

Gio._promisify(WebviewHost.WebAuthSession.prototype, 'start_async', 'start_finish');

const REDIRECT = 'http://127.0.0.1:23686/session-callback';
Gtk.init();
const loop = GLib.MainLoop.new(null, false);
const report = { signals: [] };

const server = new Soup.Server();
server.add_handler('/authorize', (_server, message) => {
    message.set_status(302, null);
    message.get_response_headers().append('Location', `${REDIRECT}?code=through-the-proxy&state=s`);
});
server.listen_local(0, Soup.ServerListenOptions.IPV4_ONLY);
const port = server.get_uris()[0].get_port();

const window = new Gtk.Window({ title: "An app's own view" });
const view = new WebKit.WebView();
window.set_child(view);
window.present();
report.applied = WebviewHost.use_desktop_proxy(view);

const session = new WebviewHost.WebAuthSession({
    authorization_url: `http://127.0.0.1:${port}/authorize`, redirect_uri: REDIRECT,
    parameters: new WebviewHost.InteractiveParameters({ webview_type: WebviewHost.WebviewType.EMBEDDED, custom_webview: view, timeout: 60 }),
});
session.connect('did-fail', (_session, error) => report.signals.push(`did-fail ${error.message}`));
session.connect('did-complete', () => report.signals.push('did-complete'));

session.start_async(null).then(url => {
    report.outcome = 'success';
    report.url = url;
}).catch(error => {
    report.outcome = 'error';
    report.error = error.message;
}).finally(() => {
    print(JSON.stringify(report));
    loop.quit();
});
GLib.timeout_add_seconds(GLib.PRIORITY_DEFAULT, 90, () => {
    report.outcome = 'timeout';
    print(JSON.stringify(report));
    loop.quit();
    return GLib.SOURCE_REMOVE;
});
loop.run();
