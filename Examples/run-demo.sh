#!/usr/bin/env bash
# Runs SignInDemo against a local Glewlwyd OpenID Connect server on 127.0.0.1:4593.
# Installs what is missing first (Debian 12). Without a display it runs under Xvfb and saves
# a screenshot to demo.png.
set -euo pipefail
cd "$(dirname "$0")/.."
bash .ci/install
swift build --product SignInDemo
state="$(mktemp -d /tmp/webviewhost-demo.XXXXXX)"
trap 'bash Tests/Glewlwyd/glewlwyd.sh stop "$state" >/dev/null 2>&1 || true' EXIT
bash Tests/Glewlwyd/glewlwyd.sh start "$state" > "$state/env"
demo="$(swift build --product SignInDemo --show-bin-path)/SignInDemo"
if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
  "$demo" "$@"
else
  echo "No display: running under Xvfb for 15 seconds and saving demo.png"
  export WEBVIEW_HOST_DEMO_TOKEN_STORE=memory   # no desktop, so no keyring
  xvfb-run -a -s "-screen 0 1280x800x24" bash -c "\"$demo\" --start=here $* & pid=\$!; sleep 12; import -window root demo.png; kill \$pid"
fi
