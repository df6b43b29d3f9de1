#!/usr/bin/env bash
# Runs each libFuzzer target (built by `make fuzz-build` into .build-fuzz) for SECONDS seconds.
#   scripts/fuzz.sh [SECONDS] [TARGET...]       default: 60 s each; fuzz-wire fuzz-http fuzz-model
# First every file in Fuzz/regressions/<name>/ (crashes found before) runs once, then the target
# fuzzes from the committed seed corpus Fuzz/corpus/<name>/, writing new inputs to a copy under
# .build-fuzz/corpus (the repository is not changed). A crash fails the run and leaves its input in
# .build-fuzz/artifacts: fix the bug, then add the input to Fuzz/regressions/<name>/ (and a test).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
shift || true
targets=("$@")
[[ ${#targets[@]} -gt 0 ]] || targets=(fuzz-wire fuzz-http fuzz-model)
# A Swift trap must read as a crash to libFuzzer, not as a backtrace that exits normally.
export SWIFT_BACKTRACE=enable=no
mkdir -p .build-fuzz/artifacts
status=0
for target in "${targets[@]}"; do
    name=${target#fuzz-}
    binary=.build-fuzz/debug/$target
    [[ -x $binary ]] || { echo "fuzz: $binary is missing; run make fuzz-build" >&2; exit 1; }
    if compgen -G "Fuzz/regressions/$name/[!.]*" >/dev/null; then
        "$binary" Fuzz/regressions/"$name"/[!.]* >/dev/null 2>&1 \
            || { echo "fuzz: $target crashes on a recorded regression in Fuzz/regressions/$name" >&2; status=1; continue; }
    fi
    work=.build-fuzz/corpus/$name
    mkdir -p "$work"
    log=.build-fuzz/$target.log
    if "$binary" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 -print_final_stats=1 \
        -artifact_prefix=".build-fuzz/artifacts/$target-" "$work" "Fuzz/corpus/$name" >"$log" 2>&1; then
        runs=$(grep -E '^stat::number_of_executed_units' "$log" | awk '{print $2}' || true)
        cov=$(grep -oE 'cov: [0-9]+' "$log" | tail -1 || true)
        echo "fuzz: $target: ${runs:-?} runs in $seconds s, ${cov:-cov: ?}, no crash"
    else
        echo "fuzz: $target CRASHED; input and log:" >&2
        ls .build-fuzz/artifacts/"$target"-* >&2 2>/dev/null || true
        grep -E 'ERROR|Fatal error|SUMMARY|panic' "$log" | head -5 >&2 || true
        status=1
    fi
done
exit $status
