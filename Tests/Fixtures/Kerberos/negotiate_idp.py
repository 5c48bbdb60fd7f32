#!/usr/bin/python3
"""A Kerberos realm and an intranet sign-in page that asks `WWW-Authenticate: Negotiate`, all on
127.0.0.1 and all in STATE_DIR: nothing reads or writes the machine's /etc/krb5.conf.

    negotiate_idp.py STATE_DIR

Debian's python3-gssapi (hence /usr/bin/python3, not a pyenv one), krb5-kdc and krb5-user.

1. Writes STATE_DIR/krb5.conf and STATE_DIR/kdc.conf (realm WVH.TEST, its KDC on a free port of
   127.0.0.1, no DNS), creates the realm's database, the person `alice` (password `alice-pw`) and
   the services `HTTP/127.0.0.1` and `HTTP/localhost` (libsoup asks for `HTTP@<the URI's host>`),
   whose keys go to STATE_DIR/http.keytab (NEGOTIATE_IDP_SERVICES=localhost: only HTTP/localhost, so
   the page at 127.0.0.1 has no service principal); starts `krb5kdc -n`.
2. Serves on a free port of 127.0.0.1, over http, and over https on another (a self-signed
   certificate for 127.0.0.1, STATE_DIR/cert.pem):
     /authorize?redirect_uri=..&state=..[&offer=basic]
        without `Authorization: Negotiate`: 401 with `WWW-Authenticate: Negotiate` (and
        `Basic realm="WVH intranet"` with offer=basic) and a page saying so;
        with a Negotiate token the keytab accepts: 302 to redirect_uri?code=kerberos-<person>&state=..
        (the token's person, `alice@WVH.TEST` -> `alice`);
        with `Basic alice:alice-pw` (offer=basic only): 302 to redirect_uri?code=basic-alice&state=..
3. Writes STATE_DIR/ready (JSON: base and https_base URLs, cert, realm, krb5_config, kdc_profile) once all
   listen; appends one JSON line per request to STATE_DIR/requests.log (path, the Authorization
   scheme, the outcome); exits when STATE_DIR/stop appears (600 s at most), ending the KDC.

The person's ticket is the test's to make: `KRB5_CONFIG=STATE_DIR/krb5.conf KRB5CCNAME=..
kinit alice` with the password on stdin, or `kinit -k -t STATE_DIR/alice.keytab alice` (the same
keys); `kinit -l 2s` for one that expires (clockskew is 1 s here, so it is refused soon after).
"""
import base64, http.server, json, os, socket, subprocess, sys, threading, time, urllib.parse

REALM = "WVH.TEST"
PERSON, PASSWORD = "alice", "alice-pw"


def free_port():
    """A port free for TCP and for UDP on every address, as krb5kdc binds it (0.0.0.0, both
    protocols): a port free for TCP alone was once taken for UDP, and the KDC did not start."""
    while True:
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as tcp, socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as udp:
            tcp.bind(("0.0.0.0", 0))
            port = tcp.getsockname()[1]
            try:
                udp.bind(("0.0.0.0", port))
            except OSError:
                continue
            return port


def write(path, text):
    with open(path, "w") as f:
        f.write(text)


