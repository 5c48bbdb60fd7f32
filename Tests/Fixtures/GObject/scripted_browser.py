"""A web user agent written in Python for the GObject tests (provider.py, policy.py): a
WebviewHost.WebviewProvider whose "browser" is Tests/Fixtures/Glewlwyd/browser_signin.py, run
without blocking the main loop. Import it after gi.require_version("WebviewHost", ...).
"""
import os

from gi.repository import Gio, GObject, WebviewHost

BROWSER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Glewlwyd", "browser_signin.py")


class ScriptedBrowser(GObject.Object, WebviewHost.WebviewProvider):
    """Signs in as `username`; records its calls in report["providerCalls"] ("start", "dismiss"),
    and what the session said of the outcome it reported."""

    def __init__(self, report, username, password):
        super().__init__()
        self.report, self.username, self.password = report, username, password

    def do_start(self, session):
        url = session.props.authorization_url
        self.report["providerCalls"].append("start")
        self.report["redirectURI"] = session.props.redirect_uri
        self.report["sessionGettersAgree"] = (session.get_authorization_url() == url
                                              and session.get_redirect_uri() == session.props.redirect_uri)
        session.did_start_load(url)
        process = Gio.Subprocess.new(
            ["/usr/bin/python3", BROWSER, "--print-only", "-u", self.username, "-p", self.password, url],
            Gio.SubprocessFlags.STDOUT_PIPE | Gio.SubprocessFlags.STDERR_PIPE)

        def browsed(process, result):
            _, out, err = process.communicate_utf8_finish(result)
            lines = [line for line in (out or "").splitlines() if line.startswith("REDIRECT_URL=")]
            if not lines:
                session.fail(WebviewHost.Error.NETWORK, "the scripted browser did not sign in: " + (err or "")[-500:])
                return
            callback = lines[-1][len("REDIRECT_URL="):]
            session.did_finish_load(url)
            self.report["completeAccepted"] = session.complete(callback)
            self.report["finishedAfterComplete"] = session.is_finished()
            # A second outcome does nothing.
            session.fail(WebviewHost.Error.FAILED, "too late")

        process.communicate_utf8_async(None, None, browsed)

    def do_dismiss(self, session):
        self.report["providerCalls"].append("dismiss")
