#!/usr/bin/env bash
# The GPU bundle's launcher: bench/gpu/bundle.sh puts it at the top of the bundle as run.sh
# (docs/contributing/gpu.md). It finds the machine's own LibTorch, checks that it is the torch and CUDA
# version the bundle's petname was built against and that every library petname and strace load
# resolves (ldd), all before it runs anything; then it runs bench/gpu/check.sh, the throughput sweep
# (sweep.sh) and the comparison with the PyTorch recipe (measure.sh), every raw log under one
# folder.
#
#   ./run.sh [--device cuda|cpu] [--libtorch DIR] [--cuda-libs DIR] [--parts LIST]
#            [--max-names N] [--out DIR]
#
# --libtorch DIR (or PETNAME_LIBTORCH=DIR): an installed torch package or a LibTorch folder;
#   default: the torch package python3 imports. LibTorch's and CUDA's libraries are taken from
#   DIR/lib and from the nvidia/*/lib folders beside DIR (pip's layout), or under --cuda-libs DIR.
# --parts: a comma-separated choice of check, sweep, measure; default all three on cuda, check
#   on cpu (sweep and measure need a GPU; measure also python3 with torch, for the recipe).
# --max-names N: check.sh's slice of the table (default check.sh's).
# --out DIR: default results-<UTC time> in the bundle; printed first and last.
# Exit 0 when every part passed; 1 when a part failed or, before anything ran, when the torch or
# a library does not fit (one line naming it); 2 on a usage error.
set -uo pipefail
usage() { echo "run.sh: error: $*" >&2 && exit 2; }
die() { echo "run.sh: error: $*" >&2 && exit 1; }
device=cuda libtorch=${PETNAME_LIBTORCH:-} cuda_libs="" parts="" max_names=() out=""
while (($#)); do
  case $1 in
    --device | --libtorch | --cuda-libs | --parts | --max-names | --out)
      (($# >= 2)) || usage "$1 needs a value" ;;&
    --device) device=$2 ;;
    --libtorch) libtorch=$2 ;;
    --cuda-libs) cuda_libs=$2 ;;
    --parts) parts=$2 ;;
    --max-names) max_names=(--max-names "$2") ;;
    --out) out=$2 ;;
    *) usage "unknown argument $1" ;;
  esac
  shift 2
done
[[ $device == cuda || $device == cpu ]] || usage "--device cuda or cpu"
[[ -n $parts ]] || { [[ $device == cuda ]] && parts=check,sweep,measure || parts=check; }
IFS=, read -r -a chosen <<<"$parts"
for part in "${chosen[@]}"; do
  case $part in
    check) ;;
    sweep | measure) [[ $device == cuda ]] || usage "--parts $part runs on CUDA only" ;;
    *) usage "--parts: $part is not one of check, sweep, measure" ;;
  esac
done
# Paths given relative to where run.sh was called from, before moving into the bundle.
for var in libtorch cuda_libs out; do
  [[ -z ${!var} ]] || printf -v "$var" '%s' "$(realpath -m -- "${!var}")"
done
cd "$(dirname "$0")" || exit 1
here=$PWD
runtime() { python3 bench/gpu/runtime.py "$@"; }

if [[ -z $libtorch ]]; then
  libtorch=$(python3 -c 'import os, torch; print(os.path.dirname(torch.__file__))' 2>/dev/null) ||
    die "python3 cannot import torch; give --libtorch DIR (a LibTorch folder or an installed torch package)"
fi
want_torch=$(sed -n 's/^torch //p' BUNDLE 2>/dev/null) want_cuda=$(sed -n 's/^cuda //p' BUNDLE 2>/dev/null)
[[ -n $want_torch && -n $want_cuda ]] || die "no torch and cuda lines in $here/BUNDLE: not a folder of bench/gpu/bundle.sh"
line=$(runtime match "$want_torch" "$want_cuda" "$libtorch") || die "$line"
[[ -d $libtorch/lib ]] || die "$libtorch has no lib/ folder"
folders=("$here/lib" "$libtorch/lib")
for d in "$(dirname "$libtorch")"/nvidia/*/lib ${cuda_libs:+"$cuda_libs"/nvidia/*/lib}; do
  [[ -d $d ]] && folders+=("$d")
done
LD_LIBRARY_PATH=$(IFS=: && echo "${folders[*]}")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export LD_LIBRARY_PATH
for program in bin/petname bin/strace; do
  line=$(runtime resolve "$program" "${folders[@]}") || die "$line"
done
if [[ " ${chosen[*]} " == *" measure "* ]]; then
  python3 -c 'import torch' 2>/dev/null ||
    die "measure runs bench/recipe.py, which needs python3 with torch; leave measure out of --parts"
fi
version=$(bin/petname --version 2>&1) || die "bin/petname --version failed: $version"

[[ -n $out ]] || out=$here/results-$(date -u +%Y%m%dT%H%M%SZ)
mkdir -p "$out" || die "cannot create $out"
echo "run.sh: logs go to $out"
{
  echo "petname $version"
  cat BUNDLE
  echo "torch found: $libtorch"
  echo "LD_LIBRARY_PATH=$LD_LIBRARY_PATH"
  ldd bin/petname
} >"$out/environment.txt" 2>&1
echo "run.sh: petname $version, torch at $libtorch"

failed=()
for part in "${chosen[@]}"; do
  echo "== $part"
  case $part in
    check)
      bash bench/gpu/check.sh --device "$device" --petname bin/petname --strace bin/strace \
        --data data/seattle_pet_licenses.csv "${max_names[@]}" --out "$out/check" ;;
    sweep) bash bench/gpu/sweep.sh . 4 "4096 16384 65536" "fp32 bf16" "device-forest cudnn" "$out/sweep" "default deterministic" ;;
    measure) bash bench/gpu/measure.sh . "$out/measure" 2 ;;
  esac 2>&1 | tee "$out/$part.txt"
  ((PIPESTATUS[0] == 0)) || failed+=("$part")
done
echo "run.sh: every log is under $out"
if ((${#failed[@]})); then
  echo "run.sh: FAILED: ${failed[*]} (of ${chosen[*]})"
  exit 1
fi
echo "run.sh: passed: ${chosen[*]}"