def main(state):
    state = os.path.abspath(state)
    kdc_port = free_port()
    krb5_conf = os.path.join(state, "krb5.conf")
    kdc_conf = os.path.join(state, "kdc.conf")
    keytab = os.path.join(state, "http.keytab")
    write(krb5_conf, f"""[libdefaults]
    default_realm = {REALM}
    dns_lookup_realm = false
    dns_lookup_kdc = false
    dns_canonicalize_hostname = false
    rdns = false
    udp_preference_limit = 1
    clockskew = 1
    default_ccache_name = FILE:{state}/ccache-default
[realms]
    {REALM} = {{
        kdc = 127.0.0.1:{kdc_port}
    }}
[domain_realm]
    127.0.0.1 = {REALM}
    localhost = {REALM}
""")
    write(kdc_conf, f"""[kdcdefaults]
    kdc_ports = {kdc_port}
    kdc_tcp_ports = {kdc_port}
[realms]
    {REALM} = {{
        database_name = {state}/principal
        key_stash_file = {state}/stash
        acl_file = {state}/kadm5.acl
        max_life = 1h
        supported_enctypes = aes256-cts-hmac-sha1-96:normal aes128-cts-hmac-sha1-96:normal
    }}
[logging]
    kdc = FILE:{state}/kdc.log
""")
    write(os.path.join(state, "kadm5.acl"), "")
    # kdb5_util, kadmin.local and krb5kdc live in /usr/sbin, which a user's PATH may lack.
    path = os.environ.get("PATH", "/usr/bin:/bin")
    env = dict(os.environ, KRB5_CONFIG=krb5_conf, KRB5_KDC_PROFILE=kdc_conf, KRB5_KTNAME=f"FILE:{keytab}",
               PATH=path if "/usr/sbin" in path.split(":") else path + ":/usr/sbin")
    env.pop("KRB5CCNAME", None)

    def run(*command):
        subprocess.run(command, env=env, check=True, stdout=subprocess.DEVNULL, stderr=sys.stderr, stdin=subprocess.DEVNULL)

    run("kdb5_util", "create", "-s", "-r", REALM, "-P", "master-" + os.urandom(8).hex())
    run("kadmin.local", "-r", REALM, "-q", f"addprinc -pw {PASSWORD} {PERSON}")
    # The person's keys too, so the test's kinit needs no terminal: kinit -k -t STATE_DIR/alice.keytab alice.
    run("kadmin.local", "-r", REALM, "-q", f"ktadd -norandkey -k {state}/{PERSON}.keytab {PERSON}")
    # NEGOTIATE_IDP_SERVICES: the hosts with a service principal (a realm that lacks the page's: "localhost").
    for host in os.environ.get("NEGOTIATE_IDP_SERVICES", "127.0.0.1,localhost").split(","):
        run("kadmin.local", "-r", REALM, "-q", f"addprinc -randkey HTTP/{host}")
        run("kadmin.local", "-r", REALM, "-q", f"ktadd -k {keytab} HTTP/{host}")
    kdc = subprocess.Popen(["krb5kdc", "-n", "-r", REALM, "-P", os.path.join(state, "kdc.pid")], env=env,
                           stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=sys.stderr)

    # The acceptor reads the keytab named here (gssapi reads the environment of this process).
    os.environ.update(KRB5_CONFIG=krb5_conf, KRB5_KTNAME=f"FILE:{keytab}")
    import gssapi

    log = open(os.path.join(state, "requests.log"), "a", buffering=1)

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def send(self, status, body=b"", headers=()):
            self.send_response(status)
            for name, value in headers:
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self):
            url = urllib.parse.urlsplit(self.path)
            query = dict(urllib.parse.parse_qsl(url.query))
            authorization = self.headers.get("Authorization") or ""
            scheme = authorization.split(" ", 1)[0]
            entry = {"path": url.path, "scheme": scheme, "host": self.headers.get("Host", "")}
            if url.path != "/authorize":
                entry["outcome"] = "not-found"
                log.write(json.dumps(entry) + "\n")
                return self.send(404, b"not found")
            offer_basic = query.get("offer") == "basic"
            person, token_back = None, None
            if scheme.lower() == "negotiate":
                try:
                    context = gssapi.SecurityContext(usage="accept", creds=None)
                    token_back = context.step(base64.b64decode(authorization.split(" ", 1)[1].strip()))
                    if context.complete:
                        person = str(context.initiator_name).split("@")[0]
                        entry["target"] = str(context.target_name) if context.target_name else ""
                except Exception as error:  # a token the keytab cannot accept
                    entry["error"] = str(error).splitlines()[0][:200]
            elif scheme.lower() == "basic" and offer_basic:
                try:
                    user, _, password = base64.b64decode(authorization.split(" ", 1)[1]).decode().partition(":")
                    if (user, password) == (PERSON, PASSWORD):
                        person = user
                except Exception:
                    pass
            if person:
                entry["outcome"] = "accepted"
                entry["person"] = person
                log.write(json.dumps(entry) + "\n")
                target = query.get("redirect_uri", "")
                separator = "&" if "?" in target else "?"
                code = ("kerberos-" if scheme.lower() == "negotiate" else "basic-") + person
                location = target + separator + urllib.parse.urlencode({"code": code, "state": query.get("state", "")})
                headers = [("Location", location)]
                if token_back:
                    headers.append(("WWW-Authenticate", "Negotiate " + base64.b64encode(token_back).decode()))
                return self.send(302, b"", headers)
            entry["outcome"] = "challenged"
            log.write(json.dumps(entry) + "\n")
            challenges = [("WWW-Authenticate", "Negotiate")]
            if offer_basic:
                challenges.append(("WWW-Authenticate", 'Basic realm="WVH intranet"'))
            page = b"<!doctype html><title>Intranet sign-in needs Kerberos</title><h1>401: Windows sign-in needed</h1>"
            self.send(401, page, challenges + [("Content-Type", "text/html; charset=utf-8")])

    server = http.server.ThreadingHTTPServer(("127.0.0.1", free_port()), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    # The same page over https, with a self-signed certificate for 127.0.0.1 (a caller's view trusts it).
    import ssl
    cert, key = os.path.join(state, "cert.pem"), os.path.join(state, "key.pem")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert, "-days", "1",
                    "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"],
                   check=True, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    tls.load_cert_chain(cert, key)
    secure = http.server.ThreadingHTTPServer(("127.0.0.1", free_port()), Handler)
    secure.socket = tls.wrap_socket(secure.socket, server_side=True)
    threading.Thread(target=secure.serve_forever, daemon=True).start()

    # Ready when the KDC answers: ask for alice's ticket into a cache of its own.
    deadline = time.monotonic() + 60
    probe_cache = f"FILE:{state}/ccache-probe"
    while True:
        if kdc.poll() is not None:
            sys.exit(f"krb5kdc ended (exit {kdc.returncode}); see {state}/kdc.log")
        done = subprocess.run(["kinit", "-k", "-t", f"{state}/{PERSON}.keytab", "-c", probe_cache, PERSON], env=env,
                              stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if done.returncode == 0:
            break
        if time.monotonic() > deadline:
            kdc.kill()
            sys.exit("the KDC did not answer within 60 s")
        time.sleep(0.1)
    ready = {"base": f"http://127.0.0.1:{server.server_address[1]}", "https_base": f"https://127.0.0.1:{secure.server_address[1]}",
             "cert": cert, "realm": REALM, "krb5_config": krb5_conf,
             "kdc_profile": kdc_conf, "person": PERSON, "password": PASSWORD}
    write(os.path.join(state, "ready.tmp"), json.dumps(ready))
    os.rename(os.path.join(state, "ready.tmp"), os.path.join(state, "ready"))
    stop = os.path.join(state, "stop")
    end = time.monotonic() + 600
    try:
        while not os.path.exists(stop) and time.monotonic() < end and kdc.poll() is None:
            time.sleep(0.2)
    finally:
        server.shutdown()
        secure.shutdown()
        kdc.terminate()
        kdc.wait()


if __name__ == "__main__":
    main(sys.argv[1])
