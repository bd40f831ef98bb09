#!/usr/bin/env bash
# Recomputation benchmark (mem_param.recompute): memory and time of SQRT
# recomputation (one level, and nested with levels: 2) against sharing only, its growth with depth, and the largest
# batch that fits a memory budget, next to PyTorch's checkpoint_sequential.
#
# Parts (PARTS, all by default):
#   main    ResNet-50 at $BATCH (DummyData): `caffe mem -phase TRAIN -level 2`
#           with sharing only, SQRT and SQRT levels: 2 (plans, measured
#           peaks), and $RUNS x `caffe time -phase TRAIN -iterations $ITERS`
#           under /usr/bin/time -v for no mem_param, sharing only, SQRT and
#           SQRT levels: 2, interleaved.
#   sweep   `caffe mem` with sharing only and with SQRT for $RESNETS at
#           $DEPTH_BATCH and plain chains of $PLAIN_DEPTHS at $PLAIN_BATCH
#           (models/gen_models.py plain, made trainable by rc_nets.py).
#   budget  the largest ResNet-50 batch whose activations and gradients stay
#           within $BUDGET_GB GiB: LeanCaffe (sharing only, SQRT, SQRT
#           levels: 2) from the plan alone (pycaffe, nothing runs), PyTorch 1.13 measured one step per probe without
#           and with checkpoint_sequential (as many segments as LeanCaffe's
#           SQRT plan has, unless TORCH_SEGMENTS is set).
# rc_report.py turns the logs into $OUT (markdown, with which targets are
# met) and the depth plot $PLOT. Exit status 1 if a run failed (its figures
# are n/a); unmet targets do not change it.
#
# Usage: bench/recompute/run_recompute_bench.sh   (from anywhere; after
#        building build/tools/caffe and pycaffe)
# Environment overrides (defaults in brackets):
#   CAFFE_BIN (build/tools/caffe)  PYTHON (/usr/bin/python3)  THREADS (2)
#   PARTS ("main sweep budget")
#   BATCH (32)  RUNS (3)  ITERS (5)  TIME_PLAIN (1; 0 skips timing the net
#     without mem_param, which holds ~8 GB at batch 32)
#   DEPTH_BATCH (8)  RESNETS ("resnet50 resnet101 resnet152")
#   PLAIN_BATCH (8)  PLAIN_DEPTHS ("64 128 256 512")
#   BUDGET_GB (4)  CAFFE_LO (1)  CAFFE_HI (1024)  TORCH_LO (4)  TORCH_HI (512)
#   TORCH_METRIC (alloc | rss)  TORCH_SEGMENTS (LeanCaffe's checkpoints + 1)
#   SKIP_TORCH (0)  OUT (docs/recompute_benchmarks.md)
#   PLOT (docs/recompute_depth.png)  KEEP_TMP (0; 1 keeps the logs)

set -u -o pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
cd "$ROOT" || exit 1

CAFFE_BIN="${CAFFE_BIN:-build/tools/caffe}"
PYTHON="${PYTHON:-/usr/bin/python3}"
THREADS="${THREADS:-2}"
PARTS="${PARTS:-main sweep budget}"
BATCH="${BATCH:-32}"
RUNS="${RUNS:-3}"
ITERS="${ITERS:-5}"
TIME_PLAIN="${TIME_PLAIN:-1}"
DEPTH_BATCH="${DEPTH_BATCH:-8}"
RESNETS="${RESNETS:-resnet50 resnet101 resnet152}"
PLAIN_BATCH="${PLAIN_BATCH:-8}"
PLAIN_DEPTHS="${PLAIN_DEPTHS:-64 128 256 512}"
BUDGET_GB="${BUDGET_GB:-4}"
CAFFE_LO="${CAFFE_LO:-1}"
CAFFE_HI="${CAFFE_HI:-1024}"
TORCH_LO="${TORCH_LO:-4}"
TORCH_HI="${TORCH_HI:-512}"
TORCH_METRIC="${TORCH_METRIC:-alloc}"
TORCH_SEGMENTS="${TORCH_SEGMENTS:-}"
SKIP_TORCH="${SKIP_TORCH:-0}"
OUT="${OUT:-docs/recompute_benchmarks.md}"
PLOT="${PLOT:-docs/recompute_depth.png}"
KEEP_TMP="${KEEP_TMP:-0}"
TIME_BIN=/usr/bin/time

export OMP_NUM_THREADS="$THREADS" OPENBLAS_NUM_THREADS="$THREADS" \
    MKL_NUM_THREADS="$THREADS"

die() { echo "run_recompute_bench.sh: $*" >&2; exit 1; }
has_part() { [[ " $PARTS " == *" $1 "* ]]; }

