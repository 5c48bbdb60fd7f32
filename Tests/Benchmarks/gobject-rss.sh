#!/usr/bin/env bash
# The GObject layer's memory across the language boundary: N sign-ins (default 100) in the
# library's GTK 3 window, from Python through libwebviewhost-gtk3 and from the Swift API directly
# (SignInScenarios rss-sign-ins), against fake_entra.py on 127.0.0.1. Prints each one's resident
# memory after 5 and after N sign-ins, and the growth of Python's over Swift's (a ratio in one run).
#   bash Tests/Benchmarks/gobject-rss.sh [N]
set -euo pipefail
cd "$(dirname "$0")/../.."
count="${1:-100}"
swift build --build-tests >&2
bin="$(swift build --show-bin-path)"
prefix="$(mktemp -d)"
state="$(mktemp -d)"
trap 'touch "$state/stop"; rm -rf "$prefix"' EXIT
Tools/gobject/gir.sh "$bin" "$prefix" gtk3 >/dev/null
python3 Tests/Fixtures/TokenCache/fake_entra.py serve "$state" >/dev/null 2>&1 &
for _ in $(seq 100); do [ -f "$state/ready" ] && break; sleep 0.1; done
issuer="$(python3 -c "import json, sys; print(json.load(open(sys.argv[1]))['issuer'])" "$state/ready")"
# The scenario prints its report as "SCENARIO-REPORT {"values": {...}}".
swift_report="$(ISSUER="$issuer" xvfb-run -a "$bin/SignInScenarios" rss-sign-ins "$count" 2>/dev/null | sed -n 's/^SCENARIO-REPORT //p' | tail -n 1)"
python_report="$(GI_TYPELIB_PATH="$prefix/lib/girepository-1.0" xvfb-run -a /usr/bin/python3 Tests/Fixtures/GObject/rss.py "$count" "$issuer" 2>/dev/null | tail -n 1)"
python3 - "$count" "$swift_report" "$python_report" <<'PY'
import json, sys
count, swift, python = int(sys.argv[1]), json.loads(sys.argv[2])["values"], json.loads(sys.argv[3])
for name, report in (("Swift API", swift), ("Python via GObject", python)):
    if report.get("outcome") != "success":
        sys.exit("%s: %s" % (name, report))
grow = lambda r: r["rssAfterAll"] - r["rssAfterWarmUp"]
print("%d sign-ins in the library's window (GTK 3), resident memory in kB:" % count)
for name, report in (("Swift API", swift), ("Python via GObject", python)):
    print("  %-20s after 5: %7d   after %d: %7d   growth: %6d" % (name, report["rssAfterWarmUp"], count, report["rssAfterAll"], grow(report)))
print("  growth, Python via GObject / Swift API: %.2f" % (grow(python) / max(grow(swift), 1)))
PY
