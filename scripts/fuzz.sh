#!/usr/bin/env bash
# make fuzz: runs every libFuzzer target (fuzz/) for FUZZ_SECONDS each under
# ASan + UBSan, and prints one line per target: executions, speed, corpus
# size and the verdict.  Inputs that crash, leak, hang (> 10 s; 120 s for
# hdf5_snapshot, below) or break a target's property land in
# build_asan/fuzz_runs/crashes/<target>/; after
# fixing, copy each into fuzz/regressions/<target>/ so that ctest replays it
# (fuzz_replay_<target>).  Exits non-zero when any target found something.
#   FUZZ_SECONDS=60  seconds per target
#   FUZZ_TARGETS="net_prototxt ..."  a subset
#   FUZZ_RUNS=1000000  stop each target after this many inputs instead
#                      (FUZZ_SECONDS then only caps the time)
#   FUZZ_CONTAIN=1     hdf5_snapshot in contained mode: its readers run
#                      without the HDF5 check (LEANCAFFE_HDF5_CHECK=off),
#                      libFuzzer's fork mode goes on past crashes, and
#                      every crashing input is then replayed with the
#                      check on: refused there, it is a crash inside HDF5
#                      that the check contains (kept in crashes/<t>/
#                      contained/); anything else is a finding.  The check
#                      starts a process per file (about 11 inputs/s under
#                      ASan); this mode fuzzes the readers at full speed.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
BUILD=${ASAN_BUILD_DIR:-build_asan}
SECONDS_EACH=${FUZZ_SECONDS:-60}
TARGETS=${FUZZ_TARGETS:-"net_prototxt solver_prototxt caffemodel solverstate hdf5_snapshot datum mean_binaryproto mem_param"}
targets=()
for t in $TARGETS; do targets+=("fuzz_$t"); done
bash scripts/asan_build.sh --target "${targets[@]}"
OUT=$BUILD/fuzz_runs
mkdir -p "$OUT"
# Leaks are findings; LeanCaffe's own memory check refuses large nets
# before libFuzzer's RSS limit (fuzz_target.hpp, kFuzzMemoryLimit).
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1:verify_asan_link_order=0}
# Leaks inside libraries on input they refuse (fuzz/lsan_suppressions.txt).
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$ROOT/fuzz/lsan_suppressions.txt:print_suppressions=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}
export OMP_NUM_THREADS=1
failed=0
printf '%-18s %12s %10s %8s  %s\n' target executions exec/s corpus verdict
for t in $TARGETS; do
  corpus=$OUT/corpus/$t
  crashes=$OUT/crashes/$t
  mkdir -p "$corpus" "$crashes"
  log=$OUT/$t.log
  # libFuzzer stops at a corpus folder that does not exist (git keeps no
  # empty regressions/<target>/).
  dirs=("$ROOT/$corpus")
  for d in "$ROOT/fuzz/corpus/$t" "$ROOT/fuzz/regressions/$t"; do
    [ -d "$d" ] && dirs+=("$d")
  done
  set +e
  started=$SECONDS
  runs_flag=()
  [ -n "${FUZZ_RUNS:-}" ] && runs_flag=(-runs="$FUZZ_RUNS")
  contain=
  if [ "$t" = hdf5_snapshot ] && [ -n "${FUZZ_CONTAIN:-}" ]; then
    contain=1
    runs_flag+=(-fork=1 -ignore_crashes=1)
  fi
  # An hdf5_snapshot input starts a checker process per file read (four
  # for the memory bomb among the regressions, oom-unbounded-allocation-*),
  # and under ASan each of those runs to its 2 GiB resident limit before
  # the file is refused: 37 s in all on a 2-core VM whose page faults are
  # slow (2026-11-27), which a 10 s limit took for a hang.
  timeout=10
  [ "$t" = hdf5_snapshot ] && timeout=120
  before=$(ls "$crashes" | sort)
  (cd "$OUT" && ${contain:+env LEANCAFFE_HDF5_CHECK=off} \
    "$ROOT/$BUILD/fuzz/fuzz_$t" -max_total_time="$SECONDS_EACH" "${runs_flag[@]}" \
    -rss_limit_mb=2048 -timeout="$timeout" -max_len=65536 -print_final_stats=1 \
    -artifact_prefix="$ROOT/$crashes/" "${dirs[@]}") > "$log" 2>&1
  status=$?
  runs=$(grep -o 'stat::number_of_executed_units: [0-9]*' "$log" | awk '{print $2}' | tail -1)
  if [ -n "$contain" ]; then
    # Fork mode prints "#N: cov: ..." lines instead of the final stats.
    runs=$(grep -o '^#[0-9]*:' "$log" | tr -d '#:' | tail -1)
    contained=0
    for f in $(comm -13 <(echo "$before") <(ls "$crashes" | sort)); do
      [ -f "$crashes/$f" ] || continue
      if (cd "$OUT" && "$ROOT/$BUILD/fuzz/fuzz_$t" "$ROOT/$crashes/$f") \
          >> "$log.replay" 2>&1; then
        mkdir -p "$crashes/contained"
        mv "$crashes/$f" "$crashes/contained/"
        contained=$((contained + 1))
      else
        status=1
      fi
    done
    echo "contained: $contained crashing inputs refused with the HDF5 check on" >> "$log"
  fi
  set -e
  elapsed=$(( SECONDS - started )); [ "$elapsed" -gt 0 ] || elapsed=1
  speed=$(( ${runs:-0} / elapsed ))
  size=$(ls "$corpus" | wc -l)
  if [ "$status" -eq 0 ]; then verdict=clean; else
    verdict="FOUND (exit $status): $(ls -t "$crashes" | head -1), see $log"
    failed=1
  fi
  [ -n "$contain" ] && verdict="$verdict ($contained HDF5 crashes contained by the check)"
  printf '%-18s %12s %10s %8s  %s\n' "$t" "${runs:-?}" "${speed:-?}" "$size" "$verdict"
done
exit $failed
