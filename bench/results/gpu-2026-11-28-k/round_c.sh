#!/usr/bin/env bash
# Session k, third round (2 or 4 GPUs of one host, issue 30): round a's steps over the final
# code (the landing blocks moved to ipc_landing.hpp; AoS field subsets as runs of leaves): the
# plans' tests on 2 and 4 ranks (two a GPU where there are 2), device_migrate_bench_gpu a rank a
# GPU with one and two landing slots alternating (LAYOUT_IPC_EXPERIMENT_SLOTS), MD weak scaling
# at 2,048,000 atoms a GPU (np1 and a rank a GPU), memcheck over both tests on 2 and 4 ranks.
S=${S:-/tmp/steps-k-c} exec bash "$(dirname "${BASH_SOURCE[0]}")/round_a.sh"
