#!/usr/bin/env bash
# LeanCaffe vs PyTorch: CPU forward + backward time, measured honestly.
#
# For each net (CaffeNet b32, GoogLeNet b16, VGG-16 b8, ResNet-50 b8 by
# default) it runs, interleaved -- LeanCaffe, PyTorch, LeanCaffe, PyTorch
# ... -- $RUNS processes of each:
#   * LeanCaffe: `caffe time -model <deploy copy> -iterations $ITERS
#     -phase TRAIN` on models/<net>/deploy.prototxt with the batch replaced
#     and `force_backward: true` (a deploy net has no loss); a run's figure
#     is the median of its $ITERS "Iteration: k forward-backward time"
#     lines, after caffe time's own warm-up pass, so that both sides are
#     summarized alike (the mean, "Average Forward-Backward", is printed
#     beside it).
#   * PyTorch: bench/torch_step.py --no-update, the same architecture in
#     torch.nn, forward + loss + backward (no optimizer step, like `caffe
#     time`); a run's figure is the median of its $ITERS steps after one
#     warm-up step.
# and reports min and median of the runs, peak RSS (/usr/bin/time), and for
# LeanCaffe the share of the step its element-wise layers take (ReLU,
# BatchNorm, Scale, Eltwise; bench/layer_shares.py).
#
# Honesty rules (issue 14):
#   * It refuses to start when the machine is busy: more than $MAX_BUSY
#     percent of the CPUs busy over 3 seconds (/proc/stat), checked again
#     before each net.  BENCH_FORCE=1 runs anyway and marks every figure
#     INVALID.
#   * It prints PyTorch's median next to its last quiet value
#     (bench/quiet_baselines.tsv, per net, batch, threads and CPU): a baseline
#     far from it (more than 25% either way) means the run was disturbed,
#     and the row says so.  UPDATE_BASELINES=1 records this run's values
#     (do it only after a quiet run).
#
# Usage: bench/run_bench.sh   (or `make bench`; run after building)
# Environment: CAFFE_BIN (build/tools/caffe), PYTHON (/usr/bin/python3),
#   RUNS (5), ITERS (3), THREADS (2),
#   NETS ("caffenet:32 googlenet:16 vgg16:8 resnet50:8"),
#   OUT (docs/benchmarks_latest.md), MAX_BUSY (10), SKIP_TORCH=1,
#   CAFFE_ARGS (extra `caffe time` flags, e.g. -fuse_chains=false).
set -u -o pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT" || exit 1

CAFFE_BIN="${CAFFE_BIN:-build/tools/caffe}"
PYTHON="${PYTHON:-/usr/bin/python3}"
RUNS="${RUNS:-5}"
ITERS="${ITERS:-3}"
THREADS="${THREADS:-2}"
NETS="${NETS:-caffenet:32 googlenet:16 vgg16:8 resnet50:8}"
OUT="${OUT:-docs/benchmarks_latest.md}"
MAX_BUSY="${MAX_BUSY:-10}"
SKIP_TORCH="${SKIP_TORCH:-0}"
BENCH_FORCE="${BENCH_FORCE:-0}"
UPDATE_BASELINES="${UPDATE_BASELINES:-0}"
CAFFE_ARGS="${CAFFE_ARGS:-}"
for spec in $NETS; do
  [[ "$spec" =~ ^[a-z0-9_]+:[1-9][0-9]*$ ]] ||
    { echo "run_bench.sh: NETS entry '$spec' is not net:batch" \
           "(for example caffenet:32)" >&2; exit 2; }
done
BASELINES=bench/quiet_baselines.tsv
# Baselines hold per CPU: the project's machines differ from session to
# session (an Intel Xeon with a large L3, an AMD EPYC with 32 MiB), and
# PyTorch's time on one says nothing about a disturbance on another.
CPU_KEY="$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1 | tr -s ' ' '_')-L3:$(lscpu 2>/dev/null | sed -n 's/^L3 cache:[[:space:]]*//p' | tr -d ' ' | sed 's/(.*//')"
TIME_BIN=/usr/bin/time

export OMP_NUM_THREADS="$THREADS" OPENBLAS_NUM_THREADS="$THREADS"
export MKL_NUM_THREADS="$THREADS"

die() { echo "run_bench.sh: $*" >&2; exit 1; }
[ -x "$CAFFE_BIN" ] || die "$CAFFE_BIN not found (build first, or set CAFFE_BIN)"
[ -x "$TIME_BIN" ] || die "$TIME_BIN is missing (apt-get install -y time)"
[ "$RUNS" -ge 5 ] || echo "run_bench.sh: RUNS=$RUNS; the issue asks for at least 5" >&2

TMP="$(mktemp -d "${TMPDIR:-/tmp}/leancaffe_bench.XXXXXX")" || die "mktemp failed"
trap 'rm -rf "$TMP"' EXIT

