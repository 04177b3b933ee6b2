#!/usr/bin/env bash
# The GPU kit is complete, shown without a GPU (CI: tests/bench): bench/gpu/prepare.sh
# downloads it, and the GPU build's CMake configure (bench/gpu/build.sh, PETNAME_GPU_KIT_ONLY=1:
# nothing from this machine's /usr but the C library) passes against the kit's unpacked root
# and the torch 2.11 wheel of scripts/torch-wheel. Then the same configure without each of a few
# packages must fail, so that a package missing from the kit cannot go unnoticed. A few
# translation units, one with the precompiled <torch/torch.h>, compile against the full kit.
#
#   bash bench/gpu/kit_configure_test.sh [WHEEL_DIR]     default: ~/.cache/petname/torch-2.11.0
# Exits 77 (skipped) when the wheel folder is missing. Last line: `N passed, N failed`.
set -uo pipefail
cd "$(dirname "$0")/../.."
wheel=${1:-${PETNAME_CACHE:-$HOME/.cache/petname}/torch-2.11.0}
[[ -f $wheel/.complete ]] || { echo "kit_configure_test: no torch wheel at $wheel (scripts/torch-wheel); skipped" && exit 77; }
bash bench/gpu/prepare.sh --debs-only || { echo "kit_configure_test: prepare.sh failed" && exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/petname-kit-test.XXXXXX")
trap 'rm -rf "$work"' EXIT
pass=0 fail=0
# The compiles below go through ccache (bench/gpu/build.sh), with paths under the work folder
# rewritten relative to it, so that a second run compiles nothing.
export CCACHE_DIR=${CCACHE_DIR:-${PETNAME_CACHE:-$HOME/.cache/petname}/ccache} CCACHE_BASEDIR=$work \
  CCACHE_NOHASHDIR=1 CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime
configure() {  # configure NAME DEBS_DIR: bench/gpu/build.sh's configure, kit only
  PETNAME_GPU_DEBS=$2 PETNAME_DEB_ROOT=$work/root-$1 PETNAME_TORCH_WHEEL_DIR=$wheel \
    PETNAME_GPU_KIT_ONLY=1 PETNAME_CONFIGURE_ONLY=1 bash bench/gpu/build.sh "$work/build-$1" >"$work/$1.log" 2>&1
}
expect() {  # expect ok|fail NAME WHAT
  local want=$1 name=$2 got=fail
  grep -q 'Configuring done' "$work/build-$name.configure.log" 2>/dev/null && got=ok
  if [[ $got == "$want" ]]; then pass=$((pass + 1)) && echo "ok      $3"; else
    fail=$((fail + 1)) && echo "FAILED  $3"
    tail -n 15 "$work/build-$name.configure.log" 2>/dev/null || tail -n 15 "$work/$name.log"
  fi
}
configure full .gpu-kit/debs
expect ok full "the GPU build configures against the whole kit"
# Translation units that include the kit's headers (cpp-httplib with OpenSSL and brotli,
# yaml-cpp, curl, prometheus-cpp, and CLI11 with the precompiled <torch/torch.h>) compile, and take
# from this machine's /usr/include only the toolchain's headers: one found there instead of in
# the kit would be missing on the GPU machine.
objects=(common/http/CMakeFiles/petname_http.dir/server.cc.o
  trainer/sweep/CMakeFiles/petname_sweep_run.dir/sweep_file.cc.o
  trainer/fetch/CMakeFiles/petname_fetch.dir/fetch.cc.o
  trainer/metrics/CMakeFiles/petname_metrics.dir/training_metrics.cc.o
  trainer/CMakeFiles/petname_cli.dir/cli/cli.cc.o)
toolchain='^(libc6-dev|libcrypt-dev|linux-libc-dev|libgcc-[0-9]+-dev|libstdc\+\+-[0-9]+-dev) '
if ninja -C "$work/build-full" "${objects[@]}" >"$work/compile.log" 2>&1; then
  foreign=$(ninja -C "$work/build-full" -t deps "${objects[@]}" | sed -n 's|^ *\(/usr/.*\)$|\1|p' |
    sort -u | xargs -r dpkg -S 2>&1 | awk -F': ' '{split($1, p, ":"); print p[1] " " $2}' |
    grep -vE "$toolchain")
  if [[ -z $foreign ]]; then pass=$((pass + 1)) && echo "ok      kit headers compile, none taken from this machine's /usr"; else
    fail=$((fail + 1)) && echo "FAILED  headers from this machine instead of the kit:" && echo "$foreign"
  fi
else
  fail=$((fail + 1)) && echo "FAILED  compiling against the kit" && tail -n 20 "$work/compile.log"
fi
for package in libssl-dev libcpp-httplib-dev libyaml-cpp-dev prometheus-cpp-dev libcurl4-openssl-dev; do
  mkdir -p "$work/debs-$package"
  for deb in .gpu-kit/debs/*.deb; do
    [[ $(basename "$deb") == "${package}"_* ]] || ln -s "$PWD/$deb" "$work/debs-$package/"
  done
  configure "$package" "$work/debs-$package"
  expect fail "$package" "without $package the configure fails"
done
echo "$pass passed, $fail failed"
((fail == 0))
