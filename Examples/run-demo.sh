#!/usr/bin/env bash
# Runs SignInDemo (GTK 3), or SignInDemoGTK4 with --gtk4, against a local Glewlwyd OpenID
# Connect server on 127.0.0.1:4593. Other arguments go to the app (--start=browser|window|here).
# Installs what is missing first (Debian 12). Without a display it runs under Xvfb, with a
# session bus of its own, starts a sign-in in the app's own view (unless --start= says otherwise)
# and saves a screenshot to demo.png (WEBVIEW_HOST_DEMO_SCREENSHOT: another path;
# WEBVIEW_HOST_DEMO_SECONDS: how long before the screenshot, default 12).
set -euo pipefail
cd "$(dirname "$0")/.."
product=SignInDemo
arguments=()
for argument in "$@"; do
  case "$argument" in
    --gtk4) product=SignInDemoGTK4 ;;
    *) arguments+=("$argument") ;;
  esac
done
bash .ci/install
swift build --product "$product"
state="$(mktemp -d /tmp/webviewhost-demo.XXXXXX)"
trap 'bash Tests/Glewlwyd/glewlwyd.sh stop "$state" >/dev/null 2>&1 || true' EXIT
bash Tests/Glewlwyd/glewlwyd.sh start "$state" > "$state/env"
demo="$(swift build --product "$product" --show-bin-path)/$product"
if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
  "$demo" ${arguments[@]+"${arguments[@]}"}
else
  shot="${WEBVIEW_HOST_DEMO_SCREENSHOT:-demo.png}"
  seconds="${WEBVIEW_HOST_DEMO_SECONDS:-12}"
  case " ${arguments[*]-} " in
    *" --start="*) ;;
    *) arguments=(--start=here ${arguments[@]+"${arguments[@]}"}) ;;
  esac
  echo "No display: running $product ${arguments[*]} under Xvfb for $seconds seconds and saving $shot"
  export WEBVIEW_HOST_DEMO_TOKEN_STORE=memory   # no desktop, so no keyring
  export NO_AT_BRIDGE=1 GTK_A11Y=none           # no accessibility bus to outlive the app
  # A session bus of our own (a GtkApplication registers its name there), ended with the app.
  xvfb-run -a -s "-screen 0 1280x800x24" dbus-run-session -- bash -c '
    shot="$1" seconds="$2"; shift 2
    "$@" & pid=$!
    sleep "$seconds"
    import -window root "$shot"
    kill "$pid"; wait "$pid" 2>/dev/null || true' run-demo "$shot" "$seconds" "$demo" "${arguments[@]}"
fi
