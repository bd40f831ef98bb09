#!/usr/bin/env bash
# LeanCaffe vs PyTorch: CPU training-step time and peak memory.
#
# For each net (CaffeNet b32, GoogLeNet b16, VGG-16 b8, ResNet-50 b8):
#   * LeanCaffe: `caffe time -model <deploy copy> -iterations $ITERS
#     -phase TRAIN` on a temporary copy of models/<net>/deploy.prototxt whose
#     input batch is replaced and which gets `force_backward: true` (a deploy
#     net has no loss, so without it nothing would need a backward pass).
#     The "Average Forward-Backward: X ms." line is parsed; the run is done
#     $RUNS times and the median kept. Peak RSS from `/usr/bin/time -v`.
#   * PyTorch: bench/torch_step.py, the same architecture in torch.nn, one
#     warm-up then $RUNS training steps (forward + loss + backward + SGD),
#     median kept; peak RSS from /usr/bin/time -v as well.
# Both run with 2 threads (OMP_NUM_THREADS / OPENBLAS_NUM_THREADS).
# The table is printed and written to docs/benchmarks.md.
#
# Usage: bench/run_bench.sh            (from anywhere; run after building)
# Environment overrides:
#   CAFFE_BIN  (build/tools/caffe)   PYTHON (/usr/bin/python3)
#   ITERS      (5: iterations per `caffe time` run)
#   RUNS       (3)                   THREADS (2)
#   NETS       ("caffenet:32 googlenet:16 vgg16:8 resnet50:8")
#   OUT        (docs/benchmarks.md)  SKIP_TORCH=1 to time LeanCaffe only

set -u -o pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT" || exit 1

CAFFE_BIN="${CAFFE_BIN:-build/tools/caffe}"
PYTHON="${PYTHON:-/usr/bin/python3}"
ITERS="${ITERS:-5}"
RUNS="${RUNS:-3}"
THREADS="${THREADS:-2}"
NETS="${NETS:-caffenet:32 googlenet:16 vgg16:8 resnet50:8}"
OUT="${OUT:-docs/benchmarks.md}"
SKIP_TORCH="${SKIP_TORCH:-0}"
TIME_BIN=/usr/bin/time

export OMP_NUM_THREADS="$THREADS"
export OPENBLAS_NUM_THREADS="$THREADS"
export MKL_NUM_THREADS="$THREADS"

die() { echo "run_bench.sh: $*" >&2; exit 1; }

[ -x "$CAFFE_BIN" ] || die "$CAFFE_BIN not found or not executable (build first, or set CAFFE_BIN)"
[ -x "$TIME_BIN" ] || die "$TIME_BIN is missing (apt-get install -y time)"

TMP="$(mktemp -d "${TMPDIR:-/tmp}/leancaffe_bench.XXXXXX")" || die "mktemp failed"
trap 'rm -rf "$TMP"' EXIT

# median of the numbers given as arguments
median() {
    printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {
        if (NR == 0) { print "nan"; exit }
        if (NR % 2) print a[(NR+1)/2]; else printf "%.3f\n", (a[NR/2]+a[NR/2+1])/2 }'
}

# largest of the integers given as arguments
maximum() {
    printf '%s\n' "$@" | sort -g | tail -n 1
}

# "Maximum resident set size (kbytes): N" -> N
rss_of() {
    sed -n 's/.*Maximum resident set size (kbytes): *\([0-9][0-9]*\).*/\1/p' "$1" | tail -n 1
}

# kB -> "123 MiB"
mib() {
    case "$1" in
        ''|*[!0-9]*) echo "n/a" ;;
        *) awk -v k="$1" 'BEGIN { printf "%.0f MiB", k / 1024 }' ;;
    esac
}

# 1234.567 -> 1234.6 (anything else unchanged)
fmt_ms() {
    if [[ "$1" =~ ^[0-9.]+$ ]]; then awk -v x="$1" 'BEGIN { printf "%.1f", x }'; else echo "$1"; fi
}

# Write a copy of the deploy net with batch $2 and force_backward.
make_bench_net() {
    local src="$1" batch="$2" dst="$3"
    [ -f "$src" ] || die "$src not found"
    {
        echo "force_backward: true"
        # Replace only the first `dim:` (the Input layer's batch dimension).
        sed -e "0,/^\([[:space:]]*\)dim:[[:space:]]*[0-9][0-9]*/s//\1dim: $batch/" "$src"
    } > "$dst"
    grep -q "dim: $batch\$" "$dst" || die "could not set batch in $dst"
}

# PyTorch availability (Debian's python3-torch).
torch_ok=1
if [ "$SKIP_TORCH" = 1 ]; then
    torch_ok=0
elif ! "$PYTHON" -c 'import torch' 2>/dev/null; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        echo "PyTorch missing: installing Debian's python3-torch ..." >&2
        { apt-get update && DEBIAN_FRONTEND=noninteractive \
            apt-get install -y --no-install-recommends python3-torch; } >&2
    fi
    if ! "$PYTHON" -c 'import torch' 2>/dev/null; then
        echo "run_bench.sh: PyTorch is not available for $PYTHON." >&2
        echo "  Install it with: apt-get install -y python3-torch" >&2
        echo "  (continuing with LeanCaffe numbers only; PyTorch columns n/a)" >&2
        torch_ok=0
    fi
fi

declare -a ROWS=()

