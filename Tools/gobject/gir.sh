#!/usr/bin/env bash
# Installs a built libwebviewhost-gtk3.so or -gtk4.so into PREFIX, with what C, Python, GJS and
# Vala apps need, in the usual places:
#   lib/libwebviewhost-TOOLKIT.so            the library, its RUNPATH $ORIGIN/webviewhost-swift
#   lib/webviewhost-swift/                   the Swift runtime it loads (so a machine without a
#                                            Swift toolchain runs it)
#   lib/girepository-1.0/WebviewHost-V.typelib, share/gir-1.0/WebviewHost-V.gir
#                                            introspection (V: 3.0 for GTK 3, 4.0 for GTK 4)
#   include/webviewhost-TOOLKIT/             the C headers
#   lib/pkgconfig/webviewhost-TOOLKIT.pc     for C: pkg-config --cflags --libs webviewhost-gtk3
#   share/vala/vapi/webviewhost-TOOLKIT.vapi for Vala, with its .deps (GTK 4: also WebKitGTK
#                                            6.0's binding, which Debian 12's Vala lacks)
#   Tools/gobject/gir.sh BIN PREFIX [gtk3|gtk4]
set -euo pipefail
cd "$(dirname "$0")/../.."
bin="$(realpath "$1")"
prefix="$(realpath -m "$2")"
toolkit="${3:-gtk3}"
case "$toolkit" in
  gtk3) version=3.0 gtk=Gtk-3.0 webkit=WebKit2-4.1 pkgs="gtk+-3.0 webkit2gtk-4.1" target=GTK3 ;;
  gtk4) version=4.0 gtk=Gtk-4.0 webkit=WebKit-6.0 pkgs="gtk4 webkitgtk-6.0" target=GTK4 ;;
  *) echo "gir.sh: the toolkit is gtk3 or gtk4, not $toolkit" >&2; exit 2 ;;
esac
library="webviewhost-$toolkit"
shared=Sources/CWebviewHostGObjectShared
lib="$prefix/lib"
include="$prefix/include/$library"
vapi="$prefix/share/vala/vapi"
mkdir -p "$lib/webviewhost-swift" "$lib/girepository-1.0" "$lib/pkgconfig" "$prefix/share/gir-1.0" "$include" "$vapi"

install -m 0755 "$bin/lib$library.so" "$lib/"
# The Swift runtime the library loads from the toolchain, beside it; found through its RUNPATH:
# lib/webviewhost-swift, set with patchelf; without patchelf (a Flatpak SDK), lib itself, which
# the RUNPATH the toolchain gave ($ORIGIN) already names.
runtime_dir="$lib/webviewhost-swift"
command -v patchelf >/dev/null || runtime_dir="$lib"
ldd "$lib/lib$library.so" | awk -v swift="$(dirname "$(dirname "$(command -v swift)")")" \
  'index($3, swift) == 1 { print $3 }' | while read -r runtime; do install -m 0644 "$runtime" "$runtime_dir/"; done
if command -v patchelf >/dev/null; then
  patchelf --set-rpath '$ORIGIN/webviewhost-swift' "$lib/lib$library.so"
  for runtime in "$lib"/webviewhost-swift/*.so; do patchelf --set-rpath '$ORIGIN' "$runtime"; done
else
  rmdir "$lib/webviewhost-swift" 2>/dev/null || true
fi

install -m 0644 "$shared/include/webviewhost.h" "Sources/CWebviewHostGObject$target/include/webviewhost-toolkit.h" "$include/"
pkg_flags=()
for pkg in $pkgs; do pkg_flags+=("--pkg=$pkg"); done
# The scanner compiles a program against the library and runs it to read the types.
LD_LIBRARY_PATH="$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" g-ir-scanner --quiet --warn-all \
  --namespace=WebviewHost --nsversion="$version" --identifier-prefix=Wvh --symbol-prefix=wvh \
  --include=GObject-2.0 --include=Gio-2.0 --include="$gtk" --include="$webkit" \
  "${pkg_flags[@]}" --pkg-export="$library" --c-include=webviewhost.h \
  -I"$include" -L"$lib" --library="$library" \
  "$include/webviewhost.h" "$shared"/wvh-*.c \
  -o "$prefix/share/gir-1.0/WebviewHost-$version.gir"
# The typelib names the library by its installed path: found without LD_LIBRARY_PATH or ldconfig.
sed -i "s|shared-library=\"lib$library.so\"|shared-library=\"$lib/lib$library.so\"|" "$prefix/share/gir-1.0/WebviewHost-$version.gir"
g-ir-compiler "$prefix/share/gir-1.0/WebviewHost-$version.gir" -o "$lib/girepository-1.0/WebviewHost-$version.typelib"

if [ "$toolkit" = gtk4 ]; then
  vapigen --quiet --library=javascriptcoregtk-6.0 --pkg=gobject-2.0 --directory="$vapi" /usr/share/gir-1.0/JavaScriptCore-6.0.gir 2>/dev/null
  vapigen --quiet --library=webkitgtk-6.0 --vapidir="$vapi" --pkg=gtk4 --pkg=libsoup-3.0 --pkg=javascriptcoregtk-6.0 \
    --directory="$vapi" /usr/share/gir-1.0/WebKit-6.0.gir 2>/dev/null
fi
vapi_pkgs=(--pkg=gio-2.0)
for pkg in $pkgs; do vapi_pkgs+=("--pkg=$pkg"); done
# Vala's namespace is the introspection one, WebviewHost (vapigen would name it after the C prefix, Wvh).
metadata=$(mktemp -d)
printf 'WebviewHost name="WebviewHost"\n' > "$metadata/WebviewHost-$version.metadata"
vapigen --quiet --library="$library" --metadatadir="$metadata" --vapidir="$vapi" "${vapi_pkgs[@]}" --directory="$vapi" \
  "$prefix/share/gir-1.0/WebviewHost-$version.gir"
rm -rf "$metadata"
# What valac loads with each binding.
printf '%s\n' gio-2.0 $pkgs > "$vapi/$library.deps"
if [ "$toolkit" = gtk4 ]; then
  printf '%s\n' gobject-2.0 > "$vapi/javascriptcoregtk-6.0.deps"
  printf '%s\n' gtk4 libsoup-3.0 javascriptcoregtk-6.0 > "$vapi/webkitgtk-6.0.deps"
fi

cat > "$lib/pkgconfig/$library.pc" <<PC
prefix=$prefix
libdir=\${prefix}/lib
includedir=\${prefix}/include

Name: $library
Description: Sign people in to OAuth 2.0 / OpenID Connect providers from a $target app (WebviewHost's GObject layer)
Version: $version
Requires: gio-2.0 $pkgs
Libs: -L\${libdir} -l$library -Wl,-rpath,\${libdir}
Cflags: -I\${includedir}/$library
PC
echo "$prefix"
