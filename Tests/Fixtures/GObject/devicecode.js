// A GJS GTK 4 app that signs in on another device through WebviewHost's GObject layer
// (WebviewHost-4.0), the call promisified, showing the code itself (DeviceCodeDisplay.APP), under
// G_DEBUG=fatal-criticals, and prints what it saw as JSON. When the code arrives it starts
// APPROVE_COMMAND with the code as its last argument (the person, on their phone); it keeps the
// challenge past the signal and reads every getter and property again after the sign-in, the
// collector run in between.
//   gjs devicecode.js CLIENT_ID ISSUER APPROVE_COMMAND...
//     DEVICECODE_TOKEN_CACHE in the environment: the token-cache (default memory; file:PATH for a
//     sign-in that accounts.js's restart mode reads in a new process)
imports.gi.versions.Gtk = '4.0';
imports.gi.versions.WebviewHost = '4.0';
const { Gio, GLib, Gtk, WebviewHost } = imports.gi;
const System = imports.system;

Gio._promisify(WebviewHost.PublicClientApplication.prototype,
    'acquire_token_with_device_code_async', 'acquire_token_with_device_code_finish');

const [clientId, issuer, ...approve] = ARGV;
Gtk.init();
const loop = GLib.MainLoop.new(null, false);
const report = {};
const kept = [];

function challengeFacts(challenge) {
    const pairs = {
        user_code: [challenge.get_user_code(), challenge.user_code],
        verification_uri: [challenge.get_verification_uri(), challenge.verification_uri],
        verification_uri_complete: [challenge.get_verification_uri_complete(), challenge.verification_uri_complete],
        expires_on: [challenge.get_expires_on(), challenge.expires_on],
        message: [challenge.get_message(), challenge.message],
        instructions: [challenge.get_instructions(), challenge.instructions],
    };
    return {
        differing: Object.keys(pairs).filter(name => pairs[name][0] !== pairs[name][1]),
        userCode: challenge.get_user_code(),
        verificationUri: challenge.get_verification_uri(),
        expiresInFuture: challenge.get_expires_on() > Date.now() / 1000,
        instructionsMentionCode: challenge.get_instructions().includes(challenge.get_user_code()),
    };
}

const app = new WebviewHost.PublicClientApplication({
    client_id: clientId, authority: issuer, redirect_uri: 'http://127.0.0.1/callback', token_cache: GLib.getenv('DEVICECODE_TOKEN_CACHE') ?? 'memory',
});
app.init(null);
app.connect('device-code', (_app, challenge) => {
    kept.push(challenge);
    System.gc();
    report.challenge = challengeFacts(challenge);
    Gio.Subprocess.new([...approve, challenge.get_user_code()], Gio.SubprocessFlags.STDOUT_SILENCE);
});

async function main() {
    try {
        const tokens = await app.acquire_token_with_device_code_async(
            ['openid', 'profile', 'email', 'offline_access'], WebviewHost.DeviceCodeDisplay.APP, null, null);
        report.outcome = 'success';
        report.username = tokens.account.username;
        report.hasRefreshToken = tokens.has_refresh_token;
    } catch (error) {
        report.outcome = 'error';
        report.error = { domain: GLib.quark_to_string(error.domain), code: error.code, message: error.message };
    }
    System.gc();
    if (kept.length > 0)
        report.challengeAfter = challengeFacts(kept[0]);
    loop.quit();
}

main();
GLib.timeout_add_seconds(GLib.PRIORITY_DEFAULT, 170, () => { report.outcome = 'timeout'; loop.quit(); return false; });
loop.run();
print(JSON.stringify(report));
