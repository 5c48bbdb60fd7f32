// A web user agent written in JavaScript (GJS, GTK 4, WebviewHost-4.0), registered through
// introspection as a system-browser provider of a high priority, so that the default selection
// policy chooses it; then a sign-in through it. Its "browser" is Tests/Fixtures/Glewlwyd/
// browser_signin.py, run without blocking the main loop. It uses its session from JavaScript:
// did_start_load, did_finish_load, complete, is_finished, the getters, a second outcome (ignored)
// and dismiss, and collects garbage between them. Prints what it saw as JSON.
//   gjs provider.js CLIENT_ID ISSUER USERNAME PASSWORD
imports.gi.versions.Gtk = '4.0';
imports.gi.versions.WebviewHost = '4.0';
const { Gio, GLib, GObject, Gtk, WebviewHost } = imports.gi;
const System = imports.system;

Gio._promisify(WebviewHost.PublicClientApplication.prototype, 'acquire_token_async', 'acquire_token_finish');

const [clientId, issuer, username, password] = ARGV;
const here = GLib.path_get_dirname(System.programInvocationName);
const browserScript = GLib.build_filenamev([here, '..', 'Glewlwyd', 'browser_signin.py']);

Gtk.init();
const loop = GLib.MainLoop.new(null, false);
const report = { signals: [], providerCalls: [] };
let started = null;

const ScriptedBrowser = GObject.registerClass({ Implements: [WebviewHost.WebviewProvider] },
    class ScriptedBrowser extends GObject.Object {
        vfunc_is_available() {
            report.providerCalls.push('is_available');
            return [true, null];
        }

        vfunc_start(session) {
            report.providerCalls.push('start');
            started = session;
            const url = session.get_authorization_url();
            report.redirectURI = session.get_redirect_uri();
            report.sessionGettersAgree = url === session.authorization_url && report.redirectURI === session.redirect_uri;
            session.did_start_load(url);
            const process = Gio.Subprocess.new(
                ['/usr/bin/python3', browserScript, '--print-only', '-u', username, '-p', password, url],
                Gio.SubprocessFlags.STDOUT_PIPE | Gio.SubprocessFlags.STDERR_PIPE);
            process.communicate_utf8_async(null, null, (_process, result) => {
                const [, out, err] = process.communicate_utf8_finish(result);
                const lines = (out ?? '').split('\n').filter(line => line.startsWith('REDIRECT_URL='));
                System.gc();
                if (lines.length === 0) {
                    session.fail(WebviewHost.Error.NETWORK, `the scripted browser did not sign in: ${(err ?? '').slice(-500)}`);
                    return;
                }
                session.did_finish_load(url);
                report.finishedBeforeComplete = session.is_finished();
                report.completeAccepted = session.complete(lines[lines.length - 1].slice('REDIRECT_URL='.length));
                report.finishedAfterComplete = session.is_finished();
                session.fail(WebviewHost.Error.FAILED, 'too late');  // a second outcome does nothing
            });
        }

        vfunc_dismiss(session) {
            report.providerCalls.push('dismiss');
            report.dismissedItsSession = session === started;
        }
    });

const browser = new ScriptedBrowser();
browser.register('gjs-browser', 'A browser written in JavaScript', WebviewHost.ProviderKind.SYSTEM_BROWSER, 1000, false);

const app = new WebviewHost.PublicClientApplication({
    client_id: clientId, authority: issuer, redirect_uri: 'http://127.0.0.1:23685/embedded-callback', token_cache: 'memory',
});
app.init(null);
for (const name of ['did-start-load', 'did-finish-load', 'did-complete'])
    app.connect(name, () => report.signals.push(name));
app.connect('did-fail', (_app, error) => report.signals.push(`did-fail ${error.message}`));

async function main() {
    try {
        const parameters = new WebviewHost.InteractiveParameters({ scopes: ['openid', 'profile', 'email', 'offline_access'], timeout: 60 });
        const tokens = await app.acquire_token_async(parameters, null);
        report.outcome = 'success';
        report.username = tokens.account.username;
    } catch (error) {
        report.outcome = 'error';
        report.error = { domain: GLib.quark_to_string(error.domain), code: error.code, message: error.message };
    }
    report.callsAtCallback = [...report.providerCalls];
    started = null;
    System.gc();
    report.unregistered = WebviewHost.WebviewProvider.unregister('gjs-browser');
    print(JSON.stringify(report));
    loop.quit();
}

main();
GLib.timeout_add_seconds(GLib.PRIORITY_DEFAULT, 120, () => { report.outcome = 'timeout'; print(JSON.stringify(report)); loop.quit(); });
loop.run();
