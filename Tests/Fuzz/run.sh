#!/usr/bin/env bash
# Builds and runs every libFuzzer target of WebviewHost for a while each.
#
#   Tests/Fuzz/run.sh [seconds per target, default 60] [target...]
#
# Targets: callback (WebAuthResponse), redirect (RedirectURI + SignIn's loopback check),
# idtoken (SignIn's ID token and claims parsing). Each runs from a fresh copy of its seed corpus
# in Tests/Fuzz/corpus/<target>/; the copy, the log and any crashing input stay in
# Tests/Fuzz/work/<target>/. Prints executions, exec/s and crashes per target; exits 1 if any
# target crashed (its input is in the folder printed), 2 if a target could not be built.
#
# Needs only the Swift toolchain (its clang runtime ships libFuzzer and ASan). Set SWIFTC to
# use another swiftc. Targets run one after the other.
set -euo pipefail

seconds="${1:-60}"
shift || true
case "$seconds" in '' | *[!0-9]*) echo "usage: $0 [seconds per target] [target...]" >&2; exit 64 ;; esac

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
swiftc="${SWIFTC:-$(command -v swiftc || echo /opt/swift/usr/bin/swiftc)}"
build="$here/build"
work="$here/work"
mkdir -p "$build" "$work"

# target -> library sources compiled into it (plus Targets/<Name>Fuzzer.swift).
declare -A sources=(
    [callback]="Sources/WebviewHost/WebAuthResponse.swift Sources/WebviewHost/WebAuthError.swift"
    [redirect]="Sources/WebviewHost/RedirectURI.swift Sources/WebviewHost/WebAuthError.swift Sources/SignIn/URL+Loopback.swift"
    [idtoken]="Sources/SignIn/IDToken.swift Sources/TokenCache/IDTokenClaims.swift Sources/TokenCache/IDTokenValidationError.swift"
)
# target -> "Module:sources" compiled first as a module of their own, which the target's sources
# import as they do in the package (IDToken.swift: `import WebviewHost`, for Base64URL).
declare -A modules=(
    [idtoken]="WebviewHost:Sources/WebviewHost/Base64URL.swift"
)
declare -A mains=([callback]=CallbackFuzzer [redirect]=RedirectFuzzer [idtoken]=IDTokenFuzzer)

targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(callback redirect idtoken)

failed=0
summary=()
for target in "${targets[@]}"; do
    if [ -z "${sources[$target]:-}" ]; then echo "unknown target: $target" >&2; exit 64; fi
    files=()
    for file in ${sources[$target]}; do files+=("$root/$file"); done
    files+=("$here/Targets/${mains[$target]}.swift")

    echo "== $target: building"
    # The same package name for every module: `package` declarations are seen across them.
    flags=(-sanitize=fuzzer,address -parse-as-library -swift-version 6 -O -g -package-name WebviewHost)
    objects=()
    : >"$build/$target.build.log"
    if [ -n "${modules[$target]:-}" ]; then
        module="${modules[$target]%%:*}"
        moduleFiles=()
        for file in ${modules[$target]#*:}; do moduleFiles+=("$root/$file"); done
        mkdir -p "$build/$target-modules"
        if ! "$swiftc" "${flags[@]}" -module-name "$module" -emit-module -emit-module-path "$build/$target-modules/$module.swiftmodule" \
            -emit-object -wmo "${moduleFiles[@]}" -o "$build/$target-modules/$module.o" 2>>"$build/$target.build.log"; then
            cat "$build/$target.build.log" >&2
            echo "== $target: build failed ($module)" >&2
            exit 2
        fi
        flags+=(-I "$build/$target-modules")
        objects+=("$build/$target-modules/$module.o")
    fi
    if ! "$swiftc" "${flags[@]}" -use-ld=lld \
        -module-name "Fuzz_$target" "${files[@]}" "${objects[@]}" -o "$build/$target" 2>>"$build/$target.build.log"; then
        cat "$build/$target.build.log" >&2
        echo "== $target: build failed" >&2
        exit 2
    fi
    grep -E "warning:" "$build/$target.build.log" >&2 || true

    dir="$work/$target"
    rm -rf "$dir"
    mkdir -p "$dir/corpus" "$dir/crashes"
    cp "$here/corpus/$target/"* "$dir/corpus/"
    echo "== $target: fuzzing for ${seconds}s from $(ls "$dir/corpus" | wc -l) seeds"
    status=0
    # detect_leaks=0: the Swift runtime's metadata caches and Foundation's singletons live
    # until exit and would be reported as leaks on every input.
    # SWIFT_BACKTRACE: libFuzzer reports the trap itself; Swift's own backtracer, run under
    # ASan, reports a false stack-buffer-underflow over it.
    SWIFT_BACKTRACE=enable=no ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=0}" "$build/$target" "$dir/corpus" \
        -max_total_time="$seconds" -timeout=10 -max_len=8192 -print_final_stats=1 \
        -artifact_prefix="$dir/crashes/" >"$dir/log" 2>&1 || status=$?
    executions=$(sed -n 's/^stat::number_of_executed_units: *//p' "$dir/log" | tail -1)
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$dir/log" | tail -1)
    crashes=$(find "$dir/crashes" -type f | wc -l)
    line="$target: executions ${executions:-?}, exec/s ${rate:-?}, crashes $crashes, corpus $(ls "$dir/corpus" | wc -l)"
    if [ "$status" -ne 0 ] || [ "$crashes" -ne 0 ]; then
        failed=1
        line="$line, FAILED (exit $status): inputs in $dir/crashes/, log $dir/log"
        grep -E "ERROR|Fatal error|SUMMARY" "$dir/log" | head -5 >&2 || true
    fi
    echo "== $line"
    summary+=("$line")
done

echo
echo "Summary ($(uname -m), $(nproc) cores, ${seconds}s per target):"
printf '  %s\n' "${summary[@]}"
exit "$failed"
