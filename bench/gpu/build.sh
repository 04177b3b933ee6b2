#!/usr/bin/env bash
# Builds petname on a GPU machine against the LibTorch inside its PyTorch wheel (CUDA, NCCL),
# with the Debian packages from .gpu-kit/debs (bench/gpu/prepare.sh) unpacked into a private
# root. Needs python3 with torch, cmake, ninja, a CUDA toolkit and g++ (docs/contributing/gpu.md); compiles go
# through ccache where it is installed.
#
#   bash bench/gpu/build.sh [BUILD_DIR] [TARGET...]     default: build-gpu, every target
#
# PETNAME_TORCH_WHEEL_DIR=DIR takes LibTorch from scripts/torch-wheel's folder instead of
# python3's torch (the CUDA path compiled without a CUDA toolkit, as in scripts/test).
# PETNAME_GPU_DEBS=DIR takes the .deb files from DIR instead of .gpu-kit/debs.
# PETNAME_GPU_KIT_ONLY=1 lets CMake find Debian packages in the kit's root only, never in
# this machine's /usr (bench/gpu/kit_test.sh). With no TARGET and PETNAME_CONFIGURE_ONLY=1 it
# stops after the configure. PETNAME_DEB_ROOT=DIR unpacks the packages there instead of
# /tmp/petname-debroot; the programs built find their libraries there when they run.
set -euo pipefail
cd "$(dirname "$0")/../.."

build=${1:-build-gpu}
shift || true
root=${PETNAME_DEB_ROOT:-/tmp/petname-debroot}
mkdir -p "$root"
root=$(cd "$root" && pwd)
for deb in "${PETNAME_GPU_DEBS:-.gpu-kit/debs}"/*.deb; do dpkg-deb -x "$deb" "$root"; done
# A package's absolute symlinks (zlib1g-dev's libz.so -> /lib/x86_64-linux-gnu/libz.so.1.2.13)
# would reach into this machine's own folders: they are pointed into the root instead.
while IFS= read -r -d '' link; do
  target=$(readlink "$link")
  [[ $target == "$root"/* ]] || ln -sfn "$root$target" "$link"
done < <(find "$root" -type l -lname '/*' -print0)
# Debian's civetweb CMake targets name its server binary, which no package here ships; only
# its existence is checked.
mkdir -p "$root/usr/bin"
[[ -e $root/usr/bin/civetweb ]] || install -m 755 /dev/null "$root/usr/bin/civetweb"
multiarch=$root/usr/lib/x86_64-linux-gnu
# The kit's multiarch headers (OpenSSL's configuration.h) are not under any folder CMake adds.
# The programs find the kit's libraries, and the libraries those load (libcurl's libldap, ...),
# through their DT_RPATH, which (unlike DT_RUNPATH) also serves the libraries' own dependencies:
# they run without LD_LIBRARY_PATH.
args=(-DPETNAME_WITH_OPERATOR=OFF -DCMAKE_CUDA_ARCHITECTURES=90
  "-DCMAKE_CXX_STANDARD_INCLUDE_DIRECTORIES=$root/usr/include/x86_64-linux-gnu"
  "-DCMAKE_BUILD_RPATH=$multiarch;$root/lib/x86_64-linux-gnu" -DCMAKE_EXE_LINKER_FLAGS=-Wl,--disable-new-dtags)
if command -v ccache >/dev/null; then args+=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
if [[ -n ${PETNAME_TORCH_WHEEL_DIR:-} ]]; then
  wheel=$PETNAME_TORCH_WHEEL_DIR
  args+=("-DPETNAME_TORCH_WHEEL=$wheel/torch" "-DPETNAME_CUDA_LIBS=$wheel/cuda/lib"
    -DPETNAME_TORCH_WHEEL_CUDA=ON "-DPETNAME_CUDA_INCLUDES=$wheel/cuda/include")
  prefix="$root/usr;$multiarch/cmake"
else
  prefix="$(python3 -c 'import torch; print(torch.utils.cmake_prefix_path)');$root/usr;$multiarch/cmake"
fi
if [[ ${PETNAME_GPU_KIT_ONLY:-0} == 1 ]]; then
  # The C library is the toolchain's (libc6-dev comes with g++), not the kit's: civetweb's
  # FindLibDl and FindLibRt are pointed at it.
  args+=("-DCMAKE_IGNORE_PREFIX_PATH=/usr;/usr/local;/;/opt"
    "-DCMAKE_IGNORE_PATH=/usr/include;/usr/lib;/usr/lib/x86_64-linux-gnu;/usr/lib/cmake;/usr/share"
    -DLIBDL_INCLUDE_DIRS=/usr/include "-DLIBDL_LIBRARIES=$(g++ -print-file-name=libdl.a)"
    -DLIBRT_INCLUDE_DIRS=/usr/include "-DLIBRT_LIBRARIES=$(g++ -print-file-name=librt.a)")
  export PKG_CONFIG_LIBDIR=$multiarch/pkgconfig:$root/usr/share/pkgconfig PKG_CONFIG_SYSROOT_DIR=$root
fi
cmake -S . -B "$build" -G Ninja "${args[@]}" "-DCMAKE_PREFIX_PATH=$prefix" >"$build.configure.log" 2>&1 || {
  tail -n 40 "$build.configure.log"
  exit 1
}
grep '^-- petname:' "$build.configure.log" || true
(($# == 0)) && [[ ${PETNAME_CONFIGURE_ONLY:-0} == 1 ]] && exit 0
targets=()
for t in "$@"; do targets+=(--target "$t"); done
cmake --build "$build" -j "$(nproc)" "${targets[@]}"
