#!/usr/bin/env bash
# Formats the C++ and CUDA sources with clang-format 16 and the repository's .clang-format
# (clang-format 14, Debian 12's default, mangles requires-clauses: scripts/install-deps.sh
# installs clang-format-16). The README's code blocks and their mirrors in tests/readme, and the
# generated detail/field_bindings.hpp, are left as they are.
#   bash scripts/format.sh            # rewrites the files
#   bash scripts/format.sh --check    # lists what would change, exit 1 if anything would
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
tool="${CLANG_FORMAT:-clang-format-16}"
mapfile -t files < <(git ls-files '*.hpp' '*.cpp' '*.cu' '*.cuh' |
                     grep -v -e '^tests/readme/' -e '/detail/field_bindings\.hpp$')
if [[ "${1:-}" == --check ]]; then
    "$tool" --dry-run --Werror "${files[@]}"
else
    "$tool" -i "${files[@]}"
fi
