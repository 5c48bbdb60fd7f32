#!/usr/bin/env bash
# The introspection data of a built libwebviewhost-gtk3.so: copies the library from BIN to OUT
# and writes there WebviewHost-3.0.gir and .typelib (g-ir-scanner, g-ir-compiler), the Vala
# binding webviewhost-gtk3.vapi (vapigen) and webviewhost-gtk3.pc.
#   Tools/gobject/gir.sh BIN OUT [PREFIX]
set -euo pipefail
cd "$(dirname "$0")/../.."
bin="$(realpath "$1")"
out="$(realpath -m "$2")"
prefix="${3:-$out}"
sources=Sources/CWebviewHostGObjectGTK3
mkdir -p "$out"
cp "$bin/libwebviewhost-gtk3.so" "$out/"
# The scanner compiles a program against the library and runs it to read the types.
LD_LIBRARY_PATH="$out${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" g-ir-scanner --quiet --warn-all \
  --namespace=WebviewHost --nsversion=3.0 --identifier-prefix=Wvh --symbol-prefix=wvh \
  --include=GObject-2.0 --include=Gio-2.0 --include=Gtk-3.0 --include=WebKit2-4.1 \
  --pkg=webkit2gtk-4.1 --pkg-export=webviewhost-gtk3 --c-include=webviewhost.h \
  -I"$sources/include" -L"$out" --library=webviewhost-gtk3 \
  "$sources/include/webviewhost.h" "$sources"/wvh-*.c \
  -o "$out/WebviewHost-3.0.gir"
g-ir-compiler "$out/WebviewHost-3.0.gir" -o "$out/WebviewHost-3.0.typelib"
mkdir -p "$out/include/webviewhost-gtk3"
cp "$sources/include/webviewhost.h" "$out/include/webviewhost-gtk3/"
vapigen --quiet --library=webviewhost-gtk3 --pkg=gio-2.0 --pkg=gtk+-3.0 --pkg=webkit2gtk-4.1 \
  --directory="$out" "$out/WebviewHost-3.0.gir"
cat > "$out/webviewhost-gtk3.pc" <<PC
prefix=$prefix
libdir=\${prefix}/lib
includedir=\${prefix}/include

Name: webviewhost-gtk3
Description: Sign people in to OAuth 2.0 / OpenID Connect providers from a GTK 3 app (WebviewHost's GObject layer)
Version: 3.0
Requires: gio-2.0 gtk+-3.0 webkit2gtk-4.1
Libs: -L\${libdir} -lwebviewhost-gtk3
Cflags: -I\${includedir}/webviewhost-gtk3
PC
echo "$out"
