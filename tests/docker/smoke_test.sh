#!/usr/bin/env bash
# Builds the CPU images with docker/build.sh (cached by content) and smoke-tests them with podman:
#   - the operator image prints --help (as its non-root user);
#   - two trainer containers on a podman bridge network run a 2-rank Gloo job on a small subset
#     of the data, rank 1 reaching rank 0 by container name (MASTER_ADDR), and rank 0's
#     checkpoint appears in a host directory mounted into the container.
#
#   tests/docker/smoke_test.sh CSV
#
# Last line: `N passed, N failed`. Removes its containers, network and temp dir on exit.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
CSV=${1:?usage: smoke_test.sh CSV}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/petname-image-test.XXXXXX")
ID=$(basename "$TMP" | tr 'A-Z.' 'a-z-')
NET=$ID-net
RANK0=$ID-rank-0
RANK1=$ID-rank-1
CHECKS_LOG=$TMP/checks.log
source "$ROOT/tests/lib/checks.sh"
: "${PETNAME_CACHE:=$HOME/.cache/petname}"
export CONTAINERS_CONF=${CONTAINERS_CONF:-$PETNAME_CACHE/images/containers.conf}

finish() {
  podman rm -f -t 0 "$RANK0" "$RANK1" >/dev/null 2>&1 || true
  podman network rm -f "$NET" >/dev/null 2>&1 || true
  if ((FAILED == 0)); then rm -rf "$TMP"; else echo "logs kept in $TMP" >&2; fi
  checks_summary && exit 0
  exit 1
}
trap finish EXIT
trap 'exit 130' INT TERM

if ! "$ROOT/docker/build.sh" operator trainer >"$TMP/images" 2>"$TMP/build.err"; then
  cat "$TMP/build.err" >&2
  not_ok "docker/build.sh operator trainer"
  exit 1
fi
ok "docker/build.sh operator trainer"
OPERATOR=$(sed -n 1p "$TMP/images")
TRAINER=$(sed -n 2p "$TMP/images")

help_ok() { podman run --rm "$OPERATOR" --help | grep -q -- --kubeconfig; }
check "operator image prints --help" help_ok
non_root() { [[ $(podman image inspect --format '{{.Config.User}}' "$1") == 65532:65532 ]]; }
check "operator image runs as 65532" non_root "$OPERATOR"
check "trainer image runs as 65532" non_root "$TRAINER"
no_compiler() { ! podman run --rm --entrypoint /bin/sh "$OPERATOR" -c 'command -v g++ cmake'; }
check "operator runtime has no build tools" no_compiler

# A small subset: the header and 3000 rows, mounted read-only.
mkdir -p "$TMP/data" "$TMP/checkpoints"
head -n 3001 "$CSV" >"$TMP/data/subset.csv"
chmod 0777 "$TMP/checkpoints"
podman network create "$NET" >/dev/null
rank() { # RANK NAME
  podman run -d --name "$2" --network "$NET" \
    -e MASTER_ADDR="$RANK0" -e MASTER_PORT=29500 -e WORLD_SIZE=2 -e RANK="$1" \
    -e OMP_NUM_THREADS=1 \
    -v "$TMP/data:/data:ro" -v "$TMP/checkpoints:/checkpoints" \
    "$TRAINER" train --data /data/subset.csv --epochs 1 --batch-size 256 --threads 1 \
    --checkpoint-dir /checkpoints >/dev/null
}
check "rank 0 container started" rank 0 "$RANK0"
check "rank 1 container started" rank 1 "$RANK1"
exited_zero() { [[ $(podman wait "$1") == 0 ]]; }
check "rank 0 finished with exit 0" exited_zero "$RANK0"
check "rank 1 finished with exit 0" exited_zero "$RANK1"
podman logs "$RANK0" >"$TMP/rank-0.log" 2>&1 || true
podman logs "$RANK1" >"$TMP/rank-1.log" 2>&1 || true
has_checkpoint() { [[ -s $TMP/checkpoints/latest ]] && [[ -f $TMP/checkpoints/$(cat "$TMP/checkpoints/latest")/manifest.json ]]; }
check "checkpoint on the mounted host directory" has_checkpoint
two_ranks() { grep -Eq '"world_size": *2' "$TMP/checkpoints/$(cat "$TMP/checkpoints/latest")/manifest.json"; }
check "checkpoint written by a 2-rank job (manifest world_size 2)" two_ranks
