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
#     plain, with mem_param (level 2), with CHEAP, with SQRT and with
#     nested SQRT (levels: 2) recomputation; PyTorch
#     plain and with checkpoint_sequential (4 segments).  Doubling, then
#     bisection to within BATCH_STEP images (PyTorch's in one process).
# PARTS: which sections run ("time largest" by default).  SPECS: the
# timed nets as NET:BATCH; VARIANTS: LeanCaffe's nets timed (make_nets.py's
# variants: plain, mem, sqrt, sqrt2, cheap, cheap128, wide, memwide), each
# optionally +tf32, +find, +nondet, +unfused, +oneblock;
# TF32: PyTorch's settings timed (0, 1); LARGEST:
# the variants whose largest batch is searched; LARGEST_FROM: the first
# batch tried (default 64; a batch known to run saves the doubling up to
# it; if it does not run, the search bisects below it), or per variant
# lean:VARIANT@N.  Smaller sets fit
# a short device lease.
set -uo pipefail
cd "$(dirname "$0")/../.."
PARTS="${PARTS:-time largest}"
REPS="${REPS:-3}"
ITERS="${ITERS:-5}"
BATCH_STEP="${BATCH_STEP:-16}"
SPECS="${SPECS:-caffenet:256 googlenet:128 vgg16:64 resnet50:64}"
VARIANTS="${VARIANTS:-plain}"
TF32="${TF32:-0 1}"
LARGEST="${LARGEST:-lean:plain lean:mem lean:cheap lean:sqrt lean:sqrt2 torch:0 torch:1}"
NETS_DIR="$(mktemp -d)"
CAFFE="${LEANCAFFE_RUN:-} .gpu/bin/caffe"

# A variant may carry options after '+': plain+tf32, mem+find,
# plain+tf32+find (the tool's -allow_tf32 and -conv_algo=find), +nondet
# (-allow_nondeterministic: cuDNN's nondeterministic algorithms may win,
# as PyTorch's cudnn.benchmark lets them), +unfused (-fuse_chains=false:
# the layers one by one, to set beside the fused steps), +oneblock
# (-channel_split=1: one block per channel in the channel sums, as before
# clusters shared them).
variant_net() { echo "${1%%+*}"; }
variant_flags() {
  local opts="" o
  [[ "$1" == *+* ]] && opts="${1#*+}"
  for o in ${opts//+/ }; do
    case "$o" in
      tf32) echo -n " --allow_tf32" ;;
      find) echo -n " --conv_algo=find" ;;
      nondet) echo -n " --allow_nondeterministic" ;;
      unfused) echo -n " --fuse_chains=false" ;;
      oneblock) echo -n " --channel_split=1" ;;
      *) echo "run_gpu_bench: unknown option '$o' in variant $1" >&2 ;;
    esac
  done
}

lean_ms() {  # prototxt [flags] -> "ms peak_bytes"
  local log
  log="$($CAFFE time --gpu=0 --model="$1" --iterations="$ITERS" ${2:-} 2>&1)" || {
    echo "FAILED"; echo "$log" | tail -3 >&2; return; }
  echo "$(echo "$log" | sed -n 's/.*Average Forward-Backward: \([0-9.]*\) ms.*/\1/p') \
$(echo "$log" | sed -n 's/.*Peak GPU memory allocated: \([0-9]*\) bytes.*/\1/p')"
}

if [[ " $PARTS " == *" time "* ]]; then
echo "== forward+backward, ms per iteration ($REPS runs of $ITERS each)"
# Each run is printed as it ends, so a run cut short by a lease's limit
# still leaves its finished measurements in the log.
for spec in $SPECS; do
  net=${spec%%:*}; batch=${spec##*:}
  for rep in $(seq "$REPS"); do
    for variant in $VARIANTS; do
      proto="$(python3 bench/gpu/make_nets.py "$NETS_DIR" \
               "$net:$batch:$(variant_net "$variant")")"
      start=$(date +%s)
      echo "$net b$batch run $rep leancaffe $variant (ms peak_bytes):" \
        "$(lean_ms "$proto" "$(variant_flags "$variant")")" \
        "[$(( $(date +%s) - start )) s]"
    done
    for tf32 in $TF32; do
      start=$(date +%s)
      echo "$net b$batch run $rep pytorch tf32=$tf32:" \
        "$(python3 bench/gpu/torch_train.py time "$net" "$batch" "$ITERS" "$tf32")" \
        "[$(( $(date +%s) - start )) s]"
    done
  done
done
fi

fits_lean() {  # variant batch
  local proto start ok=0
  proto="$(python3 bench/gpu/make_nets.py "$NETS_DIR" "resnet50:$2:$1")"
  start=$(date +%s)
  $CAFFE time --gpu=0 --model="$proto" --iterations=1 > /dev/null 2>&1 || ok=1
  echo "  leancaffe $1 b$2: $([ $ok = 0 ] && echo runs || echo fails)" \
    "[$(( $(date +%s) - start )) s]" >&2
  return $ok
}
largest() {  # fits-function arg
  local lo=0 hi="${LARGEST_FROM:-64}"
  while "$1" "$2" "$hi"; do lo=$hi; hi=$((hi * 2)); done
  while [ $((hi - lo)) -gt "$BATCH_STEP" ]; do
    local mid=$(((lo + hi) / 2))
    if "$1" "$2" "$mid"; then lo=$mid; else hi=$mid; fi
  done
  echo "$lo"
}
if [[ " $PARTS " == *" largest "* ]]; then
echo "== largest ResNet-50 batch (forward+backward runs; within $BATCH_STEP)"
for which in $LARGEST; do
  # lean:VARIANT@N starts that variant's search at N images.
  from="${LARGEST_FROM:-64}"
  case "$which" in *@*) from="${which##*@}"; which="${which%@*}" ;; esac
  kind=${which%%:*}; arg=${which##*:}
  if [ "$kind" = lean ]; then
    echo "leancaffe $arg: $(LARGEST_FROM=$from largest fits_lean "$arg")"
  else
    echo "pytorch checkpoint=$arg: $(python3 bench/gpu/torch_train.py \
      largest resnet50 "$BATCH_STEP" "$arg" | sed -n 's/largest=//p')"
  fi
done
fi
rm -rf "$NETS_DIR"
