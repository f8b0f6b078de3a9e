#!/usr/bin/env bash
# Builds the libFuzzer target layout_fuzzer (CMake preset `fuzz`: clang++, ASan + UBSan, bounds
# checks on) and fuzzes the containers against the std::vector model for a number of seconds,
# keeping what it learns in build/fuzz-corpus. Crashing inputs go to build/fuzz-artifacts/.
#   bash scripts/fuzz.sh [seconds, default 600] [more libFuzzer flags, e.g. -jobs=2]
# Replay a crash:  build/fuzz/tests/layout_fuzzer build/fuzz-artifacts/crash-<sha1>
# The first pass over an existing corpus is not part of the time limit (a large corpus takes
# minutes); shrink it with: build/fuzz/tests/layout_fuzzer -merge=1 NEW_DIR build/fuzz-corpus
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

seconds="${1:-600}"
[[ $# -gt 0 ]] && shift

bash scripts/install-deps.sh
cmake --preset fuzz >/dev/null
cmake --build --preset fuzz

corpus=build/fuzz-corpus
artifacts=build/fuzz-artifacts
mkdir -p "$corpus" "$artifacts"
log=build/fuzz/last-run.log
echo "fuzz.sh: fuzzing for $seconds s; corpus $corpus ($(ls "$corpus" | wc -l) inputs), log $log"

status=0
build/fuzz/tests/layout_fuzzer "$corpus" -max_total_time="$seconds" -max_len=8192 -print_final_stats=1 \
    -artifact_prefix="$artifacts/" "$@" 2>&1 | tee "$log" | grep -v -E '^#[0-9]+.*(NEW|REDUCE)' \
    || status=$?

executions=$(grep -h 'stat::number_of_executed_units' "$log" | awk '{s += $2} END {print s + 0}')
echo "fuzz.sh: total executions: $executions; corpus now $(ls "$corpus" | wc -l) inputs"
if grep -q -E 'DIVERGENCE|ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error' "$log"; then
    echo "fuzz.sh: FAILED: see $log and $artifacts/" >&2
    exit 1
fi
exit "$status"
