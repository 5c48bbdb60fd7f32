// A Vala GTK 4 app that signs in on another device through WebviewHost's GObject layer
// (webviewhost-gtk4.vapi), showing the code itself (WebviewHost.DeviceCodeDisplay.APP), and prints what
// it saw as JSON. When the code arrives it starts APPROVE_COMMAND with the code as its last
// argument: the person, entering it on their phone.
//   devicecode CLIENT_ID ISSUER APPROVE_COMMAND...
int main (string[] args) {
    if (args.length < 4) return 2;
    Gtk.init ();
    var loop = new MainLoop ();
    var report = new Json.Builder ();
    report.begin_object ();
    WebviewHost.PublicClientApplication app;
    try {
        app = (WebviewHost.PublicClientApplication) Object.new (typeof (WebviewHost.PublicClientApplication),
            "client-id", args[1], "authority", args[2], "redirect-uri", "http://127.0.0.1/callback", "token-cache", "memory");
        app.init (null);
    } catch (Error error) {
        stdout.printf ("{\"outcome\": \"error\", \"message\": \"%s\"}\n", error.message);
        return 1;
    }
    app.device_code.connect ((challenge) => {
        report.set_member_name ("userCode").add_string_value (challenge.user_code);
        report.set_member_name ("verificationUri").add_string_value (challenge.verification_uri);
        report.set_member_name ("instructionsMentionCode").add_boolean_value (challenge.instructions.contains (challenge.user_code));
        string[] command = args[3:args.length];
        command += challenge.user_code;
        try {
            new Subprocess.newv (command, SubprocessFlags.STDOUT_SILENCE);
        } catch (Error error) {
            report.set_member_name ("approveError").add_string_value (error.message);
        }
    });
    string[] scopes = { "openid", "profile", "email", "offline_access" };
    app.acquire_token_with_device_code_async.begin (scopes, WebviewHost.DeviceCodeDisplay.APP, null, null, (source, result) => {
        try {
            var tokens = app.acquire_token_with_device_code_async.end (result);
            report.set_member_name ("outcome").add_string_value ("success");
            report.set_member_name ("username").add_string_value (tokens.account.username);
            report.set_member_name ("hasRefreshToken").add_boolean_value (tokens.has_refresh_token);
        } catch (Error error) {
            report.set_member_name ("outcome").add_string_value ("error");
            report.set_member_name ("domain").add_string_value (error.domain.to_string ());
            report.set_member_name ("message").add_string_value (error.message);
        }
        loop.quit ();
    });
    Timeout.add_seconds (170, () => { report.set_member_name ("outcome").add_string_value ("timeout"); loop.quit (); return false; });
    loop.run ();
    report.end_object ();
    var generator = new Json.Generator ();
    generator.set_root (report.get_root ());
    stdout.printf ("%s\n", generator.to_data (null));
    return 0;
}
