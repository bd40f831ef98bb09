#!/usr/bin/env bash
# Configures and builds the sanitized tree (build_asan/): clang 14,
# AddressSanitizer + UndefinedBehaviorSanitizer over the library, tools and
# tests, plus the libFuzzer targets.  Used by `make test-asan` and
# `make fuzz`.  ASAN_BUILD_DIR and JOBS override the defaults.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${ASAN_BUILD_DIR:-build_asan}
JOBS=${JOBS:-2}
if [ ! -f "$BUILD/CMakeCache.txt" ]; then
  CC=clang-14 CXX=clang++-14 cmake -S . -B "$BUILD" -DLEANCAFFE_FUZZ=ON -DUSE_CUDA=OFF \
    -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CXX_FLAGS_RELEASE="-O1 -g" -DCMAKE_C_FLAGS_RELEASE="-O1 -g"
fi
cmake --build "$BUILD" -j "$JOBS" "$@"
