#!/usr/bin/env bash
# The GPU kit is complete, shown without a GPU (CI: tests/bench, in build-torch2/'s ctest):
# bench/gpu/prepare.sh downloads it, and the GPU build (bench/gpu/build.sh, PETNAME_GPU_KIT_ONLY=1:
# nothing from this machine's /usr but the C library)
#   - configures against the kit's unpacked root and the torch 2.11 wheel of scripts/torch-wheel,
#     and fails to configure without each of a few packages;
#   - compiles a few translation units, one with the precompiled <torch/torch.h>, against the
#     kit, taking no header from this machine's /usr but the toolchain's;
#   - links petname with that configure's link line, on the objects BUILD_DIR compiled from the
#     same sources (scripts/build-torch2's build-torch2/), in a root (--sysroot) that holds the
#     kit and the toolchain's C and C++ runtime alone: every library the kit's libraries load
#     must be in the kit, as on a GPU machine whose /usr has none of them at Debian's versions.
#     No file from this machine's /usr but the toolchain's takes part; the linked petname finds
#     each library in the kit, the wheel or the CUDA libraries (runtime.py resolve) and prints
#     its version. The same link in the root without libldap-2.5-0 must fail.
#
#   bash bench/gpu/kit_test.sh [WHEEL_DIR [CUDA_LIBS [BUILD_DIR]]]
#     defaults: ~/.cache/petname/torch-2.11.0, ~/.cache/petname/cuda-libs-2.11.0, build-torch2
# Exits 77 (skipped) when the wheel or CUDA library folder is missing. Last line: `N passed, N
# failed`.
set -uo pipefail
cd "$(dirname "$0")/../.."
cache=${PETNAME_CACHE:-$HOME/.cache/petname}
wheel=${1:-$cache/torch-2.11.0} cuda_libs=${2:-$cache/cuda-libs-2.11.0} objects=$(realpath -m "${3:-build-torch2}")
for d in "$wheel" "$cuda_libs"; do
  [[ -f $d/.complete ]] || { echo "kit_test: no $d (scripts/torch-wheel, scripts/cuda-libs); skipped" && exit 77; }
done
bash bench/gpu/prepare.sh --debs-only || { echo "kit_test: prepare.sh failed" && exit 1; }
# The work folder is inside BUILD_DIR (in the repository, as scripts/build-torch2 makes it), so
# that ccache (below) sees the kit's paths and the sources' at the same place relative to it.
work=$(mktemp -d "$objects/kit-test.XXXXXX")
trap 'rm -rf "$work"' EXIT
pass=0 fail=0
passed() { pass=$((pass + 1)) && echo "ok      $1"; }
failed() { fail=$((fail + 1)) && echo "FAILED  $1"; }
# The compiles below go through ccache (bench/gpu/build.sh), with paths under the repository
# (the kit's, in the work folder, and the sources') rewritten relative to the compile's folder, so
# that a second run compiles nothing, in this clone or another.
export CCACHE_DIR=${CCACHE_DIR:-$cache/ccache} CCACHE_BASEDIR=$PWD \
  CCACHE_NOHASHDIR=1 CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime
