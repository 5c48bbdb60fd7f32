#!/usr/bin/env bash
# Runs SignInDemoGTK3 (GTK 3), or SignInDemoGTK4 with --gtk4, against a local Glewlwyd OpenID
# Connect server on 127.0.0.1:4593. Other arguments go to the app (--start=browser|window|here).
# Installs what is missing first (Debian 12).
#
# Without a display it runs the app headless, with a session bus of its own, starts a sign-in
# in the app's own view (unless --start= says otherwise) and saves a screenshot to demo.png
# (WEBVIEW_HOST_DEMO_SCREENSHOT: another path; WEBVIEW_HOST_DEMO_SECONDS: how long before the
# screenshot, default 12). On Xvfb by default; with --wayland on a private headless Weston
# instead, which places windows as a desktop does (on X11 without a window manager GTK 4
# cannot centre the library's sign-in window on the app: it opens in the corner).
set -euo pipefail
cd "$(dirname "$0")/.."
product=SignInDemoGTK3
wayland=0
arguments=()
for argument in "$@"; do
  case "$argument" in
    --gtk4) product=SignInDemoGTK4 ;;
    --wayland) wayland=1 ;;
    *) arguments+=("$argument") ;;
  esac
done
bash .ci/install
swift build --product "$product"
state="$(mktemp -d /tmp/webviewhost-demo.XXXXXX)"
trap 'bash Tests/Fixtures/Glewlwyd/glewlwyd.sh stop "$state" >/dev/null 2>&1 || true; rm -rf "$state"' EXIT
bash Tests/Fixtures/Glewlwyd/glewlwyd.sh start "$state" > "$state/env"
# What an app author needs to try their own code against this server while it runs.
( . "$state/env"
  cat <<EOT
The demo's OpenID Connect server (Glewlwyd) is running while the demo runs:
  authority (issuer)   $ISSUER
  client ID            $CLIENT_ID (public, PKCE; also $CLIENT_ID_ES256 for ES256 ID tokens)
  redirect URIs        http://127.0.0.1/callback with any port is NOT registered: the server matches exactly.
                       Person's browser (loopback):  http://127.0.0.1:23682/callback, http://127.0.0.1:23683/callback, http://[::1]:23684/callback
                       Embedded view (exact):        http://127.0.0.1:23685/embedded-callback
                       Custom scheme:                com.example.webviewhost:/oauth2redirect
  person               $USERNAME / $PASSWORD ($USER_EMAIL)
  scopes               openid profile email offline_access
EOT
)
demo="$(swift build --product "$product" --show-bin-path)/$product"
if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
  "$demo" ${arguments[@]+"${arguments[@]}"}
  exit
fi

shot="$(realpath -m "${WEBVIEW_HOST_DEMO_SCREENSHOT:-demo.png}")"
seconds="${WEBVIEW_HOST_DEMO_SECONDS:-12}"
case " ${arguments[*]-} " in
  *" --start="*) ;;
  *) arguments=(--start=here ${arguments[@]+"${arguments[@]}"}) ;;
esac
export WEBVIEW_HOST_DEMO_TOKEN_STORE=memory   # no desktop, so no keyring
export NO_AT_BRIDGE=1 GTK_A11Y=none           # no accessibility bus to outlive the app
# Runs the app, waits, takes the screenshot with "$1", ends the app. A session bus of its own
# (a GtkApplication registers its name there), ended with the app.
run_and_shoot='
  screenshot="$1" seconds="$2"; shift 2
  "$@" & pid=$!
  sleep "$seconds"
  eval "$screenshot"
  kill "$pid"; wait "$pid" 2>/dev/null || true'
if [ "$wayland" = 1 ]; then
  echo "No display: running $product ${arguments[*]} on a headless Weston for $seconds seconds and saving $shot"
  runtime="$(mktemp -d /tmp/webviewhost-demo-wayland.XXXXXX)"   # mode 0700, as XDG_RUNTIME_DIR must be
  trap 'kill "${weston:-0}" 2>/dev/null || true; rm -rf "$runtime"; bash Tests/Fixtures/Glewlwyd/glewlwyd.sh stop "$state" >/dev/null 2>&1 || true; rm -rf "$state"' EXIT
  # --debug lets weston-screenshooter take the screenshot; --use-pixman renders in memory.
  XDG_RUNTIME_DIR="$runtime" weston --backend=headless-backend.so --socket=webviewhost-demo --idle-time=0 \
    --no-config --debug --use-pixman --width=1280 --height=800 > "$runtime/weston.log" 2>&1 &
  weston=$!
  for _ in $(seq 100); do [ -S "$runtime/webviewhost-demo" ] && break; sleep 0.1; done
  # weston-screenshooter writes wayland-screenshot-<date>.png into the current folder.
  (cd "$runtime" && env -u DISPLAY XDG_RUNTIME_DIR="$runtime" WAYLAND_DISPLAY=webviewhost-demo GDK_BACKEND=wayland \
    dbus-run-session -- bash -c "$run_and_shoot" run-demo \
    'weston-screenshooter && mv wayland-screenshot-*.png "'"$shot"'"' "$seconds" "$demo" "${arguments[@]}")
else
  echo "No display: running $product ${arguments[*]} under Xvfb for $seconds seconds and saving $shot"
  xvfb-run -a -s "-screen 0 1280x800x24" dbus-run-session -- bash -c "$run_and_shoot" run-demo \
    'import -window root "'"$shot"'"' "$seconds" "$demo" "${arguments[@]}"
fi
