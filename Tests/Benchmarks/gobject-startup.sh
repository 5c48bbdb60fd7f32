#!/usr/bin/env bash
# What the GObject layer costs an app at start-up, before any sign-in (issue 41, item 7): a
# Python (PyGObject) and a C GTK 3 app each import the library, make a PublicClientApplication
# (memory token cache) and read its accounts, the first call an app such as a mail client makes
# to renew tokens silently. Against the same app without the library, in the same run, the
# variants interleaved: the resident memory and the time that part adds (median, min and max of
# N starts, each a new process), and the whole process's resident memory as a ratio.
#   bash Tests/Benchmarks/gobject-startup.sh [-c release|debug] [N]
set -euo pipefail
cd "$(dirname "$0")/../.."
configuration=release
if [ "${1:-}" = "-c" ]; then configuration="$2"; shift 2; fi
runs="${1:-10}"
swift build -c "$configuration" --product webviewhost-gtk3 >&2
bin="$(swift build -c "$configuration" --show-bin-path)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
Tools/gobject/gir.sh "$bin" "$work/prefix" gtk3 >/dev/null
here=Tests/Benchmarks/Startup
export PKG_CONFIG_PATH="$work/prefix/lib/pkgconfig"
cc -O2 -o "$work/c-library" "$here/startup.c" $(pkg-config --cflags --libs webviewhost-gtk3)
cc -O2 -DBASELINE -o "$work/c-baseline" "$here/startup.c" $(pkg-config --cflags --libs gtk+-3.0)
export GI_TYPELIB_PATH="$work/prefix/lib/girepository-1.0"
: > "$work/results"
for run in $(seq 0 "$runs"); do  # run 0 is a warm-up, not counted
  for variant in python-baseline python-library c-baseline c-library; do
    case "$variant" in
      python-*) line="$(xvfb-run -a /usr/bin/python3 "$here/startup.py" "${variant#python-}" 2>/dev/null | tail -n 1)" ;;
      c-*) line="$(xvfb-run -a "$work/$variant" 2>/dev/null | tail -n 1)" ;;
    esac
    [ "$run" -gt 0 ] && echo "$variant $line" >> "$work/results"
  done
done
/usr/bin/python3 - "$work/results" "$configuration" "$runs" <<'PY'
import json, statistics, sys
results = {}
for line in open(sys.argv[1]):
    variant, report = line.split(" ", 1)
    results.setdefault(variant, []).append(json.loads(report))
print("WebviewHost's GObject layer at an app's start (%s build, %s starts each): import + construct + get_accounts" % (sys.argv[2], sys.argv[3]))
for language in ("python", "c"):
    base, lib = results["%s-baseline" % language], results["%s-library" % language]
    def figure(name, key, unit, scale=1.0):
        values = [r[key] / scale for r in lib]
        floor = statistics.median(r[key] / scale for r in base)
        print("  %-7s %-22s median %8.1f %s (min %.1f, max %.1f); without the library %.1f" % (
            language, name, statistics.median(values), unit, min(values), max(values), floor))
    figure("memory added", "kB", "MiB", 1024)
    figure("time added", "ms", "ms")
    ratio = statistics.median(r["rss"] for r in lib) / statistics.median(r["rss"] for r in base)
    print("  %-7s %-22s %.2fx the same app without the library" % (language, "process RSS", ratio))
print("  goal (issue 41): under 10 MiB and 20 ms added, release build")
PY
