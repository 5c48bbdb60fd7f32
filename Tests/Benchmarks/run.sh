#!/usr/bin/env bash
# Builds the baselines and the benchmark (release), then runs it under Xvfb.
#   bash Tests/Benchmarks/run.sh [--static] [--runs N] [--json] [--embedded-only] [--webauthn-only]
# --static links the Swift runtime and Foundation into the benchmark (`--static-swift-stdlib`,
# as an app is usually shipped on Linux); without it they are shared libraries, as in a debug
# build or `swift run`.
set -euo pipefail
cd "$(dirname "$0")/../.."
build=(swift build -c release)
if [ "${1:-}" = "--static" ]; then
    shift
    build+=(--static-swift-stdlib --scratch-path .build-static)
fi
mkdir -p .build-bench
cc -O2 -Wall -Wextra -o .build-bench/floor Tests/Benchmarks/Baselines/floor.c $(pkg-config --cflags --libs webkit2gtk-4.1)
cc -O2 -Wall -Wextra -DWEBKITGTK_6 -o .build-bench/floor-gtk4 Tests/Benchmarks/Baselines/floor.c $(pkg-config --cflags --libs webkitgtk-6.0)
cc -O2 -Wall -Wextra -o .build-bench/sequential-floor Tests/Benchmarks/Baselines/sequential-floor.c $(pkg-config --cflags --libs webkit2gtk-4.1)
cc -O2 -Wall -Wextra -DWEBKITGTK_6 -o .build-bench/sequential-floor-gtk4 Tests/Benchmarks/Baselines/sequential-floor.c $(pkg-config --cflags --libs webkitgtk-6.0)
cc -O2 -Wall -Wextra -o .build-bench/soup-floor Tests/Benchmarks/Baselines/soup-floor.c $(pkg-config --cflags --libs libsoup-3.0)
"${build[@]}" --product webview-host-bench
"${build[@]}" --product webview-host-bench-gtk4  # the GTK 4 children, started from webview-host-bench
bin="$("${build[@]}" --show-bin-path)/webview-host-bench"
exec xvfb-run -a -s "-screen 0 1280x800x24" "$bin" --floor .build-bench/floor --floor-gtk4 .build-bench/floor-gtk4 --soup-floor .build-bench/soup-floor --sequential-floor .build-bench/sequential-floor --sequential-floor-gtk4 .build-bench/sequential-floor-gtk4 "$@"
