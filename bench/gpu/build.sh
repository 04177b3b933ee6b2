#!/usr/bin/env bash
# Builds petname on a GPU machine against the LibTorch inside its PyTorch wheel (CUDA, NCCL),
# with the Debian packages from .gpu-kit/debs (bench/gpu/prepare.sh) unpacked into a private
# root. Needs python3 with torch, cmake, ninja, a CUDA toolkit and g++ (docs/gpu.md).
#
#   bash bench/gpu/build.sh [BUILD_DIR] [TARGET...]     default: build-gpu, every target
set -euo pipefail
cd "$(dirname "$0")/../.."

build=${1:-build-gpu}
shift || true
root=${PETNAME_DEB_ROOT:-/tmp/petname-debroot}
mkdir -p "$root"
for deb in .gpu-kit/debs/*.deb; do dpkg-deb -x "$deb" "$root"; done
# Debian's civetweb CMake targets name its server binary, which no package here ships; only
# its existence is checked.
mkdir -p "$root/usr/bin"
[[ -e $root/usr/bin/civetweb ]] || install -m 755 /dev/null "$root/usr/bin/civetweb"
torch_cmake=$(python3 -c 'import torch; print(torch.utils.cmake_prefix_path)')
multiarch=$root/usr/lib/x86_64-linux-gnu
cmake -S . -B "$build" -G Ninja -DPETNAME_WITH_OPERATOR=OFF \
  -DCMAKE_PREFIX_PATH="$torch_cmake;$root/usr;$multiarch/cmake" \
  -DCMAKE_CUDA_ARCHITECTURES=90 >"$build.configure.log" 2>&1 || {
  tail -n 40 "$build.configure.log"
  exit 1
}
grep '^-- petname:' "$build.configure.log" || true
targets=()
for t in "$@"; do targets+=(--target "$t"); done
cmake --build "$build" -j "$(nproc)" "${targets[@]}"