configure() {  # configure NAME DEBS_DIR: bench/gpu/build.sh's configure, kit only
  PETNAME_GPU_DEBS=$2 PETNAME_DEB_ROOT=$work/root-$1 PETNAME_TORCH_WHEEL_DIR=$wheel \
    PETNAME_GPU_KIT_ONLY=1 PETNAME_CONFIGURE_ONLY=1 bash bench/gpu/build.sh "$work/build-$1" >"$work/$1.log" 2>&1
}
expect() {  # expect ok|fail NAME WHAT
  local want=$1 name=$2 got=fail
  grep -q 'Configuring done' "$work/build-$name.configure.log" 2>/dev/null && got=ok
  if [[ $got == "$want" ]]; then passed "$3"; else
    failed "$3"
    tail -n 15 "$work/build-$name.configure.log" 2>/dev/null || tail -n 15 "$work/$name.log"
  fi
}
# foreign: of the paths on stdin, those under this machine's /usr, /lib or /lib64 that no
# toolchain package owns (libc6, libc6-dev, libcrypt-dev, linux-libc-dev, libgcc, libstdc++, gcc
# itself), as "PACKAGE PATH" lines ("?" for a file of no package). A merged /usr gives a file two
# names, of which dpkg knows one.
toolchain='^(libc6|libc6-dev|libcrypt-dev|linux-libc-dev|libgcc-s1|libgcc-[0-9]+-dev|libstdc\+\+6|libstdc\+\+-[0-9]+-dev|gcc-[0-9]+|cpp-[0-9]+) '
foreign() {
  python3 -c '
import os, re, subprocess, sys
toolchain = re.compile(sys.argv[1])
paths = sorted({os.path.normpath(l.strip()) for l in sys.stdin if re.match(r"/(usr|lib|lib64)/", l)})
alt = {p: p[4:] if p.startswith("/usr/") else "/usr" + p for p in paths}
found = subprocess.run(["dpkg", "-S", *paths, *alt.values()], capture_output=True, text=True).stdout if paths else ""
owner = {}
for line in found.splitlines():
    packages, sep, path = line.rpartition(": ")
    if sep and not packages.startswith("diversion"):
        owner[path] = packages.split(",")[0].split(":")[0].strip()
for p in paths:
    o = owner.get(p) or owner.get(alt[p]) or "?"
    if not toolchain.match(o + " "):
        print(o, p)
' "$toolchain"
}

configure full .gpu-kit/debs
expect ok full "the GPU build configures against the whole kit"
# Translation units that include the kit's headers (cpp-httplib with OpenSSL and brotli,
# yaml-cpp, curl, prometheus-cpp, and CLI11 with the precompiled <torch/torch.h>) compile, and take
# from this machine's /usr/include only the toolchain's headers: one found there instead of in
# the kit would be missing on the GPU machine.
units=(common/http/CMakeFiles/petname_http.dir/server.cc.o
  trainer/sweep/CMakeFiles/petname_sweep_run.dir/sweep_file.cc.o
  trainer/fetch/CMakeFiles/petname_fetch.dir/fetch.cc.o
  trainer/metrics/CMakeFiles/petname_metrics.dir/training_metrics.cc.o
  trainer/CMakeFiles/petname_cli.dir/cli/cli.cc.o)
if ninja -C "$work/build-full" "${units[@]}" >"$work/compile.log" 2>&1; then
  headers=$(ninja -C "$work/build-full" -t deps "${units[@]}" | sed -n 's|^ *\(/.*\)$|\1|p' | foreign)
  if [[ -z $headers ]]; then passed "kit headers compile, none taken from this machine's /usr"; else
    failed "headers from this machine instead of the kit:" && echo "$headers"
  fi
else
  failed "compiling against the kit" && tail -n 20 "$work/compile.log"
fi

# The root of the link: the kit's unpacked packages, plus the toolchain's C and C++ runtime
# (the GPU machine's own), linked in from this machine.
root=$work/root-full
for package in libc6 libc6-dev libgcc-s1 libstdc++6; do
  dpkg -L "$package" | grep -E '^/(lib|lib64|usr/lib)/' | while read -r f; do
    [[ -f $f ]] && mkdir -p "$root${f%/*}" && ln -sfn "$f" "$root$f"
  done
done
# CMake's link line for petname against the kit (cwd: the build folder), given the objects of
# BUILD_DIR, the root, the wheel's and CUDA's folders for what LibTorch loads (which the GPU
# machine has), and the check of every shared library's undefined symbols that the CUDA wheel
# build otherwise turns off (cmake/torch.cmake: --allow-shlib-undefined).
cxx=$(sed -n 's/^CMAKE_CXX_COMPILER:[A-Z]*=//p' "$work/build-full/CMakeCache.txt")
template=$(ninja -C "$work/build-full" -t commands bin/petname | tail -n 1)
torch_dirs=$(find "$wheel/torch/lib" "$wheel/cuda/lib" "$cuda_libs/nvidia" -maxdepth 2 -type d \
  \( -path '*/nvidia/*/lib' -o -path "$wheel/*/lib" \) | paste -sd:)