# Percent of CPU time not idle over 3 seconds (time stolen by a
# hypervisor counts as busy: a neighbour is disturbing the run).
busy_percent() {
    local a b
    a=($(sed -n 's/^cpu  //p' /proc/stat)); sleep 3
    b=($(sed -n 's/^cpu  //p' /proc/stat))
    awk -v a="${a[*]}" -v b="${b[*]}" 'BEGIN {
        n = split(a, x, " "); split(b, y, " "); total = 0
        for (i = 1; i <= n; ++i) total += y[i] - x[i]
        idle = (y[4] - x[4]) + (y[5] - x[5])
        printf "%.0f", (total > 0) ? 100 * (total - idle) / total : 0 }'
}

VALID=1
check_quiet() {
    local busy; busy="$(busy_percent)"
    if [ "$busy" -gt "$MAX_BUSY" ]; then
        if [ "$BENCH_FORCE" = 1 ]; then
            echo "run_bench.sh: machine $busy% busy; BENCH_FORCE=1: figures marked INVALID" >&2
            VALID=0
        else
            die "the machine is $busy% busy (over MAX_BUSY=$MAX_BUSY%): stop builds, tests and helpers first (BENCH_FORCE=1 runs anyway, marked INVALID)"
        fi
    fi
}

# min and median of the numbers given as arguments ("n/a" when none)
stats() {
    [ "$#" -gt 0 ] || { echo "n/a n/a"; return; }
    printf '%s\n' "$@" | sort -g | awk '{v[NR]=$1} END {
        m = (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2
        printf "%.1f %.1f", v[1], m }'
}
rss_of() { sed -n 's/.*Maximum resident set size (kbytes): *\([0-9]*\).*/\1/p' "$1" | tail -n 1; }
mib() { [[ "${1:-}" =~ ^[0-9]+$ ]] && awk -v k="$1" 'BEGIN { printf "%.0f MiB", k / 1024 }' || echo n/a; }
num() { [[ "${1:-}" =~ ^[0-9.]+$ ]]; }

make_bench_net() {  # src batch dst
    { echo "force_backward: true"
      sed -e "0,/^\([[:space:]]*\)dim:[[:space:]]*[0-9][0-9]*/s//\1dim: $2/" "$1"
    } > "$3"
    grep -q "dim: $2\$" "$3" || die "could not set the batch in $3"
}

torch_ok=1
if [ "$SKIP_TORCH" = 1 ] || ! "$PYTHON" -c 'import torch' 2>/dev/null; then
    [ "$SKIP_TORCH" = 1 ] || echo "run_bench.sh: PyTorch missing for $PYTHON (apt-get install -y python3-torch); LeanCaffe only" >&2
    torch_ok=0
fi

baseline_of() {  # net batch -> "ms date" or ""
    [ -f "$BASELINES" ] || return 0
    awk -v n="$1" -v b="$2" -v t="$THREADS" -v c="$CPU_KEY" '$1 == n && $2 == b && $3 == t && $6 == c { r = $4 " " $5 } END { if (r) print r }' "$BASELINES"
}

