#!/usr/bin/env bash
# Installs the Debian 12 packages LeanCaffe builds and tests with.
# Idempotent: does nothing when everything is already installed.
set -euo pipefail
PACKAGES=(
  build-essential cmake ccache pkg-config
  libprotobuf-dev protobuf-compiler
  libgoogle-glog-dev libgflags-dev
  libopenblas-dev libopenblas0-openmp libdnnl-dev
  libboost-dev libboost-filesystem-dev libboost-system-dev
  liblmdb-dev lmdb-utils libhdf5-dev
  libleveldb-dev libsnappy-dev libopencv-dev
  libgtest-dev zlib1g-dev
  python3-numpy python3-protobuf python3-h5py python3-pytest
  python3-dev pybind11-dev python3-skimage python3-pil python3-matplotlib
  python3-pydot graphviz
  octave liboctave-dev
  clang-14 libclang-rt-14-dev libomp-14-dev
  libopenmpi-dev openmpi-bin
  dataset-fashion-mnist
)
missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install_deps: all ${#PACKAGES[@]} packages present"
  exit 0
fi
echo "install_deps: installing ${missing[*]}"
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
