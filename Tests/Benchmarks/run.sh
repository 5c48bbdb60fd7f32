#!/usr/bin/env bash
# Builds the baselines and the benchmark (release), then runs it under Xvfb.
#   bash Tests/Benchmarks/run.sh [--runs N] [--json]
set -euo pipefail
cd "$(dirname "$0")/../.."
mkdir -p .build-bench
cc -O2 -Wall -Wextra -o .build-bench/floor Tests/Benchmarks/Baselines/floor.c $(pkg-config --cflags --libs webkit2gtk-4.1)
cc -O2 -Wall -Wextra -o .build-bench/soup-floor Tests/Benchmarks/Baselines/soup-floor.c $(pkg-config --cflags --libs libsoup-3.0)
swift build -c release --product webview-host-bench
bin="$(swift build -c release --show-bin-path)/webview-host-bench"
exec xvfb-run -a -s "-screen 0 1280x800x24" "$bin" --floor .build-bench/floor --soup-floor .build-bench/soup-floor "$@"
