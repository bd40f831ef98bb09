#!/usr/bin/env bash
# gpu_tool_check.sh: the `caffe` tool's own GPU paths, as a user runs them
# (scripts/gpu_check.sh calls it; the C++ tests cover the library).
#
#  1. `caffe train --gpu=0` of a small convolutional net on made-up data,
#     with and without mem_param: the losses printed and the snapshot
#     weights must be the same bits.
#  2. Resuming from the iteration-10 snapshot must reach the uninterrupted
#     run's final weights, bit for bit.
#  3. `caffe test --gpu=0` scores the snapshot.
#
# CAFFE: the tool (default .gpu/bin/caffe, under $LEANCAFFE_RUN); DEVICE:
# the device flag (default --gpu=0; empty runs it all on the CPU, which is
# how this script is checked on a machine without a GPU).  Writes its work
# under WORK (a temporary folder) and prints one line per check; exit 1 on
# the first mismatch.
set -uo pipefail
CAFFE="${CAFFE:-${LEANCAFFE_RUN:-} .gpu/bin/caffe}"
DEVICE="${DEVICE---gpu=0}"
WORK="${WORK:-$(mktemp -d)}"
mkdir -p "$WORK"

# Constant made-up data: DummyData redraws a random filler at every
# iteration from Caffe's generator, whose state a snapshot does not hold
# (as in BVLC Caffe), so a resumed run would see other data.  The padded
# convolution still gives the net varied values.
net() {  # $1: extra text (a mem_param block or nothing)
  cat <<EOF
name: "gpu_tool_check"
$1
layer { name: "data" type: "DummyData" top: "data" top: "label"
  dummy_data_param { shape { dim: 16 dim: 3 dim: 16 dim: 16 }
    shape { dim: 16 }
    data_filler { type: "constant" value: 0.5 }
    data_filler { type: "constant" value: 1 } } }
layer { name: "conv1" type: "Convolution" bottom: "data" top: "conv1"
  convolution_param { num_output: 8 kernel_size: 3 pad: 1
    weight_filler { type: "gaussian" std: 0.1 } } }
layer { name: "bn1" type: "BatchNorm" bottom: "conv1" top: "conv1" }
layer { name: "relu1" type: "ReLU" bottom: "conv1" top: "conv1" }
layer { name: "pool1" type: "Pooling" bottom: "conv1" top: "pool1"
  pooling_param { pool: MAX kernel_size: 2 stride: 2 } }
layer { name: "ip1" type: "InnerProduct" bottom: "pool1" top: "ip1"
  inner_product_param { num_output: 4
    weight_filler { type: "gaussian" std: 0.05 } } }
layer { name: "loss" type: "SoftmaxWithLoss" bottom: "ip1" bottom: "label"
  top: "loss" }
EOF
}

solver() {  # $1: net file, $2: snapshot prefix
  cat <<EOF
net: "$1"
base_lr: 0.001 momentum: 0.9 weight_decay: 0.0005 lr_policy: "fixed"
max_iter: 20 display: 1 snapshot: 10 snapshot_prefix: "$2"
random_seed: 1701
EOF
}

fail() { echo "gpu_tool_check: FAILED: $*"; exit 1; }

net "" > "$WORK/plain.prototxt"
net "mem_param { optimize_train: true optimize_test: true }" \
  > "$WORK/mem.prototxt"
solver "$WORK/plain.prototxt" "$WORK/plain" > "$WORK/plain_solver.prototxt"
solver "$WORK/mem.prototxt" "$WORK/mem" > "$WORK/mem_solver.prototxt"

for v in plain mem; do
  $CAFFE train $DEVICE --solver="$WORK/${v}_solver.prototxt" \
    > "$WORK/$v.log" 2>&1 || { tail -5 "$WORK/$v.log"; fail "train ($v)"; }
  # "Iteration N (... iter/s ...), loss = L": N and L, not the timing.
  sed -n 's/.*\] Iteration \([0-9]*\) (.*), loss = \(.*\)/\1 \2/p' \
    "$WORK/$v.log" > "$WORK/$v.losses"
done
[ "$(wc -l < "$WORK/plain.losses")" -ge 20 ] || fail "no loss lines"
cmp -s "$WORK/plain.losses" "$WORK/mem.losses" ||
  fail "losses differ with mem_param"
cmp -s "$WORK/plain_iter_20.caffemodel" "$WORK/mem_iter_20.caffemodel" ||
  fail "weights differ with mem_param"
echo "train ${DEVICE:-(CPU)}: 20 iterations, losses and weights bit-identical" \
  "with and without mem_param (iteration, loss: $(tail -1 "$WORK/plain.losses"))"

mv "$WORK/plain_iter_20.caffemodel" "$WORK/straight.caffemodel"
$CAFFE train $DEVICE --solver="$WORK/plain_solver.prototxt" \
  --snapshot="$WORK/plain_iter_10.solverstate" > "$WORK/resume.log" 2>&1 ||
  { tail -5 "$WORK/resume.log"; fail "resume"; }
cmp -s "$WORK/straight.caffemodel" "$WORK/plain_iter_20.caffemodel" ||
  fail "resumed weights differ from the uninterrupted run's"
echo "train ${DEVICE:-(CPU)} --snapshot: resumed at 10, iteration 20's weights" \
  "bit-identical to the uninterrupted run's"

$CAFFE test $DEVICE --model="$WORK/plain.prototxt" \
  --weights="$WORK/straight.caffemodel" --iterations=2 \
  > "$WORK/test.log" 2>&1 || { tail -5 "$WORK/test.log"; fail "test"; }
grep -q "Loss: " "$WORK/test.log" || fail "test printed no loss"
echo "test ${DEVICE:-(CPU)}: $(grep -o 'Loss: .*' "$WORK/test.log")"
