#!/usr/bin/env bash
# The main job: convert Fashion-MNIST to LMDB, train LeNet on it with the
# `caffe` tool, and print the test accuracy it reached.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD_DIR:-build}
EX=examples/fashion_mnist
SRC=/usr/share/datasets/fashion-mnist

for split in train:train t10k:test; do
  in=${split%%:*}; out=${split##*:}
  db=$EX/fashion_${out}_lmdb
  if [ ! -f "$db/data.mdb" ]; then
    rm -rf "$db"
    "$BUILD/tools/convert_mnist_data" "$SRC/$in-images-idx3-ubyte.gz" \
        "$SRC/$in-labels-idx1-ubyte.gz" "$db" --backend=lmdb
  fi
done

LOG=$EX/train.log
echo "Training LeNet on Fashion-MNIST (log: $LOG) ..."
start=$(date +%s)
/usr/bin/time -v "$BUILD/tools/caffe" train --solver=$EX/lenet_solver.prototxt \
    > "$LOG" 2>&1 || { tail -20 "$LOG"; exit 1; }
secs=$(( $(date +%s) - start ))
acc=$(grep "Test net output #0: accuracy" "$LOG" | tail -1 | sed 's/.*= //')
loss=$(grep "Test net output #1: loss" "$LOG" | tail -1 | sed 's/.*= \([0-9.e+-]*\).*/\1/')
rss=$(grep "Maximum resident set size" "$LOG" | awk '{print $NF}')
echo "----------------------------------------------------------------"
echo "LeNet on Fashion-MNIST: test accuracy $acc, test loss $loss"
echo "training time ${secs}s, peak RSS $((rss / 1024)) MiB"
echo
echo "Memory (mem_param in $EX/lenet_train_test.prototxt):"
grep "Memory plan for" "$LOG" | sed 's/.*Memory plan for/  plan for/'
"$BUILD/tools/caffe" mem --model=$EX/lenet_train_test.prototxt \
    --plot=$EX/lenet_memory.svg 2>/dev/null | sed -n '/^Totals/,$p' | sed 's/^/  /'
echo "  (drawing of the plan: $EX/lenet_memory.svg)"
/usr/bin/python3 - "$acc" <<'PY'
import sys
acc = float(sys.argv[1])
print("target 0.89: %s" % ("reached" if acc >= 0.89 else "NOT reached"))
sys.exit(0 if acc >= 0.89 else 1)
PY
