#!/usr/bin/env bash
# gpu_check.sh: every GPU test and the GPU benchmark, in one command, on a
# machine with a GPU (run from the repository root after make gpu-bundle
# put the binaries in .gpu/).  Logs go to $OUT (default gpu_logs/):
#   env.txt        nvidia-smi, library resolution, device_query
#   test_gpu_summary.txt  one line per test suite (exit status, time, counts)
#   tool_check.log scripts/gpu_tool_check.sh: `caffe train/test --gpu=0`
#   test_gpu_<suite>.log/.xml  each suite's own run of test_gpu (with
#                  GPU_JOBS=N, N of them at once, and the model suites
#                  one process per test)
#   bench.log      bench/gpu/run_gpu_bench.sh, appended to (skipped with
#                  GPU_BENCH=0; GPU_TESTS=0 runs the benchmark alone)
#   profile_<net>_b<batch>_<variant>.log  with GPU_PROFILE="NET:BATCH[:VARIANT]
#                  ...": `caffe time --gpu=0` of bench/gpu/make_nets.py's
#                  net, its per-layer times and peak device bytes, before
#                  the tests (a slow layer shows here first); PROFILE_FLAGS
#                  are added to its command line (--allow_tf32, say);
#                  profile_..._by_type.txt sums it by layer type
#                  (bench/layer_shares.py --by-direction)
#   gpu_logs.tgz   with GPU_PACK=1: all of the above packed, and only the
#                  summaries, bench.log and the _by_type sums left beside it
# Exit status: that of the tests.
#
# The packed libraries are put on the library path of LeanCaffe's own
# binaries only (LEANCAFFE_RUN), never exported: PyTorch, run beside them
# by the benchmark, keeps its own.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT="${OUT:-$PWD/gpu_logs}"
mkdir -p "$OUT"
if [ ! -x .gpu/bin/test_gpu ]; then
  tar -C .gpu -xzf .gpu/leancaffe_gpu.tar.gz || {
    echo "gpu_check: no .gpu/leancaffe_gpu.tar.gz; run make gpu-bundle" >&2
    exit 2; }
fi
# CUDA's libraries come from the PyTorch environment there.
PY="$(command -v python3)"
SP="$("$PY" -c 'import site; print(site.getsitepackages()[0])' 2>/dev/null)"
for d in "$SP"/nvidia/cu13/lib "$SP"/nvidia/cudnn/lib "$SP"/nvidia/nccl/lib \
         "$SP"/nvidia/cublas/lib "$SP"/nvidia/cuda_runtime/lib \
         "$SP"/nvidia/curand/lib; do
  [ -d "$d" ] && LIBS="${LIBS:+$LIBS:}$d"
done
LEANCAFFE_LD="$PWD/.gpu/lib${LIBS:+:$LIBS}"
export LEANCAFFE_RUN="env LD_LIBRARY_PATH=$LEANCAFFE_LD"
export CAFFE_SOURCE_DIR="$PWD"
{
  nvidia-smi
  echo "LeanCaffe's library path: $LEANCAFFE_LD"
  $LEANCAFFE_RUN ldd .gpu/bin/test_gpu | grep -E "not found|cud|cublas|nccl" || true
  $LEANCAFFE_RUN .gpu/bin/caffe device_query 2>&1
  # Whether pycaffe could be built there for its Python (pycaffe and
  # matcaffe are not in the bundle: built here for Debian's Python 3.11).
  echo "python: $("$PY" --version 2>&1), headers: $("$PY" -c 'import sysconfig, os; p = sysconfig.get_paths()["include"]; print(p, os.path.exists(os.path.join(p, "Python.h")))' 2>&1)"
  echo "numpy: $("$PY" -c 'import numpy; print(numpy.__version__, numpy.get_include())' 2>&1)"
  echo "protobuf: $("$PY" -c 'import google.protobuf as p; print(p.__version__)' 2>&1 | tail -1)"
  echo "c++: $(command -v g++ c++ 2>&1 | tr '\n' ' ') octave: $(command -v octave 2>&1)"
} > "$OUT/env.txt" 2>&1
if $LEANCAFFE_RUN ldd .gpu/bin/test_gpu | grep -q "not found"; then
  echo "gpu_check: libraries not found (see $OUT/env.txt)"
  grep "not found" "$OUT/env.txt"
  exit 2
fi
# One process per test suite, so a crash in one (a bad kernel launch can
# poison the CUDA context) leaves the others their own run; each under
# GPU_SUITE_TIMEOUT seconds.  GPU_TEST_FILTER: gtest filters separated
# by spaces, one process each, instead of one per suite.
# GPU_SANITIZER: a compute-sanitizer tool (memcheck, initcheck, racecheck,
# synccheck) to run each suite under; it fails the suite on any report.
SANITIZER=""
if [ -n "${GPU_SANITIZER:-}" ]; then
  SANITIZER="compute-sanitizer --tool $GPU_SANITIZER --error-exitcode 9"
fi
PROFILE_NETS="$(mktemp -d)"
for spec in ${GPU_PROFILE:-}; do
  proto="$(python3 bench/gpu/make_nets.py "$PROFILE_NETS" "$spec")"
  log="$OUT/profile_$(basename "$proto" .prototxt).log"
  timeout "${GPU_SUITE_TIMEOUT:-300}" $LEANCAFFE_RUN .gpu/bin/caffe time \
    --gpu=0 --model="$proto" --iterations="${PROFILE_ITERS:-5}" \
    ${PROFILE_FLAGS:-} > "$log" 2>&1
  echo "profile $spec: exit $?;" \
    "$(grep -E 'Average Forward-Backward|Peak GPU' "$log" | sed 's/.*\] //' \
       | tr '\n' ' ')"
  # Per layer type, beside the log (and in this command's output).
  python3 bench/layer_shares.py "$proto" "$log" --by-direction \
    > "${log%.log}_by_type.txt" 2>&1
  cat "${log%.log}_by_type.txt"
