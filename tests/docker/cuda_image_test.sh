#!/usr/bin/env bash
# Builds the CUDA trainer image with docker/build.sh --binaries (Dockerfile.trainer-cuda's
# runtime stage, the CUDA and LibTorch libraries of scripts/cuda-libs, and the CUDA petname of
# build-torch2/ (scripts/build-torch2); cached by content), for build-torch2/ by running the
# commands of docker/README.md ("The CUDA image") as written, and checks it without a GPU, with
# podman:
#   - every shared object of /usr/local/bin/petname and of every library under /opt/petname
#     resolves; libcuda.so.1 (the NVIDIA driver, mounted from the node) is the one exception;
#   - `petname --version` names the CUDA, cuDNN and NCCL versions;
#   - `petname train --device cuda` without a GPU exits 1 with one `petname: error: ...` line;
#   - no headers, static libraries, compiler, pip or Python in the image; user 65532;
#   - the image is below MAX_BYTES (its size is printed);
#   - docker/export-rootfs.sh's tarball, unpacked, runs `petname --version` through its own
#     dynamic loader (what docs/contributing/gpu.md does on a GPU machine without a container engine).
#
#   tests/docker/cuda_image_test.sh CUDA_BIN_DIR CSV   (CUDA_BIN_DIR holds a CUDA-enabled petname)
#
# Exit 0 when every check passes, 1 when one fails, 77 (ctest's SKIP_RETURN_CODE) when this
# machine cannot create container namespaces, or when CUDA_BIN_DIR has no petname and
# PETNAME_CUDA_IMAGE_REQUIRED is not 1 (scripts/test sets it: there the binary always exists).
# Last line: `N passed, N failed`.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BIN_DIR=${1:?usage: cuda_image_test.sh CUDA_BIN_DIR CSV}
CSV=${2:?usage: cuda_image_test.sh CUDA_BIN_DIR CSV}
CACHE=${PETNAME_CACHE:-$HOME/.cache/petname}/images
# The ceiling of the image size: 3,746,073,930 bytes measured on 2026-11-25 (docs/performance.md),
# about 3.3 GB of it the CUDA and LibTorch libraries. A copy of the headers, the static libraries
# or a second LibTorch would cross it.
MAX_BYTES=4000000000
# shellcheck source=../../docker/containers-env.sh
source "$ROOT/docker/containers-env.sh"

if [[ ! -x $BIN_DIR/petname ]]; then
  if [[ ${PETNAME_CUDA_IMAGE_REQUIRED:-} == 1 ]]; then
    echo "cuda_image_test: no $BIN_DIR/petname (scripts/build-torch2 builds build-torch2/)" >&2
    exit 1
  fi
  echo "SKIP: no CUDA petname in $BIN_DIR (scripts/build-torch2 builds build-torch2/)" >&2
  exit 77
fi
userns=()
(($(id -u) == 0)) || userns=(--user --map-root-user)
if ! err=$(unshare "${userns[@]}" --mount --pid --net --fork true 2>&1); then
  echo "SKIP: this machine cannot create container namespaces (unshare: ${err##*$'\n'})" >&2
  exit 77
fi

TMP=$(mktemp -d "${TMPDIR:-/tmp}/petname-cuda-image-test.XXXXXX")
CHECKS_LOG=$TMP/checks.log
source "$ROOT/tests/lib/checks.sh"
finish() {
  local rc=$?
  if ((rc == 0 && FAILED == 0)); then rm -rf "$TMP"; else echo "logs kept in $TMP" >&2; fi
  checks_finish "$rc" && exit 0
  exit 1
}
checks_plan 8
trap finish EXIT
trap 'exit 130' INT TERM

# For build-torch2/bin, the commands docker/README.md gives ("The CUDA image"), verbatim, in the
# repository (both are no-ops where scripts/test has just built build-torch2/ and the image is
# cached); for another folder, docker/build.sh on it. The image is the last line they print.
build=("$ROOT/docker/build.sh" --binaries "$BIN_DIR" trainer-cuda)
what="docker/build.sh --binaries $BIN_DIR trainer-cuda"
if [[ $(realpath "$BIN_DIR") == "$(realpath "$ROOT")/build-torch2/bin" ]]; then
  documented=$(python3 - "$ROOT/docker/README.md" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
print(re.search(r"```sh\n(.*?)```", text[text.index("## The CUDA image"):], re.S).group(1), end="")
PY
  )
  build=(bash -euo pipefail -c "$documented")
  what="docker/README.md's commands for the CUDA image: ${documented//$'\n'/; }"
