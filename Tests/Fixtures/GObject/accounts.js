// A GJS GTK 4 app that does what every app does in its first week with WebviewHost's GObject
// layer (WebviewHost-4.0, from GI_TYPELIB_PATH), under G_DEBUG=fatal-criticals so that a wrong
// annotation aborts it, and prints what it saw as JSON. Every object the layer returns is kept
// across System.gc(), read again and passed back in.
//   gjs accounts.js MODE CACHE CLIENT_ID ISSUER USERNAME PASSWORD
//     first    signs in in the library's window (token cache: the file CACHE), lists the
//              accounts, reads them after System.gc(), renews silently with the listed account
//     restart  a new process over the same CACHE: lists, reads after System.gc(), renews
//              silently with the account, signs it out, lists none
imports.gi.versions.Gtk = '4.0';
imports.gi.versions.WebKit = '6.0';
imports.gi.versions.WebviewHost = '4.0';
const { Gio, GLib, Gtk, WebviewHost } = imports.gi;
const System = imports.system;

for (const [call, finish] of [['acquire_token_async', 'acquire_token_finish'], ['acquire_token_silent_async', 'acquire_token_silent_finish'],
    ['get_accounts_async', 'get_accounts_finish'], ['sign_out_async', 'sign_out_finish']])
    Gio._promisify(WebviewHost.PublicClientApplication.prototype, call, finish);

const [mode, cache, clientId, issuer, username, password] = ARGV;
const SCOPES = ['openid', 'profile', 'email', 'offline_access'];
const here = GLib.path_get_dirname(System.programInvocationName);
const [, bytes] = GLib.file_get_contents(GLib.build_filenamev([here, '..', 'Glewlwyd', 'autopilot.js']));
const script = new TextDecoder().decode(bytes)
    .replace('__USERNAME__', JSON.stringify(username))
    .replace('__PASSWORDS__', JSON.stringify([password]))
    .replace('__ON_LOGOUT__', 'return;');

Gtk.init();
const loop = GLib.MainLoop.new(null, false);
const report = { mode, listings: [] };

const app = new WebviewHost.PublicClientApplication({
    client_id: clientId, authority: issuer, redirect_uri: 'http://127.0.0.1:23685/embedded-callback', token_cache: `file:${cache}`,
});
app.init(null);
app.connect('did-finish-load', (_app, _url, view) => {
    if (view)
        view.evaluate_javascript(script, -1, null, null, null, null);
});

const facts = account => ({
    identifier: account.identifier, username: account.username, subject: account.subject, issuer: account.issuer,
    getters: [account.get_identifier(), account.get_username(), account.get_subject(), account.get_issuer()],
});

async function listed() {
    let accounts = await app.get_accounts_async(null);
    const first = accounts.map(facts);
    System.gc();
    const again = accounts.map(facts);
    const kept = accounts[0] ?? null;
    accounts = null;
    System.gc();
    report.listings.push({ first, again, keptAfterGC: kept ? facts(kept) : null });
    return kept;
}

async function renew(account) {
    const tokens = await app.acquire_token_silent_async(account, SCOPES, true, null);
    System.gc();
    report.silent = { username: tokens.account.username, hasAccessToken: tokens.access_token.length > 0, scopes: tokens.get_scopes() };
}

async function main() {
    try {
        if (mode === 'first') {
            const parameters = new WebviewHost.InteractiveParameters({ scopes: SCOPES, webview_type: WebviewHost.WebviewType.EMBEDDED, timeout: 120 });
            let tokens = await app.acquire_token_async(parameters, null);
            report.signedInAs = tokens.account.username;
            tokens = null;
            System.gc();
            const account = await listed();
            if (account)
                await renew(account);
        } else {
            const account = await listed();
            if (account) {
                await renew(account);
                System.gc();
                report.accountAfterSilent = facts(account);
                report.signedOut = await app.sign_out_async(account, false, null, null);
                report.leftAfterSignOut = (await listed()) !== null;
            }
        }
        report.outcome = 'done';
    } catch (error) {
        report.outcome = 'error';
        report.error = { domain: error.domain ? GLib.quark_to_string(error.domain) : null, code: error.code, message: error.message };
    }
    print(JSON.stringify(report));
    loop.quit();
}

main();
GLib.timeout_add_seconds(GLib.PRIORITY_DEFAULT, 200, () => { report.outcome = 'timeout'; print(JSON.stringify(report)); loop.quit(); });
loop.run();
