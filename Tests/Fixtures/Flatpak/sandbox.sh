#!/usr/bin/env bash
# A real Flatpak sandbox for the tests (issue 24): `flatpak run` of a test app on a runtime made
# from this machine's own /usr (a hardlinked copy, with the Swift runtime libraries), installed
# from a local ostree repo into a --user installation under STATE/home, with the real portals
# (xdg-desktop-portal 1.16 + xdg-desktop-portal-gtk, gnome-keyring's Secret portal) on a private
# session bus. Debian 12, as root or not; needs the packages .ci/install installs.
#
#   sandbox.sh setup STATE CHECKOUT     the runtime and the app (idempotent; ~30 s the first time)
#   sandbox.sh start STATE              the session: prints its environment (KEY=VALUE lines)
#   sandbox.sh run STATE [flatpak run options] -- PROGRAM [ARGS...]
#                                       PROGRAM (a path under CHECKOUT) inside the sandbox
#   sandbox.sh stop STATE               ends the session's processes
#   sandbox.sh sdk STATE                a build SDK beside the runtime (once; 30 s to 4 minutes)
#   sandbox.sh build STATE MANIFEST [build-manifest.py options]
#                                       an app built from its Flatpak manifest on that SDK
#                                       (flatpak-builder's steps), installed
#
# `run` passes the caller's WEBVIEW_HOST_*, SCENARIO_*, SIGNIN_*, WVH_* (and a few more) variables
# into the sandbox, and SANDBOX_LD_PRELOAD as the program's LD_PRELOAD. The session logs the
# OpenURI calls (STATE/openuri.log) and the Secret portal's requests with their answers
# (STATE/secret-portal.log).
#
# The app, io.github.webviewhost.SandboxTest, has the least permissions a sign-in needs
# (--share=network, --share=ipc, --socket=wayland, --socket=fallback-x11, --device=dri; no
# --talk-name=org.freedesktop.secrets) and reads the checkout (--filesystem=CHECKOUT:ro) to run
# the test programs. Its exported desktop file declares x-scheme-handler/io.github.webviewhost.sandboxtest.
# SANDBOX_APP_ID names another app id (a GApplication can own only its own id on the bus).
#
# Why some steps are as they are (each found the hard way, see the stop notes of issue 24):
# - The runtime has no share/applications: GIO would open a local handler instead of the portal.
# - flatpak-spawn on the runtime's PATH: WebKitGTK 6.0 sandboxes its web process through it.
# - `run` drops CAP_SYS_NICE: as root, WebKit's threads become realtime while the Realtime
#   portal (no rtkit here) sets RLIMIT_RTTIME to 0, and the kernel kills the app at random.
# - The ostree repo is bare-user-only: a compressed one takes 100 s to export 2 GB.
# - XDG_CURRENT_DESKTOP=GNOME: the GTK and gnome-keyring portals say UseIn=gnome.
set -euo pipefail
APP="${SANDBOX_APP_ID:-io.github.webviewhost.SandboxTest}"
RUNTIME=io.github.webviewhost.TestPlatform
SDK=io.github.webviewhost.TestSdk
command="${1:?usage: sandbox.sh setup|start|run|stop STATE ...}"
STATE="$(mkdir -p "${2:?STATE}" && cd "$2" && pwd)"
shift 2
export HOME="$STATE/home"
export XDG_DATA_HOME="$HOME/.local/share" XDG_CONFIG_HOME="$HOME/.config" XDG_CACHE_HOME="$HOME/.cache"
export XDG_RUNTIME_DIR="$STATE/runtime"
export XDG_DATA_DIRS="$XDG_DATA_HOME/flatpak/exports/share:/usr/local/share:/usr/share"
export XDG_CURRENT_DESKTOP=GNOME
mkdir -p "$HOME" "$XDG_DATA_HOME/applications" "$XDG_CONFIG_HOME" "$XDG_RUNTIME_DIR"
chmod 700 "$XDG_RUNTIME_DIR"

