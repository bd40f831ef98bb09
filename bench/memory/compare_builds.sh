#!/usr/bin/env bash
# Compares two LeanCaffe builds on the memory benchmark nets: the memory
# plans must be identical, and training time with mem_param on is measured
# side by side, interleaved (base, new, base, new, ...), in one run.
#
# For each net (models/<net>/train_val.prototxt with DummyData at $BATCH and
# mem_param level 2 STATIC, built by mem_bench.py):
#   * `caffe mem -phase TRAIN|TEST -level 2` with each build: every line but
#     the measured peaks must match ("plans: same"); the measured level-2
#     peaks are shown next to each other;
#   * $RUNS interleaved runs of `caffe time -phase TRAIN -iterations $ITERS`
#     with each build: min and median of "Average Forward-Backward", and
#     the ratio new/base of the medians.
# Run it on an otherwise idle machine (no build, test suite or helper).
# Exit status 1 if a plan differs or a run fails.
#
# Usage: bench/memory/compare_builds.sh BASE_DIR
#   BASE_DIR holds the base build's `caffe` and `libcaffe.so` (copy them
#   from build/tools/caffe and build/libcaffe.so of the base commit).
# Environment: NEW_BIN (build/tools/caffe), NETS, BATCH (8), RUNS (5),
#   ITERS (3), THREADS (2), PYTHON (/usr/bin/python3).
set -u -o pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT" || exit 1
BASE_DIR="${1:?usage: compare_builds.sh BASE_DIR}"
NEW_BIN="${NEW_BIN:-build/tools/caffe}"
NETS="${NETS:-lenet cifar10_quick caffenet googlenet resnet50}"
BATCH="${BATCH:-8}"
RUNS="${RUNS:-5}"
ITERS="${ITERS:-3}"
THREADS="${THREADS:-2}"
PYTHON="${PYTHON:-/usr/bin/python3}"
export OMP_NUM_THREADS="$THREADS" OPENBLAS_NUM_THREADS="$THREADS"

[ -x "$BASE_DIR/caffe" ] || { echo "no $BASE_DIR/caffe" >&2; exit 1; }
[ -x "$NEW_BIN" ] || { echo "no $NEW_BIN (build first)" >&2; exit 1; }
TMP="$(mktemp -d "${TMPDIR:-/tmp}/leancaffe_cmp.XXXXXX")" || exit 1
trap 'rm -rf "$TMP"' EXIT

base() { LD_LIBRARY_PATH="$BASE_DIR" "$BASE_DIR/caffe" "$@"; }
new() { "$NEW_BIN" "$@"; }
fb_ms() { sed -n 's/.*Average Forward-Backward: \([0-9.]*\) ms.*/\1/p' "$1"; }
# min and median of the numbers on stdin
stats() { sort -g | awk '{v[NR]=$1} END {m=(NR%2)?v[(NR+1)/2]:(v[NR/2]+v[NR/2+1])/2;
                                        printf "%.1f %.1f", v[1], m}'; }

STATUS=0
printf '%-14s %-6s %-10s %-25s %-25s %s\n' net plans "" "base ms (min / median)" \
    "new ms (min / median)" "new/base (median)"
for net in $NETS; do
    "$PYTHON" bench/memory/mem_bench.py nets "$net" "$BATCH" "$TMP" >/dev/null ||
        { echo "cannot build $net" >&2; STATUS=1; continue; }
    model="$TMP/${net}_mem.prototxt"
    plans=same
    peaks=""
    for phase in TRAIN TEST; do
        for b in base new; do
            "$b" mem -model "$model" -phase "$phase" -level 2 \
                > "$TMP/$b.$phase.out" 2> "$TMP/$b.$phase.log" ||
                { echo "$b caffe mem $net $phase failed" >&2; STATUS=1; }
            grep -v 'measured peak' "$TMP/$b.$phase.out" > "$TMP/$b.$phase.plan"
        done
        if ! cmp -s "$TMP/base.$phase.plan" "$TMP/new.$phase.plan"; then
            plans=DIFFER
            STATUS=1
            diff "$TMP/base.$phase.plan" "$TMP/new.$phase.plan" | head -20 >&2
        fi
        for b in base new; do
            peaks="$peaks $phase/$b $(sed -n 's/.*measured peak, level 2: *\([0-9]*\).*/\1/p' \
                "$TMP/$b.$phase.out")"
        done
    done
    : > "$TMP/base.ms"
    : > "$TMP/new.ms"
    for r in $(seq 1 "$RUNS"); do
        for b in base new; do
            "$b" time -model "$model" -phase TRAIN -iterations "$ITERS" \
                > "$TMP/run.log" 2>&1 || { echo "$b caffe time $net failed" >&2; STATUS=1; }
            fb_ms "$TMP/run.log" >> "$TMP/$b.ms"
        done
    done
    read -r bmin bmed < <(stats < "$TMP/base.ms")
    read -r nmin nmed < <(stats < "$TMP/new.ms")
    ratio="$(awk -v a="$nmed" -v b="$bmed" 'BEGIN {printf "%.3f", a / b}')"
    printf '%-14s %-6s %-10s %-25s %-25s %s\n' "$net" "$plans" "" "$bmin / $bmed" \
        "$nmin / $nmed" "$ratio"
    echo "    measured level-2 peaks (bytes):$peaks"
done
exit "$STATUS"
