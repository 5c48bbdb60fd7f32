#!/usr/bin/env bash
# Local Glewlwyd OpenID Connect server for WebviewHost tests and demo.
# See README.md in this directory.
#
#   glewlwyd.sh install            install Debian's glewlwyd (service never started)
#   glewlwyd.sh start STATE_DIR    start our own instance on 127.0.0.1:$GLEWLWYD_PORT
#   glewlwyd.sh stop STATE_DIR     stop it
#   glewlwyd.sh status STATE_DIR   print KEY=value lines if running
#   glewlwyd.sh grant|revoke STATE_DIR [CLIENT_ID]   give/withdraw alice's consent
set -euo pipefail

PORT="${GLEWLWYD_PORT:-4593}"
HOST=127.0.0.1
BASE_URL="http://${HOST}:${PORT}"
ISSUER="${BASE_URL}/api/oidc"
CLIENT_ID="webviewhost-tests"
CLIENT_ID_ES256="webviewhost-es256"
CLIENT_ID_CONSENT="webviewhost-consent"
# Refresh tokens of this client are one-use (as Microsoft Entra ID rotates them): a spent one is invalid_grant.
CLIENT_ID_ONE_USE="webviewhost-one-use"
# Device Authorization Grant (RFC 8628) client: public, authorization_type device_authorization.
CLIENT_ID_DEVICE="webviewhost-device"
# Sign-in with a security key (issue 42): this client's requests ask for the scope KEY_SCOPE, which
# Glewlwyd grants after the password and the WebAuthn scheme instance WEBAUTHN_SCHEME.
CLIENT_ID_SECURITY_KEY="webviewhost-security-key"
KEY_SCOPE="security-key"
WEBAUTHN_SCHEME="webauthn"
TEST_USER="alice"
TEST_PASSWORD="alice-password"
TEST_NAME="Alice Example"
TEST_EMAIL="alice@example.com"
ADMIN_USER="admin"
ADMIN_PASSWORD="password"   # Glewlwyd's default admin (created by the schema), loopback only
# Ports below Linux's ephemeral range (32768-60999): a listener on a port within it can find the
# port taken by any outgoing connection of the machine (a full run saw "port 53682 already in use").
REDIRECT_URIS=(
  "http://127.0.0.1:23682/callback"
  "http://127.0.0.1:23683/callback"
  "http://[::1]:23684/callback"
  "http://127.0.0.1:23685/embedded-callback"
  "com.example.webviewhost:/oauth2redirect"
)
# RP-initiated logout: allowed post_logout_redirect_uri values (exact match), on every client.
POST_LOGOUT_REDIRECT_URIS=(
  "http://127.0.0.1:23682/logged-out"
  "http://127.0.0.1:23685/embedded-logged-out"
  "com.example.webviewhost:/logout"
)
# OIDC session id cookie of the plugin (sid claim); only used with session management.
OIDC_SID_COOKIE="GLEWLWYD2_OIDC_SID"
DEVICE_EXPIRATION="${GLEWLWYD_DEVICE_EXPIRATION:-600}"   # device_code/user_code lifetime (s)
DEVICE_INTERVAL="${GLEWLWYD_DEVICE_INTERVAL:-5}"         # minimum polling interval (s)
START_TIMEOUT="${GLEWLWYD_START_TIMEOUT:-30}"
STOP_TIMEOUT="${GLEWLWYD_STOP_TIMEOUT:-15}"

log() { echo "glewlwyd.sh: $*" >&2; }
die() { echo "glewlwyd.sh: ERROR: $*" >&2; exit 1; }