# A runtime NAME//master made from this machine's /usr (a hardlinked copy), exported to the local
# repo and installed; once per state folder and set of installed Debian packages (made again, and
# updated in place, when they changed). The folders named after NAME are left out; then HOOK runs
# with the copy's usr folder (what else it holds or lacks), METADATA is appended.
make_runtime() {
  local name="$1" left_out="$2" hook="$3" metadata="$4"
  local repo="$STATE/repo" folder="$STATE/build/$1"
  # Made again when this machine's packages changed since (a header the build now needs, say).
  local packages stamp="$STATE/$name.packages"
  packages="$(dpkg-query -W -f='${Package} ${Version}\n' 2>/dev/null | sha256sum | cut -d' ' -f1)"
  local installed=""
  if flatpak --user info "$name//master" >/dev/null 2>&1; then
    [ "$(cat "$stamp" 2>/dev/null)" = "$packages" ] && return 0
    installed=yes   # updated in place below: apps built on it keep it
  fi
  rm -rf "$folder"
  mkdir -p "$folder/files"
  cp -al /usr "$folder/usr"
  for d in $left_out; do rm -rf "$folder/usr/$d"; done
  [ -x /usr/libexec/flatpak-xdg-utils/flatpak-spawn ] && \
    ln -sf ../libexec/flatpak-xdg-utils/flatpak-spawn "$folder/usr/bin/flatpak-spawn"
  rm -rf "$folder/usr/etc"; cp -a /etc "$folder/usr/etc"
  rm -rf "$folder/usr/etc/shadow" "$folder/usr/etc/gshadow" "$folder/usr/etc/ssh"
  "$hook" "$folder/usr"
  printf '[Runtime]\nname=%s\nruntime=%s/x86_64/master\nsdk=%s/x86_64/master\n%s' "$name" "$name" "$name" "$metadata" > "$folder/metadata"
  [ -d "$repo/objects" ] || ostree init --repo="$repo" --mode=bare-user-only
  flatpak build-export --runtime --disable-sandbox --no-update-summary "$repo" "$folder" master >/dev/null
  flatpak build-update-repo "$repo" >/dev/null
  flatpak --user remote-add --if-not-exists --no-gpg-verify lab "file://$repo"
  if [ -n "$installed" ]; then
    flatpak --user update -y --noninteractive "$name//master" >/dev/null
  else
    flatpak --user install -y --noninteractive lab "$name//master" >/dev/null
  fi
  echo "$packages" > "$stamp"
  rm -rf "$folder"
}

# The test runtime: no compiler, no headers; the Swift runtime libraries in usr/lib.
with_swift_runtime() {
  cp -l /opt/swift/usr/lib/swift/linux/*.so "$1/lib/x86_64-linux-gnu/" 2>/dev/null \
    || cp /opt/swift/usr/lib/swift/linux/*.so "$1/lib/x86_64-linux-gnu/"
}

setup() {
  local checkout="${1:?CHECKOUT}"
  local build="$STATE/build"
  # The runtime: built once per state folder (its content is this machine's /usr).
  if ! flatpak --user info "$RUNTIME//master" >/dev/null 2>&1; then
    rm -rf "$STATE/repo"
    make_runtime "$RUNTIME" "lib/google-cloud-sdk lib/jvm lib/chromium lib/llvm-14 lib/gcc include
      share/doc share/man share/info share/locale share/applications local src games" with_swift_runtime ""
  fi
  # The app: a launcher for the test programs, its desktop file with the test scheme.
  rm -rf "$build/app"
  flatpak build-init "$build/app" "$APP" "$RUNTIME" "$RUNTIME" master >/dev/null
  mkdir -p "$build/app/files/bin" "$build/app/files/share/applications"
  printf '#!/bin/sh\nexec "$@"\n' > "$build/app/files/bin/run-test"
  chmod +x "$build/app/files/bin/run-test"
  cat > "$build/app/files/share/applications/$APP.desktop" <<EOD
[Desktop Entry]
Type=Application
Name=WebviewHost sandbox test
Exec=run-test %u
MimeType=x-scheme-handler/io.github.webviewhost.sandboxtest;
NoDisplay=true
EOD
  flatpak build-finish "$build/app" --share=network --share=ipc --socket=wayland --socket=fallback-x11 --device=dri \
    --filesystem="$checkout":ro --command=run-test >/dev/null
  flatpak build-export --disable-sandbox --no-update-summary "$STATE/repo" "$build/app" master >/dev/null
  flatpak build-update-repo "$STATE/repo" >/dev/null
  flatpak --user install -y --noninteractive --reinstall lab "$APP//master" >/dev/null
  rm -rf "$build/app"
}

# The SDK for building apps (as org.gnome.Sdk is to org.gnome.Platform): this machine's /usr with
# the compiler, the headers, gobject-introspection, Vala, git and pkg-config, with no Swift in it
# (the Swift SDK extension is mounted at usr/lib/sdk/swift6 while building) and no patchelf (as
# Tools/gobject/gir.sh says of Flatpak's SDK); GI_TYPELIB_PATH=/app/lib/girepository-1.0 in its
# environment, as the GNOME runtime's metadata sets it. Apps may run on it too.
without_swift_and_patchelf() {
  rm -f "$1/bin/patchelf"
  mkdir -p "$1/lib/sdk/swift6"
  if ls "$1"/lib/*/libswiftCore.so "$1"/lib/libswiftCore.so >/dev/null 2>&1; then
    echo "sandbox.sh: /usr has the Swift runtime: the SDK would hide what the app lacks" >&2; return 1
  fi
}

