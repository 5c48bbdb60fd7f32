// A GJS GTK 4 app that signs in through WebviewHost's GObject layer (WebviewHost-4.0, from
// GI_TYPELIB_PATH) in the library's window, with the async calls promisified as GJS apps do,
// and prints what it saw as JSON.
//   gjs signin.js CLIENT_ID ISSUER USERNAME PASSWORD
imports.gi.versions.Gtk = '4.0';
imports.gi.versions.WebKit = '6.0';
imports.gi.versions.WebviewHost = '4.0';
const { Gio, GLib, Gtk, WebviewHost } = imports.gi;
const System = imports.system;

Gio._promisify(WebviewHost.PublicClientApplication.prototype, 'acquire_token_async', 'acquire_token_finish');
Gio._promisify(WebviewHost.PublicClientApplication.prototype, 'acquire_token_silent_async', 'acquire_token_silent_finish');

const [clientId, issuer, username, password] = ARGV;
const SCOPES = ['openid', 'profile', 'email', 'offline_access'];
const here = GLib.path_get_dirname(System.programInvocationName);
const [, bytes] = GLib.file_get_contents(GLib.build_filenamev([here, '..', 'Glewlwyd', 'autopilot.js']));
const script = new TextDecoder().decode(bytes)
    .replace('__USERNAME__', JSON.stringify(username))
    .replace('__PASSWORDS__', JSON.stringify([password]))
    .replace('__ON_LOGOUT__', 'return;');

Gtk.init();
const loop = GLib.MainLoop.new(null, false);
const report = { signals: [] };

const app = new WebviewHost.PublicClientApplication({
    client_id: clientId, authority: issuer, redirect_uri: 'http://127.0.0.1:23685/embedded-callback', token_cache: 'memory',
});
app.init(null);
app.connect('did-start-load', () => report.signals.push('did-start-load'));
app.connect('did-complete', () => report.signals.push('did-complete'));
app.connect('did-fail', (_app, error) => report.signals.push(`did-fail ${error.message}`));
app.connect('did-finish-load', (_app, url, view) => {
    report.signals.push('did-finish-load');
    report.viewTitle = view ? view.get_root()?.get_title() : null;
    if (view)
        view.evaluate_javascript(script, -1, null, null, null, null);
});

const parameters = new WebviewHost.InteractiveParameters({
    scopes: SCOPES, webview_type: WebviewHost.WebviewType.EMBEDDED, timeout: 120, window_title: 'Sign in to the GJS app',
});

/** Every getter of the result and its account, read after the collector ran, against its property. */
function resultSurface(tokens) {
    const account = tokens.get_account();
    System.gc();
    const pairs = {
        access_token: [tokens.get_access_token(), tokens.access_token],
        id_token: [tokens.get_id_token(), tokens.id_token],
        expires_on: [tokens.get_expires_on(), tokens.expires_on],
        scopes: [JSON.stringify(tokens.get_scopes()), JSON.stringify(tokens.scopes)],
        has_refresh_token: [tokens.get_has_refresh_token(), tokens.has_refresh_token],
        identifier: [account.get_identifier(), account.identifier],
        username: [account.get_username(), account.username],
        name: [account.get_name(), account.name],
        subject: [account.get_subject(), account.subject],
        issuer: [account.get_issuer(), account.issuer],
    };
    System.gc();
    return {
        differing: Object.keys(pairs).filter(name => pairs[name][0] !== pairs[name][1]),
        empty: Object.keys(pairs).filter(name => [null, '', '[]'].includes(pairs[name][0])),
        idTokenParts: (tokens.get_id_token() ?? '').split('.').length,
        expiresInFuture: tokens.get_expires_on() > Date.now() / 1000,
        issuer: account.get_issuer(),
    };
}

async function main() {
    try {
        const tokens = await app.acquire_token_async(parameters, null);
        report.outcome = 'success';
        report.username = tokens.account.username;
        report.subject = tokens.account.subject;
        report.scopes = tokens.scopes;
        report.hasRefreshToken = tokens.has_refresh_token;
        report.resultSurface = resultSurface(tokens);
        const renewed = await app.acquire_token_silent_async(tokens.account, SCOPES, true, null);
        report.silentDiffers = renewed.access_token !== tokens.access_token;
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
