/// The HTML the test identity provider serves.
enum Pages {
    /// A login page whose form is filled and posted by script after `submitAfterMilliseconds`
    /// (nil: the form waits for a person).
    static func login(action: String, submitAfterMilliseconds: Int?) -> String {
        let script = submitAfterMilliseconds.map {
            """
            <script>
            setTimeout(() => {
              document.getElementById('user').value = 'alice';
              document.getElementById('password').value = 'secret';
              document.forms[0].submit();
            }, \($0));
            </script>
            """
        } ?? ""
        return """
            <!doctype html><html><head><title>Test IdP: sign in</title><meta name="viewport" content="width=device-width">
            <style>
            body { font-family: sans-serif; background: #f3f4f6; margin: 0; }
            main { max-width: 360px; margin: 48px auto; background: white; padding: 28px 32px; border-radius: 8px;
                   box-shadow: 0 2px 12px rgba(0,0,0,.12); }
            h1 { font-size: 22px; margin: 0 0 6px; } p { color: #555; margin: 0 0 22px; }
            label { display: block; font-size: 13px; color: #333; margin-bottom: 4px; }
            input { width: 100%; box-sizing: border-box; padding: 9px; margin-bottom: 16px; border: 1px solid #bbb; border-radius: 4px; }
            button { width: 100%; padding: 10px; background: #2563eb; color: white; border: 0; border-radius: 4px; font-size: 15px; }
            </style></head><body><main>
            <h1>Sign in</h1><p>to continue to Example App</p>
            <form method="post" action="\(action)">
            <label for="user">Email or user name</label><input id="user" name="user" autocomplete="username">
            <label for="password">Password</label><input id="password" name="password" type="password">
            <button type="submit">Sign in</button>
            </form></main>\(script)</body></html>
            """
    }

    /// A page that runs `script` once loaded: from its `load` event, so a timer the script sets
    /// counts from the end of the load (which the host has reported by then), never races it.
    static func scripted(_ title: String, _ script: String, body: String = "") -> String {
        "<!doctype html><html><head><title>\(title)</title></head><body><h1>\(title)</h1>\(body)"
            + "<script>addEventListener('load', () => { \(script) })</script></body></html>"
    }

    static func plain(_ title: String, body: String = "") -> String {
        "<!doctype html><html><head><title>\(title)</title></head><body><h1>\(title)</h1>\(body)</body></html>"
    }
}
