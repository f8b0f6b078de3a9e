#!/usr/bin/env bash
# expect_error.sh REGEX COMMAND...: passes only if COMMAND exits with a non-zero status that is
# not a crash (1 to 125: no signal, no abort) and its output (stdout and stderr) matches the
# extended REGEX. Bad input must get a clear error, never a crash or a silent wrong answer.
set -uo pipefail
regex=$1
shift
out=$("$@" 2>&1)
rc=$?
printf '%s\n' "$out"
if [[ $rc -eq 0 ]]; then
    echo "expect_error: the command succeeded; it should have failed with /$regex/"
    exit 1
fi
if [[ $rc -gt 125 ]]; then
    echo "expect_error: the command crashed (exit status $rc)"
    exit 1
fi
if ! grep -Eq -- "$regex" <<<"$out"; then
    echo "expect_error: exit status $rc, but the output does not match /$regex/"
    exit 1
fi
echo "expect_error: exit status $rc and the expected message: passed"
