# Sourced by the device rounds' scripts (bench/results/*/round_*.sh) after they set B (the build
# directory) and S (where each step's output goes): makes S and $OUT, keeps NVLink multicast off,
# writes the machine's GPUs to the log, and defines
#   log TEXT...               to the log (and the terminal)
#   save                      $OUT/log.txt and $OUT/steps.tgz (every step's output), now
#   step LIMIT NAME CMD...    CMD with a time limit (KILL), output in $S/NAME.txt, rc logged, saved
#   exe NAME                  the executable NAME under $B
mkdir -p "$S" "$OUT"
export NCCL_NVLS_ENABLE=0
log() { echo "$*" | tee -a "$S/log.txt"; }
save() { tar czf "$OUT/steps.tgz" -C "$S" . ; cp "$S/log.txt" "$OUT/log.txt"; }
step() { local limit=$1 name=$2; shift 2; local start=$SECONDS
  timeout -s KILL "$limit" "$@" > "$S/$name.txt" 2>&1; local rc=$?
  log "[$name] rc=$rc $((SECONDS-start))s"; save; return $rc; }
exe() { find "$B" -type f -name "$1" -perm -u+x -print -quit; }
log "== $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name --format=csv,noheader | sort | uniq -c | xargs)"
