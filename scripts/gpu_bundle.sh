#!/usr/bin/env bash
# gpu_bundle.sh (make gpu-bundle): builds the GPU test binaries and packs
# them, with the runtime libraries a GPU machine lacks, into .gpu/ (ignored
# by git), so one device call can run scripts/gpu_check.sh there.
#
# The bundle build (build_gpu/) leaves out what the GPU tests do not need
# and what would not fit the 64 MiB a device call carries: OpenCV (its
# imgcodecs pulls in hundreds of MB), LevelDB, oneDNN, MPI, pycaffe and
# matcaffe.  CUDA's own libraries (cudart, cuBLAS, cuRAND, cuDNN, NCCL) are
# not packed: the GPU machine has them inside its PyTorch environment
# (gpu_check.sh puts them on the library path).  Neither is glibc or the
# C++ runtime, which the GPU machine has in newer versions.
set -euo pipefail
cd "$(dirname "$0")/.."
JOBS="${JOBS:-2}"
BUILD=build_gpu
cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DUSE_CUDA=ON \
  -DCUDA_ARCH="${CUDA_ARCH:-90}" -DUSE_OPENCV=OFF -DUSE_LEVELDB=OFF \
  -DUSE_DNNL=OFF -DUSE_MPI=OFF -DBUILD_PYTHON=OFF -DBUILD_MATLAB=OFF \
  -DBUILD_FUZZ=OFF > /tmp/leancaffe_gpu_configure.log
grep -q "CUDA back end" /tmp/leancaffe_gpu_configure.log || {
  echo "gpu-bundle: no CUDA toolkit found; nothing to bundle" >&2; exit 1; }
cmake --build "$BUILD" -j "$JOBS" --target test_gpu caffe_tool

STAGE="$BUILD/bundle"
rm -rf "$STAGE" .gpu
mkdir -p "$STAGE/bin" "$STAGE/lib" .gpu
cp "$BUILD/test_gpu" "$BUILD/tools/caffe" "$BUILD/tools/caffe_hdf5_check" \
   "$STAGE/bin/"
cp "$BUILD/libcaffe.so" "$STAGE/lib/"
# Every library the binaries load, except the system's and CUDA's.
skip='linux-vdso|ld-linux|/libc\.so|/libm\.so|/libpthread|/libdl\.so|/librt\.so|libstdc\+\+|libgcc_s|libcudart|libcublas|libcurand|libcudnn|libnccl|libcaffe\.so'
for bin in "$STAGE/bin/test_gpu" "$STAGE/bin/caffe" "$STAGE/lib/libcaffe.so"; do
  ldd "$bin" | awk '/=> \//{print $3}'
done | sort -u | grep -Ev "$skip" | while read -r lib; do
  cp -L "$lib" "$STAGE/lib/"
done
# Packed: OpenBLAS alone is 35 MB, and a device call carries 64 MiB in all.
tar -C "$STAGE" -czf .gpu/leancaffe_gpu.tar.gz bin lib
echo "gpu-bundle: $(du -sh "$STAGE" | cut -f1) of binaries and" \
     "$(ls "$STAGE/lib" | wc -l) libraries, $(du -sh .gpu | cut -f1) packed" \
     "in .gpu/leancaffe_gpu.tar.gz"
mkdir -p .git/info
grep -qxF '/.gpu/' .git/info/exclude 2>/dev/null || echo '/.gpu/' >> .git/info/exclude