sdk() {
  make_runtime "$SDK" "lib/google-cloud-sdk lib/jvm lib/chromium share/doc share/man share/info share/locale
    share/applications local src games" without_swift_and_patchelf $'\n[Environment]\nGI_TYPELIB_PATH=/app/lib/girepository-1.0\n'
}

# MANIFEST built as flatpak-builder would (build-manifest.py, with its OPTIONS) on the SDK, the
# Swift toolchain of this machine (the one on PATH) as the swift6 SDK extension, and the Swift
# packages resolved offline as on the host (git reads github.com from /opt/swift-packages,
# /etc/gitconfig says so); exported to the local repo and installed. The modules' sources and
# what their builds leave (SwiftPM's .build) are kept in STATE/build/sources between builds.
build() {
  local manifest="${1:?MANIFEST}"; shift
  sdk
  local app_id toolchain packages=()
  app_id="$(/usr/bin/python3 -c 'import sys, yaml; print(yaml.safe_load(open(sys.argv[1]))["app-id"])' "$manifest")"
  # /opt/swift/usr/bin/swift: the toolchain's folder is /opt/swift/usr, laid out as the extension's.
  toolchain="$(dirname "$(dirname "$(readlink -f "$(command -v swift)")")")"
  [ -d /opt/swift-packages ] && packages=(--build-arg=--filesystem=/opt/swift-packages:ro)
  /usr/bin/python3 "$(dirname "$0")/build-manifest.py" "$manifest" "$STATE/build/$app_id" "$STATE/repo" \
    --work "$STATE/build/sources/$app_id" --sdk-extension "swift6=$toolchain" ${packages[@]+"${packages[@]}"} "$@"
  flatpak --user install -y --noninteractive --reinstall lab "$app_id//master" >/dev/null
  rm -rf "$STATE/build/$app_id"
}

