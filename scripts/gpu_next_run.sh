#!/usr/bin/env bash
# gpu_next_run.sh: the next GPU lease's measurements (docs/gpu.md, "The
# next GPU run") in one command, for one call of the device tool.  Run
# from the repository root on the GPU machine after make gpu-bundle put
# the binaries in .gpu/ (carry [".gpu"]).
#
# The parts, in this order, each a run of scripts/gpu_check.sh:
#   suite     every GPU test (GPU_JOBS=4 processes at once)
#   largest   nested SQRT's and cheap128's largest ResNet-50 batch
#   time      ResNet-50 b64 step times and the per-layer profiles
#   nets      CaffeNet, GoogLeNet and VGG-16 step times
# NEXT_PARTS (default "suite largest time nets") picks and orders them.
# GPU_DEADLINE_S (default 540): seconds after the start past which no part
# starts; a part runs under `timeout` for the seconds left, so a lease's
# per-call limit (600 s) ends no part mid-write without its log.  After
# each part every log so far is packed into $OUT/gpu_logs.tgz, and only
# the summaries stay beside it (a call brings back only a few files).
# Exit status: that of the suite (2 when it did not run to its end).
set -uo pipefail
cd "$(dirname "$0")/.."
OUT="${OUT:-$PWD/gpu_logs}"
mkdir -p "$OUT"
STAGE="$(mktemp -d)"
start=$(date +%s)
deadline=$(( start + ${GPU_DEADLINE_S:-540} ))

# Packs every log of the stage into $OUT, with the summaries beside it.
pack() {
  tar -C "$STAGE" -czf "$OUT/gpu_logs.tgz" .
  find "$STAGE" -name test_gpu_summary.txt -o -name bench.log \
       -o -name '*_by_type.txt' | while read -r f; do
    cp "$f" "$OUT/$(basename "$(dirname "$f")")_$(basename "$f")"
  done
}

# part NAME VAR=VALUE...: gpu_check.sh with those settings, its logs in
# the stage's NAME/, for the seconds left before the deadline.
part() {
  local name="$1" left rc
  shift
  left=$(( deadline - $(date +%s) ))
  if [ "$left" -le 10 ]; then
    echo "== $name: not started, $left s left before the deadline"
    return 3
  fi
  echo "== $name ($left s left)"
  mkdir -p "$STAGE/$name"
  env OUT="$STAGE/$name" GPU_PACK=0 "$@" \
    timeout -k 10 "$left" bash scripts/gpu_check.sh \
    > "$STAGE/$name/output.log" 2>&1
  rc=$?
  tail -n 40 "$STAGE/$name/output.log"
  echo "== $name: exit $rc, $(( $(date +%s) - start )) s from the start"
  pack
  return $rc
}

suite_status=2
for name in ${NEXT_PARTS:-suite largest time nets}; do
  case "$name" in
    suite)
      part suite GPU_BENCH=0 GPU_JOBS=4
      rc=$?
      [ "$rc" -le 1 ] && suite_status=$rc ;;
    largest)
      part largest GPU_TESTS=0 PARTS=largest BATCH_STEP=64 \
        LARGEST="lean:sqrt2@6656 lean:cheap128@3712" ;;
    time)
      part time GPU_TESTS=0 PARTS=time SPECS=resnet50:64 REPS=3 TF32=1 \
        VARIANTS="mem+tf32+find mem+tf32+find+nondet memwide+tf32+find \
cheap+tf32+find cheap128+tf32+find" \
        GPU_PROFILE="resnet50:64:mem resnet50:64:cheap" \
        PROFILE_FLAGS="--allow_tf32 --conv_algo=find" ;;
    nets)
      part nets GPU_TESTS=0 PARTS=time REPS=2 TF32="0 1" \
        SPECS="caffenet:256 googlenet:128 vgg16:64" \
        VARIANTS="mem mem+tf32+find" ;;
    *)
      echo "gpu_next_run: unknown part '$name'" \
           "(one of: suite largest time nets)" >&2
      exit 2 ;;
  esac
done
rm -rf "$STAGE"
exit $suite_status
