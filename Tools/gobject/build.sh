#!/usr/bin/env bash
# Builds the GObject layer for C, Python, JavaScript and Vala apps and installs it into PREFIX
# (default .build/gobject; /usr/local for the machine): libwebviewhost-gtk3.so and
# libwebviewhost-gtk4.so (products of this package) with the Swift runtime they need, and for
# each its GIR and typelib (WebviewHost-3.0, WebviewHost-4.0), C headers, pkg-config file and
# Vala .vapi (Tools/gobject/gir.sh says where each goes). Needs the packages .ci/install
# installs (gobject-introspection, libgirepository1.0-dev, valac, patchelf).
#   Tools/gobject/build.sh [PREFIX]
set -euo pipefail
cd "$(dirname "$0")/../.."
configuration="${WEBVIEW_HOST_CONFIGURATION:-release}"
prefix="${1:-.build/gobject}"
swift build -c "$configuration" --product webviewhost-gtk3 >&2
swift build -c "$configuration" --product webviewhost-gtk4 >&2
bin="$(swift build -c "$configuration" --show-bin-path)"
Tools/gobject/gir.sh "$bin" "$prefix" gtk3 >/dev/null
Tools/gobject/gir.sh "$bin" "$prefix" gtk4