start() {
  # Each session starts clean: no app data (its keyring file), no host keyring, no permissions.
  rm -rf "$HOME/.var/app/$APP" "$XDG_DATA_HOME/keyrings" "$XDG_DATA_HOME/flatpak/db"
  : > "$STATE/pids"
  eval "$(dbus-daemon --session --fork --print-address=1 --print-pid=1 | { read -r address; read -r pid; echo "DBUS_SESSION_BUS_ADDRESS='$address'; BUS_PID=$pid"; })"
  export DBUS_SESSION_BUS_ADDRESS
  echo "$BUS_PID" >> "$STATE/pids"
  # A login keyring created and unlocked from standard input: the Secret portal asks nobody.
  printf '%s' sandbox-keyring-password | gnome-keyring-daemon --unlock --components=secrets --foreground >"$STATE/keyring.log" 2>&1 &
  echo $! >> "$STATE/pids"
  G_MESSAGES_DEBUG=all /usr/libexec/xdg-desktop-portal-gtk >"$STATE/portal-gtk.log" 2>&1 &
  echo $! >> "$STATE/pids"
  G_MESSAGES_DEBUG=all /usr/libexec/xdg-desktop-portal --verbose >"$STATE/portal.log" 2>&1 &
  echo $! >> "$STATE/pids"
  # Every OpenURI call on the bus, as the portal received it (parent_window, uri, options).
  dbus-monitor --address "$DBUS_SESSION_BUS_ADDRESS" "interface='org.freedesktop.portal.OpenURI'" >"$STATE/openuri.log" 2>&1 &
  echo $! >> "$STATE/pids"
  # Every Secret portal call and its Response (libsecret's file backend asks for the app's key).
  dbus-monitor --address "$DBUS_SESSION_BUS_ADDRESS" "interface='org.freedesktop.portal.Secret'" "interface='org.freedesktop.portal.Request'" >"$STATE/secret-portal.log" 2>&1 &
  echo $! >> "$STATE/pids"
  for name in org.freedesktop.secrets org.freedesktop.portal.Desktop; do
    for _ in $(seq 200); do
      gdbus call --session -d org.freedesktop.DBus -o /org/freedesktop/DBus -m org.freedesktop.DBus.NameHasOwner "$name" 2>/dev/null \
        | grep -q true && break
      sleep 0.05
    done
  done
  echo "DBUS_SESSION_BUS_ADDRESS=$DBUS_SESSION_BUS_ADDRESS"
  echo "HOME=$HOME"
  echo "XDG_DATA_HOME=$XDG_DATA_HOME"
  echo "XDG_CONFIG_HOME=$XDG_CONFIG_HOME"
  echo "XDG_CACHE_HOME=$XDG_CACHE_HOME"
  echo "XDG_RUNTIME_DIR=$XDG_RUNTIME_DIR"
  echo "XDG_DATA_DIRS=$XDG_DATA_DIRS"
  echo "XDG_CURRENT_DESKTOP=$XDG_CURRENT_DESKTOP"
}

stop() {
  [ -f "$STATE/pids" ] || return 0
  tac "$STATE/pids" | while read -r pid; do kill "$pid" 2>/dev/null || true; done
  rm -f "$STATE/pids"
}

run() {
  local options=()
  while [ $# -gt 0 ] && [ "$1" != "--" ]; do options+=("$1"); shift; done
  [ "${1:-}" = "--" ] && shift
  # Every variable the caller set for the program goes in (flatpak run keeps most of the
  # environment, but not the XDG ones it sets itself); the sandbox's own come first.
  local env_args=()
  while IFS='=' read -r name value; do
    case "$name" in
      WEBVIEW_HOST_*|SCENARIO_*|SIGNIN_*|WVH_*|ISSUER|CLIENT_ID|USERNAME|PASSWORD|STORE|G_MESSAGES_DEBUG|NO_AT_BRIDGE|GTK_A11Y|GDK_BACKEND)
        env_args+=("--env=$name=$value") ;;
      # A library preloaded into the program only (not into flatpak or bwrap).
      SANDBOX_LD_PRELOAD) env_args+=("--env=LD_PRELOAD=$value") ;;
    esac
  done < <(env)
  exec setpriv --bounding-set -sys_nice --inh-caps -sys_nice -- \
    flatpak run --command=run-test ${options[@]+"${options[@]}"} ${env_args[@]+"${env_args[@]}"} "$APP" "$@"
}

case "$command" in
  setup) setup "$@" ;;
  sdk) sdk ;;
  build) build "$@" ;;
  start) start ;;
  stop) stop ;;
  run) run "$@" ;;
  *) echo "sandbox.sh: unknown command $command" >&2; exit 2 ;;
esac