check_quiet
declare -a ROWS=() NOTES=() NEW_BASELINES=()
for spec in $NETS; do
    net="${spec%%:*}"; batch="${spec##*:}"
    echo "== $net, batch $batch, $THREADS threads" >&2
    check_quiet
    model="$TMP/${net}_b$batch.prototxt"
    make_bench_net "models/$net/deploy.prototxt" "$batch" "$model"
    c_ms=(); c_rss=(); t_ms=(); t_rss=()
    for r in $(seq 1 "$RUNS"); do
        log="$TMP/${net}_caffe_$r.log"
        # shellcheck disable=SC2086
        if "$TIME_BIN" -v -o "$TMP/c.time" "$CAFFE_BIN" time -model "$model" \
               -iterations "$ITERS" -phase TRAIN $CAFFE_ARGS > "$log" 2>&1; then
            mean="$(sed -n 's/.*Average Forward-Backward: *\([0-9.]*\) ms\..*/\1/p' "$log" | tail -n 1)"
            iters=($(sed -n 's/.*Iteration: [0-9]* forward-backward time: *\([0-9.]*\) ms\..*/\1/p' "$log"))
            ms="$mean"
            [ "${#iters[@]}" -gt 0 ] && ms="$(stats "${iters[@]}" | cut -d' ' -f2)"
            c_ms+=("$ms"); c_rss+=("$(rss_of "$TMP/c.time")")
            echo "  LeanCaffe run $r: $ms ms (median of ${#iters[@]} iterations; mean $mean)" >&2
        else
            echo "  LeanCaffe run $r failed:" >&2; tail -n 10 "$log" >&2
        fi
        [ "$torch_ok" = 1 ] || continue
        tlog="$TMP/${net}_torch_$r.log"
        if "$TIME_BIN" -v -o "$TMP/t.time" "$PYTHON" bench/torch_step.py \
               --net "$net" --batch "$batch" --runs "$ITERS" --warmup 1 \
               --threads "$THREADS" --no-update > "$tlog" 2>&1; then
            ms="$(sed -n 's/^RESULT .* median_ms=\([0-9.]*\).*/\1/p' "$tlog")"
            t_ms+=("$ms"); t_rss+=("$(rss_of "$TMP/t.time")")
            echo "  PyTorch   run $r: $ms ms" >&2
        else
            echo "  PyTorch run $r failed:" >&2; tail -n 10 "$tlog" >&2
        fi
    done
    read -r c_min c_med <<<"$(stats "${c_ms[@]+"${c_ms[@]}"}")"
    read -r t_min t_med <<<"$(stats "${t_ms[@]+"${t_ms[@]}"}")"
    ratio=n/a
    num "$c_med" && num "$t_med" && ratio="$(awk -v a="$c_med" -v b="$t_med" 'BEGIN { printf "%.2f", a / b }')"
    # The element-wise share, from the LeanCaffe run closest to the median.
    share=n/a
    if num "$c_med"; then
        best=""; gap=""
        for r in $(seq 1 "$RUNS"); do
            log="$TMP/${net}_caffe_$r.log"
            ms="$(sed -n 's/.*Average Forward-Backward: *\([0-9.]*\) ms\..*/\1/p' "$log" 2>/dev/null | tail -n 1)"
            num "$ms" || continue
            d="$(awk -v a="$ms" -v m="$c_med" 'BEGIN { d = a - m; print (d < 0 ? -d : d) }')"
            if [ -z "$gap" ] || awk -v d="$d" -v g="$gap" 'BEGIN { exit !(d < g) }'; then best="$log"; gap="$d"; fi
        done
        [ -n "$best" ] && share="$("$PYTHON" bench/layer_shares.py "$model" "$best" --share ReLU,BatchNorm,Scale,Eltwise)"
    fi
    quiet="$(baseline_of "$net" "$batch")"
    verdict=""
    if [ "$VALID" = 0 ]; then
        verdict="INVALID (machine busy)"
    elif [ -n "$quiet" ] && num "$t_med"; then
        q="${quiet%% *}"
        verdict="$(awk -v m="$t_med" -v q="$q" 'BEGIN { r = m / q
            if (r > 1.25 || r < 0.8) printf "DISTURBED? PyTorch at %.2fx its last quiet value", r }')"
    fi
    [ -n "$quiet" ] && q_text="${quiet%% *} ms (${quiet#* })" || q_text="none"
    ROWS+=("| $net | $batch | $c_min / $c_med | $t_min / $t_med | $ratio | $share | $(mib "$(printf '%s\n' "${c_rss[@]+"${c_rss[@]}"}" | sort -g | tail -n 1)") | $(mib "$(printf '%s\n' "${t_rss[@]+"${t_rss[@]}"}" | sort -g | tail -n 1)") | $q_text | ${verdict:-ok} |")
    # Only an undisturbed row becomes the new quiet value.
    [ -z "$verdict" ] && num "$t_med" && NEW_BASELINES+=("$net $batch $THREADS $t_med $(date -u +%Y-%m-%d) $CPU_KEY")
done

cpu="$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)"
commit="$(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
{
    echo "# LeanCaffe vs PyTorch, CPU forward + backward (bench/run_bench.sh)"
    echo
    echo "$(date -u '+%Y-%m-%d %H:%M UTC'), commit \`$commit\`${CAFFE_ARGS:+ (caffe $CAFFE_ARGS)}, ${cpu:-unknown CPU}"
    echo "($(nproc) cores), $THREADS threads, $RUNS interleaved runs of each, $ITERS timed iterations per run after one warm-up; a run's figure is the median of its iterations on both sides."
    [ "$VALID" = 1 ] || echo "**INVALID: the machine was busy during the run.**"
    echo
    echo "| net | batch | LeanCaffe ms (min / median) | PyTorch ms (min / median) | LeanCaffe / PyTorch (medians) | ReLU+BN+Scale+Eltwise share | LeanCaffe peak RSS | PyTorch peak RSS | PyTorch last quiet | run |"
    echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |"
    printf '%s\n' "${ROWS[@]}"
} > "$TMP/report.md"
cat "$TMP/report.md"
mkdir -p "$(dirname "$OUT")" && cp "$TMP/report.md" "$OUT" && echo "wrote $OUT"
if [ "$UPDATE_BASELINES" = 1 ] && [ "$VALID" = 1 ]; then
    for line in "${NEW_BASELINES[@]+"${NEW_BASELINES[@]}"}"; do
        set -- $line
        { [ -f "$BASELINES" ] && awk -v n="$1" -v b="$2" -v t="$3" -v c="$6" '!($1 == n && $2 == b && $3 == t && $6 == c)' "$BASELINES"
          echo "$line"; } > "$TMP/b.tsv" && mv "$TMP/b.tsv" "$BASELINES"
    done
    echo "updated $BASELINES"
fi
[ "$VALID" = 1 ]