[ -x "$CAFFE_BIN" ] || die "$CAFFE_BIN not found or not executable (build first, or set CAFFE_BIN)"
for p in $PARTS; do
    case "$p" in main|sweep|budget) ;; *) die "unknown part '$p' in PARTS" ;; esac
done
[ -x "$TIME_BIN" ] || { echo "note: $TIME_BIN missing, no peak RSS" >&2; TIME_BIN=""; }
BUDGET_BYTES="$(awk -v g="$BUDGET_GB" 'BEGIN { if (g + 0 <= 0) exit 1; printf "%.0f", g * 1073741824 }')" \
    || die "BUDGET_GB must be a positive number, not '$BUDGET_GB'"

TMP="$(mktemp -d "${TMPDIR:-/tmp}/leancaffe_recompute.XXXXXX")" || die "mktemp failed"
if [ "$KEEP_TMP" = 1 ]; then
    echo "logs kept in $TMP" >&2
else
    trap 'rm -rf "$TMP"' EXIT
fi
MANIFEST="$TMP/manifest.tsv"

commit="$(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
[ -n "$(git status --porcelain --untracked-files=no 2>/dev/null)" ] && commit="$commit + uncommitted changes"
{
    printf 'batch\t%s\niters\t%s\nruns\t%s\nthreads\t%s\n' "$BATCH" "$ITERS" "$RUNS" "$THREADS"
    printf 'depth_batch\t%s\nplain_batch\t%s\n' "$DEPTH_BATCH" "$PLAIN_BATCH"
    printf 'budget_gb\t%s\nbudget_bytes\t%s\n' "$BUDGET_GB" "$BUDGET_BYTES"
    printf 'commit\t%s\n' "$commit"
    printf 'date\t%s\n' "$(date -u '+%Y-%m-%d %H:%M UTC')"
    # nproc alone would answer OMP_NUM_THREADS, exported above.
    printf 'nproc\t%s\n' "$(env -u OMP_NUM_THREADS -u OMP_THREAD_LIMIT nproc)"
    printf 'cpu\t%s\n' "$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)"
    printf 'mem_total\t%s\n' "$(awk '/^MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo)"
    printf 'load_start\t%s\n' "$(cut -d' ' -f1-3 /proc/loadavg)"
    printf 'out\t%s\nplot\t%s\nparts\t%s\n' "$OUT" "$PLOT" "$PARTS"
} > "$MANIFEST"

FAILURES=0
report_failure() {
    FAILURES=$((FAILURES + 1))
    echo "  $1 failed (exit $2); last lines of $3:" >&2
    tail -n 15 "$3" >&2
}

# caffe_mem PART FAMILY DEPTH VARIANT MODEL
caffe_mem() {
    local out="$TMP/mem_$1_$2$3_$4.out" log="$TMP/mem_$1_$2$3_$4.log" rc
    "$CAFFE_BIN" mem -model "$5" -phase TRAIN -level 2 > "$out" 2> "$log"
    rc=$?
    [ "$rc" = 0 ] || report_failure "caffe mem $2 $3 $4" "$rc" "$log"
    printf 'mem\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" "$out" "$log" "$rc" >> "$MANIFEST"
    [ "$rc" = 0 ] && sed -n 's/^ *\(measured peak, level 2\|with recomputation\|planned, level 2\)/    \1/p' "$out" >&2
}

# ------------------------------------------------------------ 1. ResNet-50
if has_part main; then
    echo "== ResNet-50, batch $BATCH: plans and measured peaks" >&2
    "$PYTHON" "$HERE/rc_nets.py" resnet resnet50 "$BATCH" "$TMP/main" || die "cannot build the ResNet-50 nets"
    for v in mem sqrt sqrt2; do caffe_mem main resnet 50 "$v" "$TMP/main/resnet50_$v.prototxt"; done
    variants="mem sqrt sqrt2"
    [ "$TIME_PLAIN" = 1 ] && variants="plain mem sqrt sqrt2"
    for r in $(seq 1 "$RUNS"); do
        for v in $variants; do
            log="$TMP/time_${v}_$r.log"
            tv="-"
            cmd=("$CAFFE_BIN" time -model "$TMP/main/resnet50_$v.prototxt" -phase TRAIN -iterations "$ITERS")
            if [ -n "$TIME_BIN" ]; then
                tv="$TMP/time_${v}_$r.time"
                cmd=("$TIME_BIN" -v -o "$tv" "${cmd[@]}")
            fi
            "${cmd[@]}" > "$log" 2>&1
            rc=$?
            if [ "$rc" = 0 ]; then
                echo "  run $r $v: $(sed -n 's/.*Average Forward-Backward: //p' "$log" | tail -n 1)" >&2
            else
                report_failure "caffe time $v run $r" "$rc" "$log"
            fi
            printf 'time\t%s\t%s\t%s\t%s\t%s\n' "$v" "$r" "$log" "$tv" "$rc" >> "$MANIFEST"
        done
    done
