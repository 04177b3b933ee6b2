#!/usr/bin/env bash
# Writes an image's root filesystem as a tar file, so that the image itself can run on a machine
# without a container engine (a GPU machine: docs/contributing/gpu.md says how to run petname from the
# unpacked tree with the host's NVIDIA driver).
#
#   docker/export-rootfs.sh IMAGE OUTPUT.tar      (e.g. localhost/petname-trainer-cuda:dev)
#
# podman create + podman export of a container that is never started; the container is removed
# again. Exit 0 with OUTPUT written (atomically: OUTPUT.partial, then renamed), 1 with one
# `export-rootfs: ...` line on stderr, 2 on a usage error.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CACHE=${PETNAME_CACHE:-$HOME/.cache/petname}/images
# shellcheck source=containers-env.sh
source "$ROOT/docker/containers-env.sh"

if (($# != 2)); then
  echo "usage: docker/export-rootfs.sh IMAGE OUTPUT.tar" >&2
  exit 2
fi
image=$1 output=$2
die() {
  echo "export-rootfs: $*" >&2
  exit 1
}
podman image exists "$image" || die "no image $image (docker/build.sh builds it)"
ctr=$(podman create -q "$image" 2>&1) || die "podman create $image failed: ${ctr##*$'\n'}"
trap 'podman rm -f "$ctr" >/dev/null 2>&1 || true; rm -f "$output.partial"' EXIT
err=$(podman export -o "$output.partial" "$ctr" 2>&1) || die "podman export failed: ${err##*$'\n'}"
mv -f "$output.partial" "$output"
