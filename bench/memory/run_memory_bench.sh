#!/usr/bin/env bash
# Memory benchmark of mem_param (level 2, STATIC): plan vs lower bound, and
# the measured peak RSS and time per iteration with and without it.
#
# For each net and phase (TRAIN, TEST), on copies of
# models/<net>/train_val.prototxt whose Data layers are DummyData at $BATCH
# (built by bench/memory/mem_bench.py, one copy without mem_param and one
# with it):
#   * `caffe mem -phase <phase> -level 2` on the copy with mem_param: Caffe
#     1.0's footprint, the lower bound, the plan at levels 0-2 and the peaks
#     measured from the process's allocation counters;
#   * $RUNS runs of each copy under `/usr/bin/time -v` (peak RSS):
#     TRAIN: `caffe time -phase TRAIN -iterations $ITERS` (forward+backward);
#     TEST:  `caffe test -iterations $ITERS+1` with a weights file holding no
#            layers (the path a user's test run takes), timed from its
#            log's time stamps after the first pass.
# Medians are kept; the table (and which targets are met) is printed and
# written to $OUT by mem_bench.py. Exit status 1 if any run failed (its
# figures are then n/a); whether targets are met does not change it.
#
# Usage: bench/memory/run_memory_bench.sh   (from anywhere; after building)
# Environment overrides:
#   CAFFE_BIN (build/tools/caffe)   PYTHON (/usr/bin/python3)
#   NETS      ("lenet cifar10_quick caffenet googlenet vgg16 resnet50")
#   BATCH     (32)                  RUNS (3)       ITERS (5)
#   THREADS   (2)                   OUT  (docs/memory_benchmarks.md)
#   PLOT_DIR  (unset: no plots; else `caffe mem -plot` SVGs go there)

set -u -o pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT" || exit 1

CAFFE_BIN="${CAFFE_BIN:-build/tools/caffe}"
PYTHON="${PYTHON:-/usr/bin/python3}"
NETS="${NETS:-lenet cifar10_quick caffenet googlenet vgg16 resnet50}"
BATCH="${BATCH:-32}"
RUNS="${RUNS:-3}"
ITERS="${ITERS:-5}"
THREADS="${THREADS:-2}"
OUT="${OUT:-docs/memory_benchmarks.md}"
PLOT_DIR="${PLOT_DIR:-}"
TIME_BIN=/usr/bin/time
HELPER="bench/memory/mem_bench.py"

export OMP_NUM_THREADS="$THREADS"
export OPENBLAS_NUM_THREADS="$THREADS"
export MKL_NUM_THREADS="$THREADS"

die() { echo "run_memory_bench.sh: $*" >&2; exit 1; }

[ -x "$CAFFE_BIN" ] || die "$CAFFE_BIN not found or not executable (build first, or set CAFFE_BIN)"
[ -x "$TIME_BIN" ] || die "$TIME_BIN is missing (apt-get install -y time)"
[ -f python/caffe/proto/caffe_pb2.py ] || die "python/caffe/proto/caffe_pb2.py is missing; generate it with
  protoc --proto_path=src/caffe/proto --python_out=python/caffe/proto src/caffe/proto/caffe.proto"
for v in BATCH RUNS ITERS THREADS; do
    [[ "${!v}" =~ ^[1-9][0-9]*$ ]] || die "$v must be a positive integer, not '${!v}'"
done
[ "$ITERS" -ge 2 ] || die "ITERS must be at least 2 (TEST timing needs passes after the first)"
[ -n "$PLOT_DIR" ] && { mkdir -p "$PLOT_DIR" || die "cannot create $PLOT_DIR"; }

TMP="$(mktemp -d "${TMPDIR:-/tmp}/leancaffe_membench.XXXXXX")" || die "mktemp failed"
trap 'rm -rf "$TMP"' EXIT
MANIFEST="$TMP/manifest.tsv"
{
    printf 'nets\t%s\n' "$NETS"
    printf 'batch\t%s\n' "$BATCH"
    printf 'runs\t%s\n' "$RUNS"
    printf 'iters\t%s\n' "$ITERS"
    printf 'threads\t%s\n' "$THREADS"
    printf 'out\t%s\n' "$OUT"
    printf 'commit\t%s\n' "$(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
    printf 'date\t%s\n' "$(date -u '+%Y-%m-%d %H:%M UTC')"
    printf 'nproc\t%s\n' "$(nproc)"
} > "$MANIFEST"

# Show why a run failed without stopping the benchmark; the script still
# exits 1 at the end.
FAILURES=0
report_failure() {
    FAILURES=$((FAILURES + 1))
    echo "  $1 failed (exit $2); last lines of $3:" >&2
    tail -n 15 "$3" >&2
}

for net in $NETS; do
    echo "== $net, batch $BATCH" >&2
    "$PYTHON" "$HELPER" nets "$net" "$BATCH" "$TMP" || die "cannot build the nets of $net"
    for phase in TRAIN TEST; do
        # ---- the plan
        out="$TMP/${net}_${phase}_mem.out"
        log="$TMP/${net}_${phase}_mem.log"
        plot=()
        [ -n "$PLOT_DIR" ] && plot=(-plot "$PLOT_DIR/${net}_${phase}.svg")
        "$CAFFE_BIN" mem -model "$TMP/${net}_mem.prototxt" -phase "$phase" \
            -level 2 "${plot[@]}" > "$out" 2> "$log"
        rc=$?
        [ "$rc" = 0 ] || report_failure "caffe mem ($phase)" "$rc" "$log"
        printf 'mem\t%s\t%s\t%s\t%s\t%s\n' "$net" "$phase" "$out" "$log" "$rc" >> "$MANIFEST"

        # ---- peak RSS and time, alternating without/with so that a change
        # in the machine's load hits both alike
        for r in $(seq 1 "$RUNS"); do
            for variant in plain mem; do
                model="$TMP/${net}_${variant}.prototxt"
                log="$TMP/${net}_${phase}_${variant}_$r.log"
                tv="$TMP/${net}_${phase}_${variant}_$r.time"
                if [ "$phase" = TRAIN ]; then
                    cmd=("$CAFFE_BIN" time -model "$model" -phase TRAIN -iterations "$ITERS")
                else
                    cmd=("$CAFFE_BIN" test -model "$model" -weights "$TMP/empty.caffemodel"
                         -iterations "$((ITERS + 1))")
                fi
                "$TIME_BIN" -v -o "$tv" "${cmd[@]}" > "$log" 2>&1
                rc=$?
                if [ "$rc" = 0 ]; then
                    rss="$(sed -n 's/.*Maximum resident set size (kbytes): *//p' "$tv")"
                    echo "  $phase $variant run $r: peak RSS ${rss:-?} kB" >&2
                else
                    report_failure "$phase $variant run $r" "$rc" "$log"
                fi
                printf 'run\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$net" "$phase" "$variant" \
                    "$r" "$log" "$tv" "$rc" >> "$MANIFEST"
            done
        done
    done
done

echo >&2
"$PYTHON" "$HELPER" report "$MANIFEST" || die "the report could not be written"
[ "$FAILURES" = 0 ] || die "$FAILURES run(s) failed (their figures are n/a)"