usage() {
  sed -n '2,10p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

need_root() { [ "$(id -u)" = 0 ] || die "'$1' must run as root"; }

# ---------------------------------------------------------------- install ---

# Stop/disable a system glewlwyd service, whatever the init system.
stop_system_service() {
  if command -v systemctl >/dev/null 2>&1; then
    if [ -d /run/systemd/system ]; then   # systemd is PID 1
      systemctl stop glewlwyd.service >/dev/null 2>&1 || true
    fi
    # works offline too (no systemd running, e.g. containers): removes the wants/ symlink
    systemctl disable glewlwyd.service >/dev/null 2>&1 || true
  fi
  if [ -x /etc/init.d/glewlwyd ]; then
    /etc/init.d/glewlwyd stop >/dev/null 2>&1 || true
    command -v update-rc.d >/dev/null 2>&1 && update-rc.d glewlwyd disable >/dev/null 2>&1 || true
  fi
  # Any remaining glewlwyd started from the system config (not ours).
  local pid
  for pid in $(pgrep -x glewlwyd 2>/dev/null || true); do
    if tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null | grep -q -- '/etc/glewlwyd/'; then
      log "killing system glewlwyd (pid $pid)"
      kill "$pid" 2>/dev/null || true
    fi
  done
}

PRC=""; PRC_BACKUP=""
restore_prc() {
  [ -n "$PRC" ] || return 0
  if [ -n "$PRC_BACKUP" ]; then mv -f "$PRC_BACKUP" "$PRC"; else rm -f "$PRC"; fi
  PRC=""
}

cmd_install() {
  need_root install
  export DEBIAN_FRONTEND=noninteractive
  local pkgs=(glewlwyd glewlwyd-common dbconfig-no-thanks sqlite3 curl openssl python3)
  local missing=()
  local p
  for p in "${pkgs[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
  if [ "${#missing[@]}" -gt 0 ]; then
    log "installing: ${missing[*]}"
    # No database / no personalised config from debconf: we use our own.
    echo "glewlwyd glewlwyd/config_type select No configuration" | debconf-set-selections
    echo "glewlwyd glewlwyd/dbconfig-install boolean false" | debconf-set-selections

    # Forbid service starts during the installation (policy-rc.d exit 101);
    # the previous policy-rc.d (if any) is put back even on failure/interrupt.
    PRC=/usr/sbin/policy-rc.d; PRC_BACKUP=""
    if [ -e "$PRC" ]; then
      PRC_BACKUP="$(mktemp /tmp/policy-rc.d.XXXXXX)"
      cp -p "$PRC" "$PRC_BACKUP"
    fi
    trap restore_prc EXIT
    trap 'restore_prc; exit 130' INT TERM
    printf '#!/bin/sh\n# glewlwyd.sh install: no service starts\nexit 101\n' > "$PRC"
    chmod 755 "$PRC"

    local apt_opts=(-o DPkg::Lock::Timeout=900 -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold)
    if ! apt-get "${apt_opts[@]}" install -y --no-install-recommends "${missing[@]}" </dev/null; then
      log "apt-get install failed; running apt-get update and retrying"
      apt-get -o DPkg::Lock::Timeout=900 update </dev/null || die "apt-get update failed"
      apt-get "${apt_opts[@]}" install -y --no-install-recommends "${missing[@]}" </dev/null \
        || die "apt-get install ${missing[*]} failed"
    fi
    restore_prc
    trap - EXIT INT TERM
  else
    log "packages already installed"
  fi
  stop_system_service
  [ -x /usr/bin/glewlwyd ] || die "/usr/bin/glewlwyd missing after install"
  log "installed $(dpkg-query -W -f='${Package} ${Version}' glewlwyd); system service not running"
}

# ---------------------------------------------------------------- helpers ---

abs_dir() { mkdir -p "$1" && (cd "$1" && pwd); }

# alive = exists and is not a zombie (an unreaped zombie still answers kill -0)
pid_alive() {
  [ -n "${1:-}" ] && kill -0 "$1" 2>/dev/null || return 1
  local state; state="$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null || true)"
  [ "$state" != "Z" ]
}

read_pid() { [ -f "$1/glewlwyd.pid" ] && tr -dc '0-9' < "$1/glewlwyd.pid" || true; }

# true if the pid belongs to a glewlwyd using this state dir's config
pid_is_ours() {
  local pid="$1" dir="$2"
  pid_alive "$pid" || return 1
  tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null | grep -q -- "$dir/glewlwyd.conf"
}

# stop/status/grant/revoke: use the port the instance in STATE_DIR was started with
load_port_from_state() {
  local p
  p="$(sed -n 's/^port=\([0-9][0-9]*\)$/\1/p' "$1/glewlwyd.conf" 2>/dev/null | head -1)"
  if [ -n "$p" ]; then
    PORT="$p"; BASE_URL="http://${HOST}:${PORT}"; ISSUER="${BASE_URL}/api/oidc"
  fi
}

http_ok() { curl -s -o /dev/null --max-time 3 -w '%{http_code}' "$1" 2>/dev/null | grep -q '^200$'; }

port_in_use() {
  # bash /dev/tcp connect test, no extra tools needed
  (exec 3<>"/dev/tcp/${HOST}/${PORT}") 2>/dev/null
}

print_env() {
  cat <<EOT
PORT=${PORT}
BASE_URL=${BASE_URL}
ISSUER=${ISSUER}
DISCOVERY_URL=${ISSUER}/.well-known/openid-configuration
JWKS_URL=${ISSUER}/jwks
AUTHORIZATION_ENDPOINT=${ISSUER}/auth
TOKEN_ENDPOINT=${ISSUER}/token
USERINFO_ENDPOINT=${ISSUER}/userinfo
END_SESSION_ENDPOINT=${ISSUER}/end_session
DEVICE_AUTHORIZATION_ENDPOINT=${ISSUER}/device_authorization
DEVICE_VERIFICATION_URI=${ISSUER}/device
CLIENT_ID=${CLIENT_ID}
CLIENT_ID_ES256=${CLIENT_ID_ES256}
CLIENT_ID_CONSENT=${CLIENT_ID_CONSENT}
CLIENT_ID_ONE_USE=${CLIENT_ID_ONE_USE}
CLIENT_ID_DEVICE=${CLIENT_ID_DEVICE}
CLIENT_ID_SECURITY_KEY=${CLIENT_ID_SECURITY_KEY}
KEY_SCOPE=${KEY_SCOPE}
WEBAUTHN_SCHEME=${WEBAUTHN_SCHEME}
POST_LOGOUT_REDIRECT_URI=${POST_LOGOUT_REDIRECT_URIS[0]}
OIDC_SID_COOKIE=${OIDC_SID_COOKIE}
DEVICE_EXPIRATION=${DEVICE_EXPIRATION}
DEVICE_INTERVAL=${DEVICE_INTERVAL}
USERNAME=${TEST_USER}
PASSWORD=${TEST_PASSWORD}
USER_NAME='${TEST_NAME}'
USER_EMAIL=${TEST_EMAIL}
EOT
}

# ---------------------------------------------------------------- state -----

find_schema() {
  local f
  for f in /usr/share/dbconfig-common/data/glewlwyd/install/sqlite3 \
           /usr/share/doc/glewlwyd/database/init.sqlite3.sql \
           /usr/share/doc/glewlwyd/database/init.sqlite3.sql.gz; do
    [ -f "$f" ] && { echo "$f"; return 0; }
  done
  return 1
}

# Signing keys: RSA 2048 (kid rsa-1, RS256, default) and EC P-256 (kid ec-1, ES256),
# converted to one private JWKS for the OIDC plugin. Kept across restarts.
make_keys() {
  local dir="$1"
  [ -s "$dir/keys/rsa-private.pem" ] || openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 \
      -out "$dir/keys/rsa-private.pem" 2>/dev/null || die "openssl RSA key generation failed"
  [ -s "$dir/keys/ec-private.pem" ] || openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 \
      -out "$dir/keys/ec-private.pem" 2>/dev/null || die "openssl EC key generation failed"
  openssl pkey -in "$dir/keys/rsa-private.pem" -pubout -out "$dir/keys/rsa-public.pem" 2>/dev/null
  openssl pkey -in "$dir/keys/ec-private.pem" -pubout -out "$dir/keys/ec-public.pem" 2>/dev/null
  chmod 600 "$dir"/keys/*-private.pem
  if [ ! -s "$dir/keys/jwks-private.json" ] || [ "$dir/keys/rsa-private.pem" -nt "$dir/keys/jwks-private.json" ] \
     || [ "$dir/keys/ec-private.pem" -nt "$dir/keys/jwks-private.json" ]; then
    python3 - "$dir/keys" <<'PY' || die "could not convert the PEM keys to JWKS"
import base64, json, re, subprocess, sys
d = sys.argv[1]
def fields(pem):
    out = subprocess.run(["openssl", "pkey", "-in", pem, "-noout", "-text"], check=True,
                         capture_output=True, text=True).stdout
    res, cur = {}, None
    for line in out.splitlines():
        m = re.match(r"^([A-Za-z0-9 ]+):\s*(.*)$", line)
        if m and not line.startswith(" "):
            cur = m.group(1).strip(); res[cur] = m.group(2).strip(); continue
        if cur is not None and line.startswith(" "):
            res[cur] += line.strip()
    return res
def b64(b): return base64.urlsafe_b64encode(b).rstrip(b"=").decode()
def hexbytes(h): return bytes.fromhex(h.replace(":", ""))
def uint(h): return b64(hexbytes(h).lstrip(b"\x00") or b"\x00")
r = fields(d + "/rsa-private.pem")
e = int(r["publicExponent"].split()[0])
rsa = {"kty": "RSA", "alg": "RS256", "use": "sig", "kid": "rsa-1",
       "n": uint(r["modulus"]), "e": b64(e.to_bytes((e.bit_length() + 7) // 8, "big")),
       "d": uint(r["privateExponent"]), "p": uint(r["prime1"]), "q": uint(r["prime2"]),
       "dp": uint(r["exponent1"]), "dq": uint(r["exponent2"]), "qi": uint(r["coefficient"])}
c = fields(d + "/ec-private.pem")
pub = hexbytes(c["pub"]); assert pub[0] == 4 and len(pub) == 65, "unexpected EC public key"
priv = hexbytes(c["priv"]).lstrip(b"\x00").rjust(32, b"\x00")
ec = {"kty": "EC", "alg": "ES256", "use": "sig", "kid": "ec-1", "crv": "P-256",
      "x": b64(pub[1:33]), "y": b64(pub[33:65]), "d": b64(priv)}
with open(d + "/jwks-private.json", "w") as f:
    json.dump({"keys": [rsa, ec]}, f)
PY
    chmod 600 "$dir/keys/jwks-private.json"
  fi
}

write_config() {
  local dir="$1"
  cat > "$dir/glewlwyd.conf" <<EOT
# Generated by Tests/Fixtures/Glewlwyd/glewlwyd.sh - test instance, loopback only.
port=${PORT}
bind_address="${HOST}"
external_url="${BASE_URL}"
login_url="login.html"
api_prefix="api"
static_files_path="${dir}/webapp/"
allow_origin="*"
log_mode="file"
log_level="${GLEWLWYD_LOG_LEVEL:-INFO}"
log_file="${dir}/glewlwyd.log"
# no cookie_domain: host-only cookies (a Domain=127.0.0.1 attribute is fragile in browsers)
cookie_secure=0
cookie_same_site="lax"
session_expiration=86400
session_key="GLEWLWYD2_SESSION_ID"
admin_session_authentication="cookie"
profile_session_authentication="cookie"
allow_multiple_user_per_session=true
login_api_enabled=true
add_x_frame_option_header_deny=true
admin_scope="g_admin"
profile_scope="g_profile"
user_module_path="/usr/lib/glewlwyd/user"
client_module_path="/usr/lib/glewlwyd/client"
user_auth_scheme_module_path="/usr/lib/glewlwyd/scheme"
plugin_module_path="/usr/lib/glewlwyd/plugin"
use_secure_connection=false
# glewlwyd 2.7.5 checks these even when TLS is off; never read
secure_connection_key_file="/nonexistent/glewlwyd.key"
secure_connection_pem_file="/nonexistent/glewlwyd.pem"
hash_algorithm="SHA512"
database =
{
  type = "sqlite3"
  path = "${dir}/glewlwyd.db"
};
response_allowed_compression="deflate,gzip"
static_files_mime_types =
(
  { extension = ".html"  mime_type = "text/html"                compress = 1 },
  { extension = ".css"   mime_type = "text/css"                 compress = 1 },
  { extension = ".js"    mime_type = "application/javascript"   compress = 1 },
  { extension = ".json"  mime_type = "application/json"         compress = 1 },
  { extension = ".txt"   mime_type = "text/plain"               compress = 1 },
  { extension = ".png"   mime_type = "image/png"                compress = 0 },
  { extension = ".jpg"   mime_type = "image/jpeg"               compress = 0 },
  { extension = ".jpeg"  mime_type = "image/jpeg"               compress = 0 },
  { extension = ".ttf"   mime_type = "font/ttf"                 compress = 0 },
  { extension = ".woff"  mime_type = "font/woff"                compress = 0 },
  { extension = ".woff2" mime_type = "font/woff2"               compress = 0 },
  { extension = ".otf"   mime_type = "font/otf"                 compress = 0 },
  { extension = ".eot"   mime_type = "application/vnd.ms-fontobject" compress = 0 },
  { extension = ".svg"   mime_type = "image/svg+xml"            compress = 1 },
  { extension = ".map"   mime_type = "application/octet-stream" compress = 0 },
  { extension = ".ico"   mime_type = "image/x-icon"             compress = 0 }
)
EOT
}

# Debian's webapp uses symlinks (into /usr/share/javascript, /usr/share/fonts and
# /etc/glewlwyd) that Glewlwyd's static file server refuses: make a real copy.
copy_webapp() {
  local dir="$1" src=/usr/share/glewlwyd/webapp
  [ -d "$src" ] || die "$src missing (package glewlwyd-common)"
  rm -rf "$dir/webapp.new"
  cp -rL "$src" "$dir/webapp.new" || die "copying $src failed (dangling symlink?)"
  # webapp/config.json -> /etc/glewlwyd/config-2.7.json is a *directory* holding config.json
  local cfg=""
  if [ -d "$dir/webapp.new/config.json" ]; then
    cfg="$(mktemp)"; cp "$dir/webapp.new/config.json/config.json" "$cfg"
    rm -rf "$dir/webapp.new/config.json"; mv "$cfg" "$dir/webapp.new/config.json"
  fi
  [ -f "$dir/webapp.new/config.json" ] || die "webapp config.json not found in $src"
  chmod -R u+rwX,go+rX "$dir/webapp.new"
  rm -rf "$dir/webapp"; mv "$dir/webapp.new" "$dir/webapp"
}

init_db() {
  local dir="$1" schema
  schema="$(find_schema)" || die "Glewlwyd SQLite schema not found (is glewlwyd installed?)"
  rm -f "$dir/glewlwyd.db" "$dir/glewlwyd.db-journal"
  if [[ "$schema" == *.gz ]]; then
    zcat "$schema" | sqlite3 "$dir/glewlwyd.db" || die "schema import failed"
  else
    sqlite3 "$dir/glewlwyd.db" < "$schema" || die "schema import failed"
  fi
}

# ---------------------------------------------------------------- REST ------

# Configuration through the admin REST API (and consent helpers), Python stdlib only.
# Usage: run_api configure|grant|revoke [client_id]
run_api() {
  GW_BASE_URL="$BASE_URL" GW_ISSUER="$ISSUER" GW_STATE_DIR="$STATE_DIR" \
  GW_ADMIN_USER="$ADMIN_USER" GW_ADMIN_PASSWORD="$ADMIN_PASSWORD" \
  GW_CLIENT_ID="$CLIENT_ID" GW_CLIENT_ID_ES256="$CLIENT_ID_ES256" GW_CLIENT_ID_CONSENT="$CLIENT_ID_CONSENT" GW_CLIENT_ID_ONE_USE="$CLIENT_ID_ONE_USE" GW_CLIENT_ID_DEVICE="$CLIENT_ID_DEVICE" \
  GW_CLIENT_ID_SECURITY_KEY="$CLIENT_ID_SECURITY_KEY" GW_KEY_SCOPE="$KEY_SCOPE" GW_WEBAUTHN_SCHEME="$WEBAUTHN_SCHEME" \
  GW_POST_LOGOUT_REDIRECT_URIS="$(printf '%s\n' "${POST_LOGOUT_REDIRECT_URIS[@]}")" GW_OIDC_SID_COOKIE="$OIDC_SID_COOKIE" \
  GW_DEVICE_EXPIRATION="$DEVICE_EXPIRATION" GW_DEVICE_INTERVAL="$DEVICE_INTERVAL" \
  GW_USER="$TEST_USER" GW_PASSWORD="$TEST_PASSWORD" GW_NAME="$TEST_NAME" GW_EMAIL="$TEST_EMAIL" \
  GW_REDIRECT_URIS="$(printf '%s\n' "${REDIRECT_URIS[@]}")" GW_PREGRANT="${GLEWLWYD_PREGRANT:-1}" \
  timeout 120 python3 - "$@" <<'PY'
import http.cookiejar, json, os, sys, urllib.error, urllib.parse, urllib.request

E = os.environ
BASE = E["GW_BASE_URL"]; API = BASE + "/api"
SCOPES = ["openid", "profile", "email", "offline_access"]
KEY_SCOPE = E["GW_KEY_SCOPE"]
REDIRECTS = [u for u in E["GW_REDIRECT_URIS"].splitlines() if u]
POST_LOGOUT_REDIRECTS = [u for u in E["GW_POST_LOGOUT_REDIRECT_URIS"].splitlines() if u]

class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *a, **k): return None

def session():
    jar = http.cookiejar.CookieJar()
    return urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar), NoRedirect())

def call(op, method, path, body=None, ok=(200,)):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(API + path, data=data, method=method,
                                 headers={"Content-Type": "application/json"})
    try:
        with op.open(req, timeout=20) as r:
            status, text = r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        status, text = e.code, e.read().decode(errors="replace")
    if status not in ok:
        sys.exit("glewlwyd.sh: ERROR: %s %s -> HTTP %d %s" % (method, path, status, text[:500]))
    return status, (json.loads(text) if text.strip().startswith(("{", "[")) else text)

def login(username, password):
    op = session()
    call(op, "POST", "/auth/", {"username": username, "password": password})
    return op

def upsert(op, coll, key, obj):
    st, _ = call(op, "GET", "/%s/%s" % (coll, urllib.parse.quote(key, safe="")), ok=(200, 404))
    if st == 404:
        call(op, "POST", "/%s/" % coll, obj)
    else:
        call(op, "PUT", "/%s/%s" % (coll, urllib.parse.quote(key, safe="")), obj)

def set_grant(client_id, scope, user=None, password=None):
    op = login(user or E["GW_USER"], password or E["GW_PASSWORD"])
    call(op, "PUT", "/auth/grant/" + urllib.parse.quote(client_id, safe=""), {"scope": " ".join(scope)})

def webauthn_scheme(op):
    """The WebAuthn scheme instance and the scope that asks for it after the password (issue 42)."""
    name = E["GW_WEBAUTHN_SCHEME"]
    params = {
        # the origin the login and profile pages are served from (clientDataJSON.origin); its
        # host is the rpId (127.0.0.1)
        "rp-origin": BASE,
        # the key is used after the password, in the session it authenticated
        "session-mandatory": True, "seed": "webviewhost-tests-webauthn-seed-0123456789abcdef",
        "challenge-length": 64, "credential-expiration": 120, "credential-assertion": 120,
        "pubKey-cred-params": [-7],
        # packed (self attestation: no certificate chain to check) and none; nothing else
        "fmt": {"packed": True, "none": True, "fido-u2f": False, "tpm": False,
                "android-key": False, "android-safetynet": False},
        "force-fmt-none": False,
    }
    module = {"module": "webauthn", "name": name, "display_name": "Security key", "expiration": 600,
              "max_use": 0, "allow_user_register": True, "parameters": params}
    upsert_module(op, "scheme", name, module)
    upsert(op, "scope", KEY_SCOPE, {"name": KEY_SCOPE, "display_name": "Security key",
           "description": "Signed in with a password and a security key",
           "password_required": True, "password_max_age": 0,
           "scheme": {"security-key": [{"scheme_type": "webauthn", "scheme_name": name,
                                        "scheme_display_name": "Security key"}]}})

def upsert_module(op, kind, name, module):
    st, _ = call(op, "GET", "/mod/%s/%s" % (kind, name), ok=(200, 404))
    if st == 404:
        call(op, "POST", "/mod/%s/" % kind, module)
    else:
        call(op, "PUT", "/mod/%s/%s" % (kind, name), module)
    # (re)load the instance so that updated parameters are active
    call(op, "PUT", "/mod/%s/%s/disable" % (kind, name)); call(op, "PUT", "/mod/%s/%s/enable" % (kind, name))

def configure():
    op = login(E["GW_ADMIN_USER"], E["GW_ADMIN_PASSWORD"])
    webauthn_scheme(op)
    # 1. scopes (openid exists in the schema); password required, no max age
    for name in SCOPES[1:]:
        upsert(op, "scope", name, {"name": name, "display_name": name,
               "description": "OpenID Connect '%s' scope" % name,
               "password_required": True, "password_max_age": 0, "scheme": {}})
    # 2. let the client database backend store 'sign_kid' (per-client signing key)
    _, mod = call(op, "GET", "/mod/client/database")
    df = mod["parameters"].setdefault("data-format", {})
    if "sign_kid" not in df or "refresh-token-one-use" not in df or "post_logout_redirect_uris" not in df:
        df["sign_kid"] = {"multiple": False, "read": True, "write": True}
        # read by the OIDC plugin's end_session (an array; the schema only has a single-valued
        # 'post_logout_redirect_uri', which the plugin never reads)
        df["post_logout_redirect_uris"] = {"multiple": True, "read": True, "write": True}
        # read by the OIDC plugin's client-driven one-use refresh tokens ("1": one-use)
        df["refresh-token-one-use"] = {"multiple": False, "read": True, "write": True}
        mod.pop("enabled", None)
        call(op, "PUT", "/mod/client/database", mod)
        call(op, "PUT", "/mod/client/database/disable"); call(op, "PUT", "/mod/client/database/enable")
    # 3. OpenID Connect plugin instance 'oidc'
    with open(os.path.join(E["GW_STATE_DIR"], "keys", "jwks-private.json")) as f:
        jwks = f.read()
    params = {
        "iss": E["GW_ISSUER"], "jwks-private": jwks, "default-kid": "rsa-1",
        "client-sign_kid-parameter": "sign_kid", "jwks-show": True, "jwks-x5c": [],
        "subject-type": "public",
        "access-token-duration": 3600, "refresh-token-duration": 1209600, "code-duration": 600,
        "refresh-token-rolling": True, "refresh-token-one-use": "client-driven",
        "client-refresh-token-one-use-public-client": False,
        "client-refresh-token-one-use-parameter": "refresh-token-one-use",
        "allow-non-oidc": False,
        "auth-type-code-enabled": True, "auth-type-code-revoke-replayed": False,
        "auth-type-token-enabled": False, "auth-type-id-token-enabled": True,
        "auth-type-none-enabled": False, "auth-type-password-enabled": False,
        "auth-type-client-enabled": False, "auth-type-device-enabled": True,
        "device-authorization-expiration": int(E["GW_DEVICE_EXPIRATION"]),
        "device-authorization-interval": int(E["GW_DEVICE_INTERVAL"]),
        "auth-type-refresh-enabled": True,
        "scope": [], "additional-parameters": [], "claims": [],
        "name-claim": "on-demand", "name-claim-scope": ["profile"],
        "email-claim": "on-demand", "email-claim-scope": ["email"],
        "scope-claim": "no", "scope-claim-scope": [],
        "address-claim": {"type": "no", "formatted": "", "street_address": "", "locality": "",
                          "region": "", "postal_code": "", "country": "", "mandatory": False},
        "allowed-scope": SCOPES + [KEY_SCOPE],
        "pkce-allowed": True, "pkce-method-plain-allowed": False, "pkce-required": True,
        "pkce-required-public-client": True, "pkce-scopes": [],
        "request-parameter-allow": False, "request-uri-allow-https-non-secure": False,
        "request-parameter-allow-encrypted": False, "request-parameter-ietf-strict": False,
        "service-documentation": "", "op-policy-uri": "", "op-tos-uri": "",
        "session-management-allowed": True, "session-cookie-name": E["GW_OIDC_SID_COOKIE"],
        "session-cookie-expiration": 2419200,
        # front-channel must be on: the end-session confirmation page of login.html calls
        # GET /api/oidc/session/<sid>/<client_id>, which answers 400 when it is off
        "front-channel-logout-allowed": True, "back-channel-logout-allowed": False,
        "introspection-revocation-allowed": False,
        "register-client-allowed": False, "encrypt-out-token-allow": False,
        "oauth-dpop-allowed": False, "resource-allowed": False, "oauth-rar-allowed": False,
        "oauth-par-allowed": False, "oauth-ciba-allowed": False, "oauth-as-iss-id": False,
    }
    plugin = {"module": "oidc", "name": "oidc", "display_name": "OpenID Connect",
              "order_rank": 0, "readonly": False, "parameters": params}
    st, _ = call(op, "GET", "/mod/plugin/oidc", ok=(200, 404))
    if st == 404:
        call(op, "POST", "/mod/plugin/", plugin)
    else:
        call(op, "PUT", "/mod/plugin/oidc", plugin)
    # (re)load the instance so that updated parameters are active
    call(op, "PUT", "/mod/plugin/oidc/disable"); call(op, "PUT", "/mod/plugin/oidc/enable")
    # 4. test user
    # (g_profile: her profile page, where she registers a security key)
    upsert(op, "user", E["GW_USER"], {"username": E["GW_USER"], "password": E["GW_PASSWORD"],
           "name": E["GW_NAME"], "email": E["GW_EMAIL"], "enabled": True,
           "scope": SCOPES + [KEY_SCOPE, "g_profile"]})
    # a second person, to sign in two accounts one after the other
    upsert(op, "user", "bob", {"username": "bob", "password": "bob-password",
           "name": "Bob Example", "email": "bob@example.com", "enabled": True, "scope": SCOPES})
    # 5. public clients (no secret), exact redirect URIs
    def client(cid, name, **extra):
        c = {"client_id": cid, "name": name, "description": "WebviewHost test client (public, PKCE)",
             "confidential": False, "enabled": True, "scope": [], "redirect_uri": REDIRECTS,
             "authorization_type": ["code", "refresh_token"], "token_endpoint_auth_method": ["none"],
             "post_logout_redirect_uris": POST_LOGOUT_REDIRECTS}
        c.update(extra)
        upsert(op, "client", cid, c)
    client(E["GW_CLIENT_ID"], "WebviewHost tests")
    client(E["GW_CLIENT_ID_ES256"], "WebviewHost tests (ES256 ID tokens)", sign_kid="ec-1")
    client(E["GW_CLIENT_ID_CONSENT"], "WebviewHost tests (consent screen)")
    client(E["GW_CLIENT_ID_ONE_USE"], "WebviewHost tests (one-use refresh tokens)", **{"refresh-token-one-use": "1"})
    client(E["GW_CLIENT_ID_DEVICE"], "WebviewHost tests (device authorization grant)", redirect_uri=[],
           authorization_type=["device_authorization", "refresh_token"])
    client(E["GW_CLIENT_ID_SECURITY_KEY"], "WebviewHost tests (password and security key)")
    _, c = call(op, "GET", "/client/" + E["GW_CLIENT_ID"])
    if c.get("post_logout_redirect_uris") != POST_LOGOUT_REDIRECTS:
        sys.exit("glewlwyd.sh: ERROR: client %s did not store post_logout_redirect_uris" % E["GW_CLIENT_ID"])
    _, c = call(op, "GET", "/client/" + E["GW_CLIENT_ID_ES256"])
    if c.get("sign_kid") != "ec-1":
        sys.exit("glewlwyd.sh: ERROR: client %s did not store sign_kid" % E["GW_CLIENT_ID_ES256"])
    _, c = call(op, "GET", "/client/" + E["GW_CLIENT_ID_ONE_USE"])
    if c.get("refresh-token-one-use") != "1":
        sys.exit("glewlwyd.sh: ERROR: client %s did not store refresh-token-one-use" % E["GW_CLIENT_ID_ONE_USE"])
    # 6. consent: pre-grant the two main clients, never the consent client
    if E.get("GW_PREGRANT", "1") == "1":
        set_grant(E["GW_CLIENT_ID"], SCOPES)
        set_grant(E["GW_CLIENT_ID_ES256"], SCOPES)
        set_grant(E["GW_CLIENT_ID_ONE_USE"], SCOPES)
        set_grant(E["GW_CLIENT_ID_DEVICE"], SCOPES)
        set_grant(E["GW_CLIENT_ID_SECURITY_KEY"], SCOPES + [KEY_SCOPE])
        set_grant(E["GW_CLIENT_ID"], SCOPES, "bob", "bob-password")
    set_grant(E["GW_CLIENT_ID_CONSENT"], [])
    # 7. sanity checks
    op2 = session()
    for path in ("/oidc/.well-known/openid-configuration", "/oidc/jwks"):
        st, body = call(op2, "GET", path)
    st, disc = call(op2, "GET", "/oidc/.well-known/openid-configuration")
    if disc.get("issuer") != E["GW_ISSUER"]:
        sys.exit("glewlwyd.sh: ERROR: discovery issuer %r != %r" % (disc.get("issuer"), E["GW_ISSUER"]))
    for key, suffix in (("end_session_endpoint", "/end_session"), ("device_authorization_endpoint", "/device_authorization")):
        if disc.get(key) != E["GW_ISSUER"] + suffix:
            sys.exit("glewlwyd.sh: ERROR: discovery %s %r != %r" % (key, disc.get(key), E["GW_ISSUER"] + suffix))

mode = sys.argv[1] if len(sys.argv) > 1 else "configure"
if mode == "configure":
    configure()
elif mode == "grant":
    set_grant(sys.argv[2] if len(sys.argv) > 2 else E["GW_CLIENT_ID"], SCOPES)
elif mode == "revoke":
    set_grant(sys.argv[2] if len(sys.argv) > 2 else E["GW_CLIENT_ID_CONSENT"], [])
else:
    sys.exit("unknown mode " + mode)
PY
}

# ---------------------------------------------------------------- commands --

STATE_DIR=""
START_PID=""

fail_start() {
  log "start failed: $*"
  if [ -n "$START_PID" ] && pid_alive "$START_PID"; then
    kill "$START_PID" 2>/dev/null || true
    local i; for i in $(seq 1 50); do pid_alive "$START_PID" || break; sleep 0.1; done
    pid_alive "$START_PID" && kill -9 "$START_PID" 2>/dev/null || true
  fi
  rm -f "$STATE_DIR/glewlwyd.pid"
  for f in "$STATE_DIR/stdout.log" "$STATE_DIR/glewlwyd.log"; do
    [ -s "$f" ] && { echo "---- last lines of $f:" >&2; tail -n 20 "$f" >&2; }
  done
  die "$*"
}

cmd_start() {
  command -v glewlwyd >/dev/null 2>&1 || die "glewlwyd not installed: run '$0 install' first"
  for t in sqlite3 curl openssl python3; do
    command -v "$t" >/dev/null 2>&1 || die "$t not found: run '$0 install' first"
  done
  STATE_DIR="$(abs_dir "$1")" || die "cannot create state dir $1"
  local pid; pid="$(read_pid "$STATE_DIR")"
  if [ -n "$pid" ] && pid_is_ours "$pid" "$STATE_DIR"; then
    if http_ok "$BASE_URL/config" && http_ok "$ISSUER/.well-known/openid-configuration"; then
      log "already running (pid $pid), state dir $STATE_DIR"
      print_env
      return 0
    fi
    log "pid $pid is ours but not healthy: restarting"
    cmd_stop "$STATE_DIR" >/dev/null
  fi
  rm -f "$STATE_DIR/glewlwyd.pid"
  if port_in_use; then
    die "port ${HOST}:${PORT} is already in use by another process ($(ss -ltnp 2>/dev/null | grep ":${PORT} " | head -1 || true)); set GLEWLWYD_PORT or stop it"
  fi

  trap 'fail_start "interrupted"' INT TERM
  mkdir -p "$STATE_DIR/keys"; chmod 700 "$STATE_DIR/keys"
  make_keys "$STATE_DIR"
  write_config "$STATE_DIR"
  copy_webapp "$STATE_DIR"
  init_db "$STATE_DIR"
  : > "$STATE_DIR/glewlwyd.log"

  # Own session (setsid): not killed by the caller's terminal/process group signals.
  # All fds redirected so that callers reading our stdout are not blocked by it.
  setsid glewlwyd --config-file="$STATE_DIR/glewlwyd.conf" \
    >"$STATE_DIR/stdout.log" 2>&1 </dev/null &
  START_PID=$!
  echo "$START_PID" > "$STATE_DIR/glewlwyd.pid"

  local deadline=$((SECONDS + START_TIMEOUT))
  until http_ok "$BASE_URL/config"; do
    pid_alive "$START_PID" || fail_start "glewlwyd exited during startup"
    [ $SECONDS -lt $deadline ] || fail_start "glewlwyd did not answer on $BASE_URL within ${START_TIMEOUT}s"
    sleep 0.2
  done
  pid_is_ours "$START_PID" "$STATE_DIR" || fail_start "pid $START_PID is not our glewlwyd"

  run_api configure || fail_start "configuration through the admin API failed"
  trap - INT TERM
  log "running: pid $START_PID, port $PORT, state dir $STATE_DIR (log: $STATE_DIR/glewlwyd.log)"
  print_env | tee "$STATE_DIR/env"
}

cmd_stop() {
  STATE_DIR="$(cd "$1" 2>/dev/null && pwd)" || { log "state dir $1 does not exist: nothing to stop"; return 0; }
  load_port_from_state "$STATE_DIR"
  local pid; pid="$(read_pid "$STATE_DIR")"
  if [ -z "$pid" ]; then log "not running (no pid file in $STATE_DIR)"; return 0; fi
  if ! pid_is_ours "$pid" "$STATE_DIR"; then
    log "stale pid file (pid $pid not running glewlwyd for $STATE_DIR): removed"
    rm -f "$STATE_DIR/glewlwyd.pid"; return 0
  fi
  kill -TERM "$pid" 2>/dev/null || true
  local deadline=$((SECONDS + STOP_TIMEOUT))
  while pid_alive "$pid" && [ $SECONDS -lt $deadline ]; do sleep 0.1; done
  if pid_alive "$pid"; then
    log "pid $pid did not exit within ${STOP_TIMEOUT}s: SIGKILL"
    kill -KILL "$pid" 2>/dev/null || true
    deadline=$((SECONDS + 5))
    while pid_alive "$pid" && [ $SECONDS -lt $deadline ]; do sleep 0.1; done
    pid_alive "$pid" && die "pid $pid still alive after SIGKILL"
  fi
  rm -f "$STATE_DIR/glewlwyd.pid"
  deadline=$((SECONDS + 5))
  while port_in_use && [ $SECONDS -lt $deadline ]; do sleep 0.1; done
  log "stopped (pid $pid)"
}

cmd_status() {
  STATE_DIR="$(cd "$1" 2>/dev/null && pwd)" || die "state dir $1 does not exist"
  load_port_from_state "$STATE_DIR"
  local pid; pid="$(read_pid "$STATE_DIR")"
  if [ -n "$pid" ] && pid_is_ours "$pid" "$STATE_DIR" && http_ok "$BASE_URL/config"; then
    log "running (pid $pid)"; print_env
  else
    log "not running"; return 1
  fi
}

# glewlwyd.sh grant|revoke STATE_DIR [CLIENT_ID]: set/clear alice's consent for a client
cmd_consent() {
  local mode="$1" dir="$2" cid="${3:-}"
  STATE_DIR="$(cd "$dir" 2>/dev/null && pwd)" || die "state dir $dir does not exist"
  load_port_from_state "$STATE_DIR"
  http_ok "$BASE_URL/config" || die "glewlwyd is not answering on $BASE_URL"
  run_api "$mode" ${cid:+"$cid"} || die "$mode failed"
  log "$mode done for ${cid:-default client}"
}

# ---------------------------------------------------------------- main ------

main() {
  [ $# -ge 1 ] || usage
  local cmd="$1"; shift
  case "$cmd" in
    install) cmd_install "$@" ;;
    start) [ $# -eq 1 ] || usage; cmd_start "$1" ;;
    stop) [ $# -eq 1 ] || usage; cmd_stop "$1" ;;
    status) [ $# -eq 1 ] || usage; cmd_status "$1" ;;
    grant|revoke) [ $# -ge 1 ] && [ $# -le 2 ] || usage; cmd_consent "$cmd" "$@" ;;
    *) usage ;;
  esac
}

main "$@"