done
rm -rf "$PROFILE_NETS"
status=0
if [ "${GPU_TESTS:-1}" != 0 ]; then
# The filters: GPU_TEST_FILTER's, else one per suite -- and with GPU_JOBS
# over 1, one per test of the parameterized model suites (Models/...),
# the longest (GpuZooTest took 213 s of 345 in one process).
# The test list is asked for once, and only when no filter is given.
if [ -n "${GPU_TEST_FILTER:-}" ]; then
  filters="$GPU_TEST_FILTER"
else
  per_test=0; [ "${GPU_JOBS:-1}" -gt 1 ] && per_test=1
  filters="$($LEANCAFFE_RUN .gpu/bin/test_gpu --gtest_list_tests \
    | awk -v per_test="$per_test" '
      /^[^ ]/ { suite = $1
                if (!per_test || suite !~ /^Models\//) print suite "*"; next }
      per_test && suite ~ /^Models\// { print suite $1 }')"
fi
run_filter() {  # filter -> its summary lines
  local filter="$1" name start rc
  name="$(echo "$filter" | tr -c 'A-Za-z0-9_\n' _)"
  start=$(date +%s)
  timeout "${GPU_SUITE_TIMEOUT:-300}" $LEANCAFFE_RUN $SANITIZER \
    .gpu/bin/test_gpu --gtest_filter="$filter" \
    --gtest_output="xml:$OUT/test_gpu_$name.xml" > "$OUT/test_gpu_$name.log" 2>&1
  rc=$?
  echo "$filter: exit $rc in $(( $(date +%s) - start )) s;" \
    "$(grep -E '^\[  PASSED  \]|^\[  FAILED  \] [0-9]|^\[  SKIPPED \] [0-9]' \
       "$OUT/test_gpu_$name.log" | tr '\n' ' ')"
  grep -E '^\[  FAILED  \] [A-Z]' "$OUT/test_gpu_$name.log" | head -20
}
# GPU_JOBS: test processes at once on the one GPU (default 1).  The
# tests' nets are small, so a process leaves the GPU idle between its
# launches and another can use it; each gets 1/GPU_JOBS of the CPU's
# threads.  GPU_SERIAL (a regex of filters; default the blobs past 2^31
# elements, which need most of the device's memory and skip without it)
# run alone afterwards.  Summaries keep the filters' order; each is also
# a file in $OUT/summary_parts until all have run, so a run cut short
# leaves those that finished.
jobs_at_once="${GPU_JOBS:-1}"
serial_regex="${GPU_SERIAL:-GpuLargeBlobTest}"
threads=$(( $(nproc) / jobs_at_once )); [ "$threads" -ge 1 ] || threads=1
parts="$OUT/summary_parts"
rm -rf "$parts"; mkdir -p "$parts"
index=0
for filter in $filters; do
  index=$((index + 1))
  part="$parts/$(printf %04d "$index")"
  if [ "$jobs_at_once" -le 1 ]; then
    run_filter "$filter" > "$part"
    cat "$part"
  elif echo "$filter" | grep -qE "$serial_regex"; then
    echo "$filter" > "$part.serial"
  else
    OMP_NUM_THREADS=$threads OPENBLAS_NUM_THREADS=$threads \
      run_filter "$filter" > "$part" &
    while [ "$(jobs -rp | wc -l)" -ge "$jobs_at_once" ]; do wait -n; done
  fi
done
wait
for serial in "$parts"/*.serial; do
  [ -e "$serial" ] || continue
  run_filter "$(cat "$serial")" > "${serial%.serial}"
  rm "$serial"
done
if [ "$jobs_at_once" -le 1 ]; then
  cat "$parts"/* > "$OUT/test_gpu_summary.txt"
else
  cat "$parts"/* | tee "$OUT/test_gpu_summary.txt"
fi
rm -rf "$parts"
grep -q "exit [^0]" "$OUT/test_gpu_summary.txt" && status=1
# The caffe tool's own GPU paths: train (with and without mem_param),
# resume from a snapshot, test.
timeout "${GPU_SUITE_TIMEOUT:-300}" bash scripts/gpu_tool_check.sh \
  > "$OUT/tool_check.log" 2>&1 || status=1
cat "$OUT/tool_check.log"
fi
if [ "${GPU_BENCH:-1}" != 0 ] && [ -x bench/gpu/run_gpu_bench.sh ]; then
  bash bench/gpu/run_gpu_bench.sh 2>&1 | tee -a "$OUT/bench.log"
fi
# GPU_PACK=1: every log in one $OUT/gpu_logs.tgz, the summaries also
# beside it, for a caller that brings back only a few files (the device
# tool left the twenty-ninth session's profile behind).
if [ "${GPU_PACK:-0}" != 0 ]; then
  (cd "$OUT" && find . -type f ! -name gpu_logs.tgz | sort \
     | tar -czf gpu_logs.tgz -T - \
   && find . -type f ! -name gpu_logs.tgz ! -name test_gpu_summary.txt \
        ! -name bench.log ! -name '*_by_type.txt' -delete)
fi
exit $status