fi
if ! (cd "$ROOT" && "${build[@]}") >"$TMP/build.out" 2>"$TMP/build.err"; then
  tail -n 40 "$TMP/build.out" "$TMP/build.err" >&2
  not_ok "$what"
  exit 1
fi
tail -n 5 "$TMP/build.err"
ok "$what"
IMAGE=$(tail -n 1 "$TMP/build.out")

in_image() { # SCRIPT: run by /bin/sh in the image, as its user, without a network
  podman run --rm --network none --entrypoint /bin/sh "$IMAGE" -c "$1"
}
all_resolve() {
  in_image 'for f in /usr/local/bin/petname $(find /opt/petname -name "*.so*" -type f); do
      ldd "$f" | grep "not found" | grep -v "^[[:space:]]*libcuda\.so\.1 " | sed "s|^|$f: |"
    done' >"$TMP/unresolved" &&
    cat "$TMP/unresolved" && [[ ! -s $TMP/unresolved ]]
}
check "every library of petname and under /opt/petname resolves (but the driver's libcuda.so.1)" \
  all_resolve
versions() {
  podman run --rm --network none "$IMAGE" --version >"$TMP/version" && cat "$TMP/version" &&
    grep -Eq '^[0-9.]+ \(CUDA 13\.0, cuDNN 9\.[0-9]+\.[0-9]+, NCCL 2\.[0-9]+\.[0-9]+\)$' "$TMP/version"
}
check "petname --version names CUDA 13.0, cuDNN and NCCL" versions
no_gpu() {
  mkdir -p "$TMP/data"
  head -n 201 "$CSV" >"$TMP/data/subset.csv"
  local rc=0
  podman run --rm --network none -v "$TMP/data:/data:ro" "$IMAGE" train --device cuda \
    --data /data/subset.csv --epochs 1 >/dev/null 2>"$TMP/no-gpu.err" || rc=$?
  cat "$TMP/no-gpu.err"
  ((rc == 1)) && [[ $(grep -c '^petname: error: ' "$TMP/no-gpu.err") == 1 ]] &&
    [[ $(tail -n 1 "$TMP/no-gpu.err") == "petname: error: --device cuda: no CUDA GPU is visible"* ]]
}
check "train --device cuda without a GPU: exit 1, one petname: error: line" no_gpu
lean() {
  in_image '! find / -xdev \( -name "*.h" -o -name "*.a" -o -name "*.hpp" \) -print | grep -q . &&
    for t in g++ c++ cc cmake pip pip3 python3 python; do ! command -v $t || exit 1; done'
}
check "no headers, static libraries, compiler, pip or Python in the image" lean
non_root() { [[ $(podman image inspect --format '{{.Config.User}}' "$IMAGE") == 65532:65532 ]]; }
check "the image runs as 65532" non_root
size=$(podman image inspect --format '{{.Size}}' "$IMAGE")
echo "image size: $IMAGE $size bytes (ceiling $MAX_BYTES)"
under_ceiling() { ((size < MAX_BYTES)); }
check "image size $size bytes below the ceiling $MAX_BYTES" under_ceiling

exported() {
  "$ROOT/docker/export-rootfs.sh" "$IMAGE" "$TMP/rootfs.tar" && mkdir "$TMP/rootfs" &&
    tar -C "$TMP/rootfs" -xf "$TMP/rootfs.tar" && rm "$TMP/rootfs.tar" &&
    local r=$TMP/rootfs path &&
    path="$(sed "s|^|$r|" "$r/etc/ld.so.conf.d/petname-cuda.conf" | paste -sd:):$r/usr/lib/x86_64-linux-gnu:$r/lib/x86_64-linux-gnu" &&
    "$r/lib64/ld-linux-x86-64.so.2" --list --library-path "$path" "$r/usr/local/bin/petname" \
      >"$TMP/exported-ldd" &&
    # Every library from the unpacked tree (the binary's host RPATH is cleared by docker/build.sh).
    ! grep -v -e "=> $r/" -e linux-vdso -e "^[[:space:]]*$r/" "$TMP/exported-ldd" &&
    "$r/lib64/ld-linux-x86-64.so.2" --library-path "$path" "$r/usr/local/bin/petname" --version \
      >"$TMP/exported-version" &&
    cmp "$TMP/version" "$TMP/exported-version"
}
check "the exported rootfs runs petname --version through its own dynamic loader" exported
rm -rf "$TMP/rootfs"
checks_done