relink() {  # relink ROOT OUTPUT: the link line in ROOT, its output and every file read in OUTPUT.log
  local cmd=${template% && :}
  [[ $cmd == *" -o bin/petname "* && $cmd == *"$cxx "* && $cmd != "$template" ]] ||
    { echo "unexpected link line: $template" >"$2.log" && return 1; }
  cmd=${cmd/"$cxx "/"$cxx --sysroot=$1 "}
  cmd=${cmd/" -o bin/petname "/" -o $2 "}
  # Last, so that they override the line's own --allow-shlib-undefined.
  cmd+=" -Wl,--no-allow-shlib-undefined -Wl,-rpath-link,$torch_dirs -Wl,--trace"
  (cd "$objects" && env -u LD_LIBRARY_PATH -u LD_RUN_PATH bash -c "$cmd") >"$2.log" 2>&1
}
link_errors() { grep -E 'not found|undefined reference|cannot find|error' "$1" | head -n 12; }
if [[ ! -f $objects/build.ninja ]]; then
  failed "linking petname: no build in $objects (scripts/build-torch2)"
elif ! relink "$root" "$work/petname"; then
  failed "linking petname in a root of the kit and the C/C++ runtime alone" && link_errors "$work/petname.log"
elif grep -q 'not found (try using -rpath' "$work/petname.log"; then
  failed "a library the kit's libraries load is not in the kit:" && grep 'not found (try using' "$work/petname.log"
else
  passed "petname links in a root of the kit and the C/C++ runtime alone"
  # --trace's lines: one input file each, an archive member as "(ARCHIVE)MEMBER".
  files=$(sed -nE 's/^\(?(\/[^ ():]+)\)?[^ ]*$/\1/p' "$work/petname.log" |
    grep -vE "^($root|$wheel|$cuda_libs|$objects)/" | foreign)
  if ! grep -qx "$root/usr/lib/x86_64-linux-gnu/libcurl.so" "$work/petname.log"; then
    failed "the link's trace does not name the kit's libcurl.so"
  elif [[ -z $files ]]; then passed "the link read nothing of this machine's /usr but the toolchain's"; else
    failed "the link read files of this machine instead of the kit's:" && echo "$files"
  fi
  nvidia=$(find "$cuda_libs/nvidia" -mindepth 2 -maxdepth 2 -name lib -type d | paste -sd:)
  line=$(LD_LIBRARY_PATH=$nvidia python3 bench/gpu/runtime.py resolve "$work/petname" "$root" "$wheel" "$cuda_libs")
  if (($? == 0)); then passed "$line"; else failed "$line"; fi
  if version=$(LD_LIBRARY_PATH=$nvidia "$work/petname" --version 2>&1); then
    passed "the linked petname runs: $version"
  else
    failed "the linked petname does not run: $version"
  fi
fi

# The link must fail without a library only the kit's libraries load (libcurl needs libldap).
rm -rf "$work/root-minus"
cp -a "$root" "$work/root-minus"
dpkg-deb -c .gpu-kit/debs/libldap-2.5-0_*.deb | awk '{print $6}' | sed 's|^\./||' | grep -v '/$' |
  (cd "$work/root-minus" && xargs rm -f)
if [[ ! -f $objects/build.ninja ]]; then
  failed "without libldap-2.5-0 the link fails: no build in $objects"
elif relink "$work/root-minus" "$work/petname-minus"; then
  failed "without libldap-2.5-0 the link still succeeds"
elif ! grep -q 'libldap-2.5.so.0, needed by .*, not found' "$work/petname-minus.log"; then
  failed "without libldap-2.5-0 the link fails, but not for libldap:" && link_errors "$work/petname-minus.log"
else
  passed "without libldap-2.5-0 the link fails: $(grep -m 1 -o 'libldap-2.5.so.0, needed by [^ ]*' "$work/petname-minus.log")"
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
