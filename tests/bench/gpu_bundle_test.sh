#!/usr/bin/env bash
# The GPU bundle (bench/gpu/bundle.sh, docs/contributing/gpu.md) without a GPU: made from the CUDA build's
# petname (for build-torch2/bin/petname by docs/contributing/gpu.md's command as written), unpacked from its
# tarball and its launcher run on the CPU against the torch wheel the binary was built with and the
# CUDA libraries of scripts/cuda-libs, as a GPU machine runs it against its own:
#   - the folder and the tarball stay under 40 MB; lib/ carries no LibTorch, CUDA, NCCL or C/C++
#     runtime library; BUNDLE names torch 2.11 and CUDA 13; petname's DT_RPATH is blank;
#   - run.sh --device cpu passes check.sh's CPU checks with every log under --out;
#   - without one of its libraries (libyaml-cpp) the bundle is refused before anything runs, in
#     one line naming the library, exit 1;
#   - Debian's torch 1.13 (python3-torch, /usr/bin/python3) is refused in one line naming both
#     versions, exit 1; --parts sweep on the CPU is a usage error (exit 2).
#
#   tests/bench/gpu_bundle_test.sh PETNAME WHEEL_DIR CUDA_LIBS CSV
# Last line: `N passed, N failed`.
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
bin=${1:?usage: gpu_bundle_test.sh PETNAME WHEEL_DIR CUDA_LIBS CSV}
wheel=${2:?} cuda_libs=${3:?} csv=${4:?}
source "$ROOT/tests/lib/checks.sh"
checks_workdir petname-gpu-bundle-test
checks_plan 9
max_bytes=40000000

# For build-torch2/bin/petname, docs/contributing/gpu.md's command as written, in the repository (its default
# binary, data and output folder); for another binary, bundle.sh with the test's arguments.
make=(bash bench/gpu/bundle.sh --petname "$bin" --out "$TMP/made" --data "$csv" --torch-wheel "$wheel"
  --cuda-libs "$cuda_libs")
what="bench/gpu/bundle.sh --petname $bin"
if [[ $(realpath "$bin") == "$ROOT/build-torch2/bin/petname" ]]; then
  documented=$(python3 - "$ROOT/docs/contributing/gpu.md" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
print(re.search(r"```sh\n(.*?)```", text[text.index("## The GPU bundle"):], re.S).group(1), end="")
PY
  )
  make=(bash -euo pipefail -c "$documented")
  what="docs/contributing/gpu.md's command for the bundle: ${documented//$'\n'/; }"
fi
if (cd "$ROOT" && "${make[@]}") >"$TMP/make.out" 2>"$TMP/make.err"; then
  ok "$what"
else
  cat "$TMP/make.err" >&2
  not_ok "$what"
  exit 1
fi
cat "$TMP/make.err"
tarball=$(tail -n 1 "$TMP/make.out")
folder=$(dirname "$tarball")/petname-gpu
small() {
  local size tar_size
  size=$(du -sb "$folder" | cut -f1) tar_size=$(stat -c %s "$tarball")
  echo "bundle: folder $size bytes, tarball $tar_size bytes"
  ((size < max_bytes && tar_size < max_bytes))
}
check "the bundle and its tarball are under $max_bytes bytes" small
only_its_own() {
  ls "$folder/lib" && ! ls "$folder/lib" |
    grep -E '^lib(torch|c10|cuda|cudnn|cublas|nccl|nvrtc|gomp|c|m|dl|pthread|rt|stdc\+\+|gcc_s)[._-]'
}
check "lib/ carries no LibTorch, CUDA, NCCL or C/C++ runtime library" only_its_own
built_for() { cat "$folder/BUNDLE" && grep -qx 'torch 2\.11\.[0-9]*' "$folder/BUNDLE" && grep -qx 'cuda 13' "$folder/BUNDLE"; }
check "BUNDLE names torch 2.11 and CUDA 13" built_for
no_rpath() { readelf -d "$folder/bin/petname" | grep -E '\((RPATH|RUNPATH)\)' && ! readelf -d "$folder/bin/petname" | grep -qE '\((RPATH|RUNPATH)\).*\[[^]]'; }
check "the bundle's petname has no search path of the build machine" no_rpath

mkdir "$TMP/gpu"
tar -C "$TMP/gpu" -xzf "$tarball"
run=("$TMP/gpu/petname-gpu/run.sh" --device cpu --libtorch "$wheel/torch" --cuda-libs "$cuda_libs")
on_cpu() {
  "${run[@]}" --max-names 300 --out "$TMP/out" >"$TMP/run.out" 2>&1
  local rc=$?
  cat "$TMP/run.out"
  ((rc == 0)) && grep -q '^check.sh: every check passed on cpu$' "$TMP/run.out" &&
    grep -qx "run.sh: every log is under $TMP/out" "$TMP/run.out" &&
    [[ -s $TMP/out/environment.txt && -s $TMP/out/check.txt && -s $TMP/out/check/resumed.json ]]
}
check "the unpacked bundle's run.sh --device cpu passes check.sh, every log under --out" on_cpu

refused() {  # refused RC PATTERN OUT: the last run exited RC with one stderr line matching PATTERN
  local rc=$1 pattern=$2 out=$3
  cat "$TMP/refused.err"
  [[ $(wc -l <"$TMP/refused.err") == 1 ]] && grep -qE "$pattern" "$TMP/refused.err" &&
    ((got == rc)) && [[ ! -e $out ]]
}
cp -a "$TMP/gpu/petname-gpu" "$TMP/incomplete"
rm "$TMP/incomplete/lib/libyaml-cpp.so.0.7"
missing_library() {
  "$TMP/incomplete/run.sh" "${run[@]:1}" --out "$TMP/out-incomplete" >/dev/null 2>"$TMP/refused.err"
  got=$?
  refused 1 '^run\.sh: error: bin/petname: libyaml-cpp\.so\.0\.7 (not found|only at /)' "$TMP/out-incomplete"
}
check "a bundle without libyaml-cpp is refused in one line before anything runs" missing_library
other_torch() {
  /usr/bin/python3 -c 'import torch' || { echo "/usr/bin/python3 has no torch (scripts/setup: python3-torch)" && return 1; }
  PATH=/usr/bin:$PATH "$TMP/gpu/petname-gpu/run.sh" --device cpu --out "$TMP/out-other" >/dev/null 2>"$TMP/refused.err"
  got=$?
  refused 1 '^run\.sh: error: the torch at .* is torch 1\.13.*built against torch 2\.11 with CUDA 13$' "$TMP/out-other"
}
check "Debian's torch 1.13 is refused in one line naming both versions" other_torch
usage() {
  "${run[@]}" --parts sweep --out "$TMP/out-usage" >/dev/null 2>"$TMP/refused.err"
  got=$?
  refused 2 '^run\.sh: error: --parts sweep runs on CUDA only$' "$TMP/out-usage"
}
check "--parts sweep on the CPU is a usage error" usage
checks_done
