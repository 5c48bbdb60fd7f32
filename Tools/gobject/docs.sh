#!/usr/bin/env bash
# The GObject layer's API reference, generated from the annotations in its GIR (gi-docgen), for
# C, Python, JavaScript and Vala developers: one HTML folder per toolkit in OUT.
#   Tools/gobject/docs.sh PREFIX OUT     (PREFIX: where Tools/gobject/gir.sh installed the layer)
set -euo pipefail
cd "$(dirname "$0")/../.."
prefix="$(realpath "$1")"
out="$(realpath -m "$2")"
for pair in "3.0 Gtk-3.0 WebKit2-4.1 3" "4.0 Gtk-4.0 WebKit-6.0 4"; do
  read -r version gtk webkit major <<<"$pair"
  gir="$prefix/share/gir-1.0/WebviewHost-$version.gir"
  [ -f "$gir" ] || continue
  config="$(mktemp)"
  sed -e "s/@VERSION@/$version/" -e "s/@GTK@/$gtk/g" -e "s/@WEBKIT@/$webkit/g" -e "s/@GTKMAJOR@/$major/" \
    Tools/gobject/webviewhost.toml >"$config"
  # --fatal-warnings: an annotation gi-docgen cannot read fails the build.
  gi-docgen generate --quiet --fatal-warnings --config "$config" --add-include-path "$prefix/share/gir-1.0" \
    --output-dir "$out" "$gir"
  rm -f "$config"
done
echo "$out"
