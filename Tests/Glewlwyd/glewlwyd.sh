#!/usr/bin/env bash
# Local Glewlwyd OpenID Connect server for WebviewHost tests and demo.
# See README.md in this directory.
#
#   glewlwyd.sh install            install Debian's glewlwyd (service never started)
#   glewlwyd.sh start STATE_DIR    start our own instance on 127.0.0.1:$GLEWLWYD_PORT
#   glewlwyd.sh stop STATE_DIR     stop it
#   glewlwyd.sh status STATE_DIR   print KEY=value lines if running
set -euo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

PORT="${GLEWLWYD_PORT:-4593}"
HOST=127.0.0.1
BASE_URL="http://${HOST}:${PORT}"
ISSUER="${BASE_URL}/api/oidc"
CLIENT_ID="webviewhost-tests"
CLIENT_ID_ES256="webviewhost-es256"
CLIENT_ID_CONSENT="webviewhost-consent"
TEST_USER="alice"
TEST_PASSWORD="alice-password"
TEST_NAME="Alice Example"
TEST_EMAIL="alice@example.com"
ADMIN_USER="admin"
ADMIN_PASSWORD="password"   # Glewlwyd's default admin (created by the schema), loopback only
REDIRECT_URIS=(
  "http://127.0.0.1:53682/callback"
  "http://127.0.0.1:53683/callback"
  "http://[::1]:53684/callback"
  "http://127.0.0.1:53685/embedded-callback"
  "com.example.webviewhost:/oauth2redirect"
)
START_TIMEOUT="${GLEWLWYD_START_TIMEOUT:-30}"
STOP_TIMEOUT="${GLEWLWYD_STOP_TIMEOUT:-15}"

log() { echo "glewlwyd.sh: $*" >&2; }
die() { echo "glewlwyd.sh: ERROR: $*" >&2; exit 1; }

usage() {
  sed -n '2,9p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

need_root() { [ "$(id -u)" = 0 ] || die "'$1' must run as root"; }

# ---------------------------------------------------------------- install ---

# Stop/disable a system glewlwyd service, whatever the init system.
stop_system_service() {
  if [ -d /run/systemd/system ] && command -v systemctl >/dev/null 2>&1; then
    systemctl stop glewlwyd.service >/dev/null 2>&1 || true
    systemctl disable glewlwyd.service >/dev/null 2>&1 || true
    systemctl mask glewlwyd.service >/dev/null 2>&1 || true
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

cmd_install() {
  need_root install
  export DEBIAN_FRONTEND=noninteractive
  local pkgs=(glewlwyd glewlwyd-common dbconfig-no-thanks sqlite3 curl openssl ca-certificates python3)
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

    # Forbid service starts during the installation (policy-rc.d exit 101).
    local prc=/usr/sbin/policy-rc.d prc_backup=""
    if [ -e "$prc" ]; then
      prc_backup="$(mktemp /tmp/policy-rc.d.XXXXXX)"
      cp -p "$prc" "$prc_backup"
    fi
    restore_prc() {
      if [ -n "$prc_backup" ]; then mv -f "$prc_backup" "$prc"; else rm -f "$prc"; fi
    }
    trap restore_prc EXIT
    printf '#!/bin/sh\nexit 101\n' > "$prc"
    chmod 755 "$prc"

    local apt_opts=(-o DPkg::Lock::Timeout=900 -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold)
    if ! apt-get "${apt_opts[@]}" install -y --no-install-recommends "${missing[@]}" </dev/null; then
      log "apt-get install failed; running apt-get update and retrying"
      apt-get -o DPkg::Lock::Timeout=900 update </dev/null || die "apt-get update failed"
      apt-get "${apt_opts[@]}" install -y --no-install-recommends "${missing[@]}" </dev/null \
        || die "apt-get install ${missing[*]} failed"
    fi
    restore_prc
    trap - EXIT
  else
    log "packages already installed"
  fi
  stop_system_service
  [ -x /usr/bin/glewlwyd ] || die "/usr/bin/glewlwyd missing after install"
  log "installed $(dpkg-query -W -f='${Package} ${Version}' glewlwyd); system service not running"
}

# ---------------------------------------------------------------- helpers ---

abs_dir() { mkdir -p "$1" && (cd "$1" && pwd); }

pid_alive() { [ -n "${1:-}" ] && kill -0 "$1" 2>/dev/null; }

read_pid() { [ -f "$1/glewlwyd.pid" ] && tr -dc '0-9' < "$1/glewlwyd.pid" || true; }

# true if the pid belongs to a glewlwyd using this state dir's config
pid_is_ours() {
  local pid="$1" dir="$2"
  pid_alive "$pid" || return 1
  tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null | grep -q -- "$dir/glewlwyd.conf"
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
CLIENT_ID=${CLIENT_ID}
CLIENT_ID_ES256=${CLIENT_ID_ES256}
CLIENT_ID_CONSENT=${CLIENT_ID_CONSENT}
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
# Generated by Tests/Glewlwyd/glewlwyd.sh - test instance, loopback only.
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
cookie_domain="${HOST}"
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

# ---------------------------------------------------------------- main ------

main() {
  [ $# -ge 1 ] || usage
  local cmd="$1"; shift
  case "$cmd" in
    install) cmd_install "$@" ;;
    start) [ $# -eq 1 ] || usage; cmd_start "$1" ;;
    stop) [ $# -eq 1 ] || usage; cmd_stop "$1" ;;
    status) [ $# -eq 1 ] || usage; cmd_status "$1" ;;
    *) usage ;;
  esac
}

main "$@"