for spec in $NETS; do
    net="${spec%%:*}"
    batch="${spec##*:}"
    echo "== $net, batch $batch" >&2

    # ---- LeanCaffe
    bench_net="$TMP/${net}_b${batch}.prototxt"
    make_bench_net "models/$net/deploy.prototxt" "$batch" "$bench_net"
    c_ms=(); c_rss=()
    for r in $(seq 1 "$RUNS"); do
        log="$TMP/${net}_caffe_$r.log"
        tv="$TMP/${net}_caffe_$r.time"
        "$TIME_BIN" -v -o "$tv" "$CAFFE_BIN" time -model "$bench_net" \
            -iterations "$ITERS" -phase TRAIN > "$log" 2>&1
        rc=$?
        ms="$(sed -n 's/.*Average Forward-Backward: *\([0-9.eE+-]*\) ms\..*/\1/p' "$log" | tail -n 1)"
        if [ "$rc" != 0 ] || [ -z "$ms" ]; then
            echo "  LeanCaffe run $r failed (exit $rc); last lines of its log:" >&2
            tail -n 15 "$log" >&2
            continue
        fi
        c_ms+=("$ms"); c_rss+=("$(rss_of "$tv")")
        echo "  LeanCaffe run $r: $ms ms" >&2
    done
    if [ "${#c_ms[@]}" -gt 0 ]; then
        caffe_ms="$(median "${c_ms[@]}")"
        caffe_rss="$(maximum "${c_rss[@]}")"
    else
        caffe_ms="n/a"; caffe_rss="n/a"
    fi

    # ---- PyTorch (one process per net so that peak RSS is per net)
    torch_ms="n/a"; torch_rss="n/a"
    if [ "$torch_ok" = 1 ]; then
        log="$TMP/${net}_torch.log"
        tv="$TMP/${net}_torch.time"
        "$TIME_BIN" -v -o "$tv" "$PYTHON" bench/torch_step.py --net "$net" \
            --batch "$batch" --runs "$RUNS" --warmup 1 --threads "$THREADS" \
            > "$log" 2>&1
        rc=$?
        line="$(grep '^RESULT ' "$log" | tail -n 1)"
        if [ "$rc" = 0 ] && [ -n "$line" ]; then
            torch_ms="$(sed -n 's/.* median_ms=\([0-9.]*\).*/\1/p' <<<"$line")"
            torch_rss="$(rss_of "$tv")"
            echo "  PyTorch: $torch_ms ms" >&2
        else
            echo "  PyTorch run failed (exit $rc):" >&2
            tail -n 15 "$log" >&2
        fi
    fi

    ratio="n/a"
    if [[ "$caffe_ms" =~ ^[0-9.]+$ && "$torch_ms" =~ ^[0-9.]+$ ]]; then
        ratio="$(awk -v a="$caffe_ms" -v b="$torch_ms" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }')"
    fi
    ROWS+=("| $net | $batch | $(fmt_ms "$caffe_ms") | $(fmt_ms "$torch_ms") | $ratio | $(mib "$caffe_rss") | $(mib "$torch_rss") |")
done

# ---- report
cpu="$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -n 1)"
commit="$(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
torch_ver="n/a"
[ "$torch_ok" = 1 ] && torch_ver="$("$PYTHON" -c 'import torch; print(torch.__version__)' 2>/dev/null)"

table() {
    echo "| net | batch | LeanCaffe ms | PyTorch ms | ratio (LeanCaffe/PyTorch) | LeanCaffe peak RSS | PyTorch peak RSS |"
    echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"
    printf '%s\n' "${ROWS[@]}"
}

echo
table

mkdir -p "$(dirname "$OUT")"
{
    echo "# Benchmarks: LeanCaffe vs PyTorch (CPU training step)"
    echo
    echo "Generated by \`bench/run_bench.sh\` on $(date -u '+%Y-%m-%d %H:%M UTC'),"
    echo "commit \`$commit\`, CPU: ${cpu:-unknown} ($(nproc) cores visible),"
    echo "$THREADS threads (OMP_NUM_THREADS=OPENBLAS_NUM_THREADS=$THREADS), PyTorch $torch_ver."
    echo
    table
    echo
    echo "Method:"
    echo
    echo "- **LeanCaffe**: \`caffe time -model <deploy> -iterations $ITERS -phase TRAIN\` on"
    echo "  \`models/<net>/deploy.prototxt\` with the input batch replaced and"
    echo "  \`force_backward: true\` added; the \"Average Forward-Backward\" time is taken"
    echo "  from each of $RUNS runs and the median reported. It covers forward and"
    echo "  backward of every layer (the deploy net ends in Softmax, no loss) but no"
    echo "  weight update."
    echo "- **PyTorch**: \`bench/torch_step.py\`, the same architecture in \`torch.nn\`"
    echo "  (GoogLeNet without auxiliary heads, as in the deploy net); a step is"
    echo "  forward + cross-entropy loss + backward + SGD (momentum) update; one"
    echo "  warm-up step, median of $RUNS timed steps."
    echo "- Peak RSS is \"Maximum resident set size\" from \`/usr/bin/time -v\` for the"
    echo "  whole process (largest of the LeanCaffe runs; the single PyTorch process,"
    echo "  which includes the interpreter and the torch libraries)."
    echo "- ratio < 1 means LeanCaffe is faster."
} > "$OUT"
echo
echo "wrote $OUT"
