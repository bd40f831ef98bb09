#!/usr/bin/env bash
# OpenBLAS's OpenMP build against its pthread build, on LeanCaffe's own
# training step, interleaved.
#
#   NETS="lenet cifar10_quick caffenet googlenet resnet50" BATCH=8 \
#   RUNS=5 ITERS=3 bash bench/blas_variant.sh
#
# Both are Debian's builds of the same OpenBLAS (libopenblas0-pthread,
# libopenblas0-openmp).  LeanCaffe links the OpenMP one by path (CMake);
# LD_LIBRARY_PATH, searched before the binary's RUNPATH, swaps in the
# other for the "pthread" runs.  Each net is models/<net>/train_val.prototxt
# with DummyData at BATCH (bench/memory/mem_bench.py), no mem_param; each
# round runs `caffe time -phase TRAIN` once with each build.  Prints min
# and median of "Average Forward-Backward" per build and the ratio of the
# medians.  Run it on an otherwise idle machine.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
NETS="${NETS:-lenet cifar10_quick caffenet googlenet resnet50}"
BATCH="${BATCH:-8}"
RUNS="${RUNS:-5}"
ITERS="${ITERS:-3}"
CAFFE="${CAFFE:-$ROOT/build/tools/caffe}"
LIBDIR=/usr/lib/x86_64-linux-gnu
for v in pthread openmp; do
  [ -e "$LIBDIR/openblas-$v/libopenblas.so.0" ] ||
    { echo "blas_variant.sh: $LIBDIR/openblas-$v missing" \
           "(apt-get install libopenblas0-$v)" >&2; exit 1; }
done
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
for net in $NETS; do
  PYTHONPATH="$ROOT/python" GLOG_minloglevel=2 /usr/bin/python3 \
    "$ROOT/bench/memory/mem_bench.py" nets "$net" "$BATCH" "$TMP" >/dev/null
done
for r in $(seq "$RUNS"); do
  for net in $NETS; do
    for v in pthread openmp; do
      ms=$(LD_LIBRARY_PATH="$LIBDIR/openblas-$v" "$CAFFE" time \
             -model "$TMP/${net}_plain.prototxt" -phase TRAIN \
             -iterations "$ITERS" 2>&1 |
           sed -n 's/.*Average Forward-Backward: \([0-9.]*\) ms.*/\1/p')
      [ -n "$ms" ] || { echo "blas_variant.sh: $net ($v) failed" >&2; exit 1; }
      echo "$net $v $ms" >> "$TMP/times"
    done
  done
  echo "round $r of $RUNS done" >&2
done
echo "batch $BATCH, $RUNS rounds x $ITERS iterations, interleaved"
/usr/bin/python3 - "$TMP/times" $NETS <<'EOF'
import statistics, sys
times = {}
for line in open(sys.argv[1]):
    net, v, ms = line.split()
    times.setdefault((net, v), []).append(float(ms))
print("| net | pthread: min / median ms | openmp: min / median ms "
      "| median openmp / pthread |")
print("|---|---:|---:|---:|")
for net in sys.argv[2:]:
    p, o = times[(net, "pthread")], times[(net, "openmp")]
    print("| %s | %.1f / %.1f | %.1f / %.1f | %.3f |" % (
        net, min(p), statistics.median(p), min(o), statistics.median(o),
        statistics.median(o) / statistics.median(p)))
EOF
