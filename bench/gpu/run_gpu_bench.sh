#!/usr/bin/env bash
# run_gpu_bench.sh: LeanCaffe against PyTorch eager on the same GPU, run by
# scripts/gpu_check.sh (needs .gpu/ from make gpu-bundle and torch).
#
#  1. Forward+backward time and peak device memory, CaffeNet b256,
#     GoogLeNet b128, VGG-16 b64, ResNet-50 b64: `caffe time --gpu=0`
#     (median of REPS runs of ITERS iterations; LeanCaffe's own device
#     bytes) next to PyTorch with TF32 off and on (cudnn.benchmark on;
#     torch.cuda.max_memory_allocated).  Runs alternate between the two.
#  2. The largest ResNet-50 batch whose forward+backward runs: LeanCaffe
#     plain, with mem_param (level 2), with SQRT recomputation; PyTorch
#     plain and with checkpoint_sequential (4 segments).  Doubling, then
#     bisection to within BATCH_STEP images.
# PARTS: which sections run ("time largest" by default).
set -uo pipefail
cd "$(dirname "$0")/../.."
PARTS="${PARTS:-time largest}"
REPS="${REPS:-3}"
ITERS="${ITERS:-5}"
BATCH_STEP="${BATCH_STEP:-16}"
NETS_DIR="$(mktemp -d)"
CAFFE="${LEANCAFFE_RUN:-} .gpu/bin/caffe"

lean_ms() {  # prototxt -> "ms peak_bytes"
  local log
  log="$($CAFFE time --gpu=0 --model="$1" --iterations="$ITERS" 2>&1)" || {
    echo "FAILED"; echo "$log" | tail -3 >&2; return; }
  echo "$(echo "$log" | sed -n 's/.*Average Forward-Backward: \([0-9.]*\) ms.*/\1/p') \
$(echo "$log" | sed -n 's/.*Peak GPU memory allocated: \([0-9]*\) bytes.*/\1/p')"
}

if [[ " $PARTS " == *" time "* ]]; then
echo "== forward+backward, ms per iteration (median of $REPS runs of $ITERS)"
for spec in caffenet:256 googlenet:128 vgg16:64 resnet50:64; do
  net=${spec%%:*}; batch=${spec##*:}
  proto="$(python3 bench/gpu/make_nets.py "$NETS_DIR" "$net:$batch")"
  lean=(); t0=(); t1=()
  for rep in $(seq "$REPS"); do
    lean+=("$(lean_ms "$proto")")
    t0+=("$(python3 bench/gpu/torch_train.py time "$net" "$batch" "$ITERS" 0)")
    t1+=("$(python3 bench/gpu/torch_train.py time "$net" "$batch" "$ITERS" 1)")
  done
  echo "$net b$batch"
  printf '  leancaffe runs (ms peak_bytes): %s\n' "${lean[*]}"
  printf '  pytorch tf32 off: %s\n' "${t0[*]}"
  printf '  pytorch tf32 on:  %s\n' "${t1[*]}"
done
fi

fits_lean() {  # variant batch
  local proto
  proto="$(python3 bench/gpu/make_nets.py "$NETS_DIR" "resnet50:$2:$1")"
  $CAFFE time --gpu=0 --model="$proto" --iterations=1 > /dev/null 2>&1
}
fits_torch() {  # checkpoint batch
  python3 bench/gpu/torch_train.py fits resnet50 "$2" "$1" > /dev/null 2>&1
}
largest() {  # fits-function arg
  local lo=0 hi=64
  while "$1" "$2" "$hi"; do lo=$hi; hi=$((hi * 2)); done
  while [ $((hi - lo)) -gt "$BATCH_STEP" ]; do
    local mid=$(((lo + hi) / 2))
    if "$1" "$2" "$mid"; then lo=$mid; else hi=$mid; fi
  done
  echo "$lo"
}
if [[ " $PARTS " == *" largest "* ]]; then
echo "== largest ResNet-50 batch (forward+backward runs; within $BATCH_STEP)"
echo "leancaffe plain:     $(largest fits_lean plain)"
echo "leancaffe mem_param: $(largest fits_lean mem)"
echo "leancaffe SQRT:      $(largest fits_lean sqrt)"
echo "pytorch plain:       $(largest fits_torch 0)"
echo "pytorch checkpoint:  $(largest fits_torch 1)"
fi
rm -rf "$NETS_DIR"
