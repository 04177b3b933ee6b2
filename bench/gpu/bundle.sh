#!/usr/bin/env bash
# Makes the GPU bundle (docs/contributing/gpu.md): one folder, and its tarball, that runs petname's GPU checks
# and benchmarks on a GPU machine with PyTorch 2.11 for CUDA 13 (pip's torch or a LibTorch
# folder) and nothing else of the project's: no build tools, network or container engine.
#
#   run.sh        the launcher (bench/gpu/bundle_run.sh)
#   bin/petname   the CUDA build's petname (scripts/build-torch2, the CUDA image's), stripped,
#                 its DT_RPATH (this machine's folders) cleared
#   bin/strace    this machine's strace, with which check.sh's resume check stops its run
#   lib/          the shared libraries they load besides LibTorch, CUDA, NCCL and the C/C++
#                 runtime, as ldd finds them here (OpenSSL, curl and what it loads,
#                 prometheus-cpp, cpp-httplib, yaml-cpp, libunwind, ...)
#   data/         the Seattle table (scripts/get-data's, or --data CSV)
#   bench/        gpu/check.sh, sweep.sh, measure.sh, verify.py, runtime.py and recipe.py
#   BUNDLE        the torch version and CUDA major petname was built against (the launcher
#                 checks the machine's), the commit, and each library's Debian package
#
#   bash bench/gpu/bundle.sh [--petname BIN] [--out DIR] [--data CSV] [--torch-wheel DIR]
#                            [--cuda-libs DIR]
#
# BIN: default build-torch2/bin/petname. DIR gets petname-gpu/ and petname-gpu.tar.gz (default:
# gpu-bundle/ beside BIN's bin/); the last line printed is the tarball. --torch-wheel and
# --cuda-libs: the folders BIN was built and runs against (default scripts/torch-wheel's and
# scripts/cuda-libs', which are cached).
set -euo pipefail
cd "$(dirname "$0")/../.."
die() { echo "bundle: error: $*" >&2 && exit 1; }
bin=build-torch2/bin/petname out="" data=data/seattle_pet_licenses.csv wheel="" cuda_libs=""
while (($#)); do
  case $1 in
    --petname) bin=${2:-} ;;
    --out) out=${2:-} ;;
    --data) data=${2:-} ;;
    --torch-wheel) wheel=${2:-} ;;
    --cuda-libs) cuda_libs=${2:-} ;;
    *) echo "bundle: error: unknown argument $1" >&2 && exit 2 ;;
  esac
  [[ -n ${2:-} ]] || { echo "bundle: error: $1 needs a value" >&2 && exit 2; }
  shift 2
done
[[ -x $bin ]] || die "no petname at $bin (scripts/build-torch2 builds build-torch2/bin/petname)"
readelf -d "$bin" | grep -q '(NEEDED).*\[libtorch_cuda\.so\]' ||
  die "$bin does not link libtorch_cuda.so: not a CUDA build (scripts/build-torch2)"
[[ -f $data ]] || die "no $data (scripts/get-data)"
strace_bin=$(command -v strace) || die "no strace (scripts/setup installs it): check.sh's resume check stops its run with it"
out=${out:-$(dirname "$(dirname "$bin")")/gpu-bundle}
wheel=${wheel:-$(bash scripts/torch-wheel)}
cuda_libs=${cuda_libs:-$(bash scripts/cuda-libs)}
line=$(python3 bench/gpu/runtime.py torch "$wheel/torch") || die "$line"
read -r torch_version cuda_major <<<"$line"

folder=$out/petname-gpu
rm -rf "$folder.partial"
mkdir -p "$folder.partial"/{bin,lib,data,bench/gpu}
trap 'rm -rf "$folder.partial"' EXIT
# What petname and strace load from outside the wheel and the CUDA libraries: the libraries of
# this machine's Debian packages that the GPU machine need not have.
petname_libs=$(LD_LIBRARY_PATH=$(find "$cuda_libs/nvidia" -mindepth 2 -maxdepth 2 -name lib -type d | paste -sd:) \
  python3 bench/gpu/runtime.py bundle-libs "$bin" "$wheel" "$cuda_libs") || die "$petname_libs"
strace_libs=$(python3 bench/gpu/runtime.py bundle-libs "$strace_bin" "$wheel" "$cuda_libs") || die "$strace_libs"
readarray -t libs < <(printf '%s\n' "$petname_libs" "$strace_libs" | sed '/^$/d' | sort -u)
package_of() { # LIBRARY: its Debian package, under any of the names a merged /usr gives it
  local real p
  real=$(realpath "$1")
  for p in "$1" "$real" "${real/#\/usr\/lib\//\/lib\/}" "${1/#\/lib\//\/usr\/lib\/}"; do
    dpkg -S "$p" 2>/dev/null | head -n 1 | cut -d: -f1 && return 0
  done
  return 0
}
{
  echo "torch $torch_version"
  echo "cuda $cuda_major"
  echo "commit $(git describe --always --dirty 2>/dev/null || echo unknown)"
  echo "strace $(dpkg-query -W -f '${Version}' strace 2>/dev/null || echo unknown)"
  echo "libraries (file, Debian package, version):"
} >"$folder.partial/BUNDLE"
for lib in "${libs[@]}"; do
  cp -L "$lib" "$folder.partial/lib/"
  package=$(package_of "$lib")
  echo "  $(basename "$lib") ${package:-?} $([[ -z $package ]] || dpkg-query -W -f '${Version}' "$package")" \
    >>"$folder.partial/BUNDLE"
done
strip -o "$folder.partial/bin/petname" "$bin"
bash scripts/clear-rpath "$folder.partial/bin/petname"
cp "$strace_bin" "$folder.partial/bin/strace"
install -m 644 "$data" "$folder.partial/data/seattle_pet_licenses.csv"
cp bench/gpu/{check.sh,sweep.sh,measure.sh,verify.py,runtime.py} "$folder.partial/bench/gpu/"
cp bench/recipe.py "$folder.partial/bench/"
cp bench/gpu/bundle_run.sh "$folder.partial/run.sh"
chmod 755 "$folder.partial/run.sh" "$folder.partial/bin/petname" "$folder.partial/bin/strace"

rm -rf "$folder" "$out/petname-gpu.tar.gz"
mv "$folder.partial" "$folder"
trap - EXIT
tar -C "$out" -czf "$out/petname-gpu.tar.gz.partial" petname-gpu
mv "$out/petname-gpu.tar.gz.partial" "$out/petname-gpu.tar.gz"
echo "bundle: $folder ($(du -sb "$folder" | cut -f1) bytes, $(ls "$folder/lib" | wc -l) libraries;" \
  "petname built against torch $torch_version, CUDA $cuda_major)" >&2
realpath "$out/petname-gpu.tar.gz"
