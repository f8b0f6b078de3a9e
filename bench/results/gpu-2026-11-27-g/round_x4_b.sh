#!/usr/bin/env bash
# Session g, second round (4 GPUs of one host): as the first (round_x4_a.sh), after the IPC
# transport waits inside its send kernel (one kernel less), with the transport alone timed on the
# halo's bytes; the test with ranks of different layouts expecting the refusal of every
# transport that receives in place (IPC as NCCL).
# The steps are round_x4_a.sh's.
S=/tmp/steps-g2 exec bash "$(dirname "${BASH_SOURCE[0]}")/round_x4_a.sh"