fi

# ------------------------------------------------------------ 2. depth sweep
if has_part sweep; then
    for net in $RESNETS; do
        depth="${net#resnet}"
        echo "== $net, batch $DEPTH_BATCH" >&2
        "$PYTHON" "$HERE/rc_nets.py" resnet "$net" "$DEPTH_BATCH" "$TMP/sweep" || die "cannot build the $net nets"
        for v in mem sqrt; do caffe_mem sweep resnet "$depth" "$v" "$TMP/sweep/${net}_$v.prototxt"; done
    done
    if [ -n "$PLAIN_DEPTHS" ]; then
        # shellcheck disable=SC2086
        "$PYTHON" models/gen_models.py plain --depths $PLAIN_DEPTHS --batch "$PLAIN_BATCH" \
            --out "$TMP/plain" > /dev/null || die "models/gen_models.py plain failed"
        for d in $PLAIN_DEPTHS; do
            echo "== plain chain, depth $d, batch $PLAIN_BATCH" >&2
            "$PYTHON" "$HERE/rc_nets.py" plain "$TMP/plain/deploy_d$d.prototxt" "$TMP/sweep" "plain$d" \
                || die "cannot build the plain chain of depth $d"
            for v in mem sqrt; do caffe_mem sweep plain "$d" "$v" "$TMP/sweep/plain${d}_$v.prototxt"; done
        done
    fi
fi

# ------------------------------------------------------------ 3. budget
if has_part budget; then
    echo "== largest ResNet-50 batch within $BUDGET_GB GiB: LeanCaffe (plans)" >&2
    out="$TMP/search_caffe.out"
    "$PYTHON" "$HERE/rc_nets.py" search resnet50 "$BUDGET_BYTES" "$CAFFE_LO" "$CAFFE_HI" > "$out" 2> "$out.err"
    rc=$?
    [ "$rc" = 0 ] || report_failure "LeanCaffe batch search" "$rc" "$out.err"
    grep '^RESULT' "$out" >&2
    printf 'search\tcaffe\t%s\t%s\n' "$out" "$rc" >> "$MANIFEST"

    if [ "$SKIP_TORCH" != 1 ]; then
        segments="$TORCH_SEGMENTS"
        if [ -z "$segments" ]; then
            sq="$TMP/mem_main_resnet50_sqrt.out"
            if [ ! -s "$sq" ]; then
                # Main part not run: the checkpoint count from a batch-1 plan.
                "$PYTHON" "$HERE/rc_nets.py" resnet resnet50 1 "$TMP/seg" || die "cannot build the ResNet-50 nets"
                caffe_mem seg resnet 50 sqrt "$TMP/seg/resnet50_sqrt.prototxt"
                sq="$TMP/mem_seg_resnet50_sqrt.out"
            fi
            k="$(sed -n 's/.*recomputation: \([0-9][0-9]*\) checkpoints.*/\1/p' "$sq" | head -n 1)"
            [ -n "$k" ] || die "no SQRT checkpoint count in $sq (set TORCH_SEGMENTS)"
            segments=$((k + 1))
        fi
        for s in 0 "$segments"; do
            who=torch0
            [ "$s" = 0 ] || who=torchS
            echo "== largest ResNet-50 batch within $BUDGET_GB GiB: PyTorch, segments $s" >&2
            out="$TMP/search_$who.out"
            "$PYTHON" "$HERE/torch_peak.py" search --budget "$BUDGET_BYTES" --lo "$TORCH_LO" \
                --hi "$TORCH_HI" --segments "$s" --metric "$TORCH_METRIC" --threads "$THREADS" \
                > "$out" 2> "$out.err"
            rc=$?
            [ "$rc" = 0 ] || report_failure "PyTorch batch search (segments $s)" "$rc" "$out.err"
            grep '^RESULT' "$out" >&2
            printf 'search\t%s\t%s\t%s\n' "$who" "$out" "$rc" >> "$MANIFEST"
        done
    fi
fi

printf 'load_end\t%s\n' "$(cut -d' ' -f1-3 /proc/loadavg)" >> "$MANIFEST"
echo >&2
"$PYTHON" "$HERE/rc_report.py" "$MANIFEST" || die "the report could not be written"
[ "$FAILURES" = 0 ] || die "$FAILURES run(s) failed (their figures are n/a)"
