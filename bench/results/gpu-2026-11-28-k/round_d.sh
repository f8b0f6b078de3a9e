#!/usr/bin/env bash
# Session k, fourth round (4 GPUs of one host, issue 30): round a's steps over the final code
# (device_counts.hpp split from device_exchange.hpp, ipc_landing.hpp from ipc_state.hpp, AoS
# field subsets as runs of leaves, the device migration plan with neighbours) on a GPU a rank:
# the plans' tests on 2 and 4 ranks, device_migrate_bench_gpu on 4 GPUs with one and two landing
# slots alternating three times, MD weak scaling at 2,048,000 atoms a GPU (np1, np4), memcheck
# over both tests on 2 and 4 ranks.
RUNS="1_a 2_a 1_b 2_b 1_c 2_c" S=${S:-/tmp/steps-k-d} exec bash "$(dirname "${BASH_SOURCE[0]}")/round_a.sh"
