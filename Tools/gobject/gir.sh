#!/usr/bin/env bash
# The introspection data of a built libwebviewhost-gtk3.so or -gtk4.so: copies the library from
# BIN to OUT and writes there its GIR and typelib (g-ir-scanner, g-ir-compiler: WebviewHost-3.0
# for GTK 3, WebviewHost-4.0 for GTK 4), its C headers, the Vala binding (vapigen) and the
# pkg-config file (for PREFIX, default OUT).
#   Tools/gobject/gir.sh BIN OUT [gtk3|gtk4] [PREFIX]
set -euo pipefail
cd "$(dirname "$0")/../.."
bin="$(realpath "$1")"
out="$(realpath -m "$2")"
toolkit="${3:-gtk3}"
prefix="${4:-$out}"
case "$toolkit" in
  gtk3) version=3.0 gtk=Gtk-3.0 webkit=WebKit2-4.1 pkgs="gtk+-3.0 webkit2gtk-4.1" target=GTK3 ;;
  gtk4) version=4.0 gtk=Gtk-4.0 webkit=WebKit-6.0 pkgs="gtk4 webkitgtk-6.0" target=GTK4 ;;
  *) echo "gir.sh: the toolkit is gtk3 or gtk4, not $toolkit" >&2; exit 2 ;;
esac
library="webviewhost-$toolkit"
shared=Sources/CWebviewHostGObjectShared
mkdir -p "$out/include/$library"
cp "$bin/lib$library.so" "$out/"
cp "$shared/include/webviewhost.h" "Sources/CWebviewHostGObject$target/include/webviewhost-toolkit.h" "$out/include/$library/"
pkg_flags=()
for pkg in $pkgs; do pkg_flags+=("--pkg=$pkg"); done
# The scanner compiles a program against the library and runs it to read the types.
LD_LIBRARY_PATH="$out${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" g-ir-scanner --quiet --warn-all \
  --namespace=WebviewHost --nsversion="$version" --identifier-prefix=Wvh --symbol-prefix=wvh \
  --include=GObject-2.0 --include=Gio-2.0 --include="$gtk" --include="$webkit" \
  "${pkg_flags[@]}" --pkg-export="$library" --c-include=webviewhost.h \
  -I"$out/include/$library" -L"$out" --library="$library" \
  "$out/include/$library/webviewhost.h" "$shared"/wvh-*.c \
  -o "$out/WebviewHost-$version.gir"
g-ir-compiler "$out/WebviewHost-$version.gir" -o "$out/WebviewHost-$version.typelib"
if [ "$toolkit" = gtk4 ]; then
  # Debian 12's Vala has no binding for WebKitGTK 6.0: made from its GIR, beside ours.
  vapigen --quiet --library=javascriptcoregtk-6.0 --pkg=gobject-2.0 --directory="$out" /usr/share/gir-1.0/JavaScriptCore-6.0.gir
  vapigen --quiet --library=webkitgtk-6.0 --vapidir="$out" --pkg=gtk4 --pkg=libsoup-3.0 --pkg=javascriptcoregtk-6.0 \
    --directory="$out" /usr/share/gir-1.0/WebKit-6.0.gir 2>/dev/null
fi
vapi_pkgs=(--pkg=gio-2.0)
for pkg in $pkgs; do vapi_pkgs+=("--pkg=$pkg"); done
vapigen --quiet --library="$library" --vapidir="$out" "${vapi_pkgs[@]}" --directory="$out" "$out/WebviewHost-$version.gir"
cat > "$out/$library.pc" <<PC
prefix=$prefix
libdir=\${prefix}/lib
includedir=\${prefix}/include

Name: $library
Description: Sign people in to OAuth 2.0 / OpenID Connect providers from a $target app (WebviewHost's GObject layer)
Version: $version
Requires: gio-2.0 $pkgs
Libs: -L\${libdir} -l$library
Cflags: -I\${includedir}/$library
PC
echo "$out"
