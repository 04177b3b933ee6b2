#!/usr/bin/env bash
# Builds the CPU images with docker/build.sh --binaries (the Dockerfiles' runtime stages plus the
# binaries this build compiled; cached by content) and smoke-tests them with podman:
#   - the operator image prints --help on a read-only root filesystem, as its non-root user;
#   - both images find every library their binary links, and the trainer uses OpenBLAS;
#   - two trainer containers on a podman bridge network run a 2-rank Gloo job on a small subset
#     of the data, rank 1 reaching rank 0 by container name (MASTER_ADDR), and rank 0's
#     checkpoint appears in a host directory mounted into the container.
#
#   tests/docker/smoke_test.sh BIN_DIR CSV      (BIN_DIR holds petname and petname-operator)
#
# Exit 0 when every check passes, 1 when one fails (one `smoke_test: ...` line on stderr when
# podman cannot run containers at all), 77 (ctest's SKIP_RETURN_CODE) only when this machine
# cannot create the namespaces any container needs. Last line: `N passed, N failed`.
# Removes its containers, network and temp dir on exit (keeps the logs when a check failed).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BIN_DIR=${1:?usage: smoke_test.sh BIN_DIR CSV}
CSV=${2:?usage: smoke_test.sh BIN_DIR CSV}
CACHE=${PETNAME_CACHE:-$HOME/.cache/petname}/images
# shellcheck source=../../docker/containers-env.sh
source "$ROOT/docker/containers-env.sh"

FAILED=0
fail() { # MESSAGE: one line on stderr, exit 1
  echo "smoke_test: $*" >&2
  FAILED=$((FAILED + 1))
  exit 1
}
for cmd in podman buildah debootstrap; do
  command -v "$cmd" >/dev/null || fail "$cmd missing: run scripts/setup"
done
# A machine that cannot make mount, PID and network namespaces cannot run any container: skip.
userns=()
(($(id -u) == 0)) || userns=(--user --map-root-user)
if ! err=$(unshare "${userns[@]}" --mount --pid --net --fork true 2>&1); then
  echo "SKIP: this machine cannot create container namespaces (unshare: ${err##*$'\n'})" >&2
  exit 77
fi

TMP=$(mktemp -d "${TMPDIR:-/tmp}/petname-image-test.XXXXXX")
ID=$(basename "$TMP" | tr 'A-Z.' 'a-z-')
NET=$ID-net
RANK0=$ID-rank-0
RANK1=$ID-rank-1
CHECKS_LOG=$TMP/checks.log
source "$ROOT/tests/lib/checks.sh"

finish() {
  local rc=$?
  podman rm -f -t 0 "$RANK0" "$RANK1" >/dev/null 2>&1 || true
  podman network rm -f "$NET" >/dev/null 2>&1 || true
  if ((rc == 0 && FAILED == 0)); then rm -rf "$TMP"; else echo "logs kept in $TMP" >&2; fi
  checks_finish "$rc" && exit 0
  exit 1
}
trap finish EXIT
trap 'exit 130' INT TERM

last_line() { tail -n 1 "$1" | cut -c1-300; }
BASE=$("$ROOT/docker/build.sh" base 2>"$TMP/base.err") ||
  fail "docker/build.sh base failed: $(last_line "$TMP/base.err")"
podman run --rm --network none "$BASE" true 2>"$TMP/probe.err" ||
  fail "podman cannot run a container: $(last_line "$TMP/probe.err")"

checks_plan 12
if ! "$ROOT/docker/build.sh" --binaries "$BIN_DIR" operator trainer >"$TMP/images" 2>"$TMP/build.err"; then
  cat "$TMP/build.err" >&2
  not_ok "setup: docker/build.sh --binaries $BIN_DIR operator trainer"
  exit 1
fi
cat "$TMP/build.err"
OPERATOR=$(sed -n 1p "$TMP/images")
TRAINER=$(sed -n 2p "$TMP/images")

help_ok() { podman run --rm --read-only "$OPERATOR" --help | grep -q -- --kubeconfig; }
check "operator image prints --help (read-only root filesystem)" help_ok
non_root() { [[ $(podman image inspect --format '{{.Config.User}}' "$1") == 65532:65532 ]]; }
check "operator image runs as 65532" non_root "$OPERATOR"
check "trainer image runs as 65532" non_root "$TRAINER"
in_image() { # IMAGE SCRIPT
  podman run --rm --network none --entrypoint /bin/sh "$1" -c "$2"
}
all_libraries() { # IMAGE BINARY
  in_image "$1" "ldd /usr/local/bin/$2 >/tmp/ldd && ! grep 'not found' /tmp/ldd"
}
check "operator image has every library petname-operator links" all_libraries "$OPERATOR" petname-operator
check "trainer image has every library petname links" all_libraries "$TRAINER" petname
openblas() {
  in_image "$TRAINER" 'readlink -f /usr/lib/x86_64-linux-gnu/libblas.so.3' | grep -q openblas-openmp
}
check "trainer image uses OpenMP OpenBLAS" openblas
no_build_tools() {
  in_image "$1" 'for t in g++ c++ cmake; do ! command -v $t || exit 1; done; ! ls -d /usr/include/torch'
}
check "operator runtime has no build tools" no_build_tools "$OPERATOR"
check "trainer runtime has no build tools or LibTorch headers" no_build_tools "$TRAINER"

# A small subset: the header and 2000 rows, mounted read-only.
mkdir -p "$TMP/data" "$TMP/checkpoints"
head -n 2001 "$CSV" >"$TMP/data/subset.csv"
# The volume, writable by the containers' user; the job's directory below it is the trainer's
# own (as the operator runs it: /checkpoints/<job>), since it refuses one another user owns.
chmod 0777 "$TMP/checkpoints"
JOB_DIR=$TMP/checkpoints/smoke
setup "podman network $NET" podman network create "$NET"
rank() { # RANK NAME
  podman run -d --read-only --name "$2" --network "$NET" \
    -e MASTER_ADDR="$RANK0" -e MASTER_PORT=29500 -e WORLD_SIZE=2 -e RANK="$1" \
    -e OMP_NUM_THREADS=1 \
    -v "$TMP/data:/data:ro" -v "$TMP/checkpoints:/checkpoints" \
    "$TRAINER" train --data /data/subset.csv --epochs 1 --batch-size 256 --threads 1 \
    --checkpoint-dir /checkpoints/smoke >/dev/null
}
setup "rank 0 container started" rank 0 "$RANK0"
setup "rank 1 container started" rank 1 "$RANK1"
exited_zero() { [[ $(podman wait "$1") == 0 ]]; }
check "rank 0 finished with exit 0" exited_zero "$RANK0"
check "rank 1 finished with exit 0" exited_zero "$RANK1"
podman logs "$RANK0" >"$TMP/rank-0.log" 2>&1 || true
podman logs "$RANK1" >"$TMP/rank-1.log" 2>&1 || true
has_checkpoint() { [[ -s $JOB_DIR/latest ]] && [[ -f $JOB_DIR/$(cat "$JOB_DIR/latest")/manifest.json ]]; }
check "checkpoint on the mounted host directory" has_checkpoint
two_ranks() { grep -Eq '"world_size": *2' "$JOB_DIR/$(cat "$JOB_DIR/latest")/manifest.json"; }
check "checkpoint written by a 2-rank job (manifest world_size 2)" two_ranks
checks_done
