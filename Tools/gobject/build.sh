#!/usr/bin/env bash
# Builds the GObject layer for C, Python, JavaScript and Vala apps into OUT (default
# .build/gobject): libwebviewhost-gtk3.so (a product of this package), its GIR and typelib
# (WebviewHost-3.0), C header, pkg-config file and Vala .vapi (Tools/gobject/gir.sh). Needs the
# packages .ci/install installs (gobject-introspection, libgirepository1.0-dev, valac).
#   Tools/gobject/build.sh [OUT]
set -euo pipefail
cd "$(dirname "$0")/../.."
configuration="${WEBVIEW_HOST_CONFIGURATION:-debug}"
swift build -c "$configuration" --product webviewhost-gtk3 >&2
exec Tools/gobject/gir.sh "$(swift build -c "$configuration" --show-bin-path)" "${1:-.build/gobject}"
