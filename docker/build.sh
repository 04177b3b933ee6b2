#!/usr/bin/env bash
# Builds the petname container images without a Docker engine or a registry:
#   1. base:  debootstrap --variant=minbase bookworm from this machine's Debian mirror, imported
#             with podman as localhost/petname-base:bookworm (once; ~30 s, ~120 MB).
#   2. images: buildah bud --isolation chroot of docker/Dockerfile.<name> on that base, tagged
#             localhost/petname-<name>:<content hash> and :dev. An image whose content hash
#             already exists is not rebuilt.
#
#   docker/build.sh [--binaries DIR] [operator|trainer|trainer-cuda|base]...
#                                                          (default: operator trainer)
#
# Without --binaries the Dockerfile builds everything, compiling inside the build stage (content
# hash: base image id + Dockerfile + every tracked source file the build copies).
# With --binaries DIR (holding petname and/or petname-operator compiled on a Debian 12 host, as the
# test suite's build does) only the Dockerfile's `runtime` stage is built (cached as
# localhost/petname-<name>-runtime:<hash of base id + Dockerfile>) and the stripped host binary is
# copied in, which is what the Dockerfile's last stage does (content hash: runtime image id +
# sha256 of the binary). Downloaded .deb files are kept in a shared apt cache between builds.
#
# Env: PETNAME_CACHE (default ~/.cache/petname; images/ below it holds the containers.conf, the apt
#      cache and build logs), PETNAME_MIRROR (default: the first Debian URI in
#      /etc/apt/sources.list*). Prints each image's name:hash tag on stdout, in argument order.
# trainer-cuda (Dockerfile.trainer-cuda) is built with --binaries only (a CUDA petname, e.g.
# build-torch2/bin of scripts/build-torch2): its runtime stage's context is the folder of CUDA and LibTorch
# libraries scripts/cuda-libs downloads once from PyPI (about 3 GB), and its runtime hash also
# covers that folder's manifest (.complete).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CACHE=${PETNAME_CACHE:-$HOME/.cache/petname}/images
BASE=localhost/petname-base:bookworm
# shellcheck source=containers-env.sh
source "$ROOT/docker/containers-env.sh"

log() { echo "docker/build.sh: $*" >&2; }
die() {
  log "$*"
  exit 1
}

mirror() {
  if [[ -n ${PETNAME_MIRROR:-} ]]; then
    echo "$PETNAME_MIRROR"
    return
  fi
  local uri
  uri=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources \
    2>/dev/null | grep -oE '(deb|URIs:)[[:space:]]+https?://[^[:space:]]+/debian/?([[:space:]]|$)' |
    awk '{print $2}' | head -n 1)
  [[ -n $uri ]] || die "no Debian mirror in /etc/apt/sources.list*; set PETNAME_MIRROR"
  echo "$uri"
}

lock() { # NAME: held until the (sub)shell exits, so parallel runs build each image once
  local fd
  exec {fd}>"$CACHE/.lock-$1"
  flock "$fd"
}

build_base() ( # a subshell: the lock is released when the base exists
  lock base
  if podman image exists "$BASE"; then return; fi
  local rootfs=$CACHE/rootfs-bookworm
  rm -rf "$rootfs"
  local t0=$SECONDS
  log "debootstrap --variant=minbase bookworm from $(mirror)"
  debootstrap --variant=minbase bookworm "$rootfs" "$(mirror)" >"$CACHE/debootstrap.log" 2>&1 ||
    die "debootstrap failed (see $CACHE/debootstrap.log)"
  # Keep images small and apt quiet inside builds.
  rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/*
  tar -C "$rootfs" -c . | podman import -q --change 'CMD ["/bin/bash"]' - "$BASE" >/dev/null ||
    { rm -rf "$rootfs" && die "podman import of the debootstrap rootfs failed"; }
  rm -rf "$rootfs"
  log "imported $BASE ($((SECONDS - t0)) s)"
)

sources() { # DOCKERFILE: the tracked files its COPY lines take from the build context
  local copied
  mapfile -t copied < <(awk '$1 == "COPY" && $2 !~ /^--/ { for (i = 2; i < NF; i++) print $i }' "$1")
  git -C "$ROOT" ls-files -- "${copied[@]}"
}

content_hash() { sha256sum | cut -c1-16; }

bud() { # LOG ARGS...: one buildah bud on the base, sharing the apt cache between builds
  local log=$1
  shift
  mkdir -p "$CACHE/apt-archives/partial"
  buildah bud --isolation chroot --layers=false --build-arg "BASE=$BASE" \
    --volume "$CACHE/apt-archives:/var/cache/apt/archives" "$@" >"$log" 2>&1
}

from_source() { # NAME: the whole Dockerfile, compiling in its build stage
  local name=$1 dockerfile=$ROOT/docker/Dockerfile.$1 tag
  tag=localhost/petname-$name:$({
    podman image inspect --format '{{.Id}}' "$BASE"
    cat "$dockerfile"
    cd "$ROOT" && sources "$dockerfile" | xargs sha256sum
  } | content_hash)
  if ! podman image exists "$tag"; then
    log "building $tag from source (log: $CACHE/build-$name.log)"
    local t0=$SECONDS
    bud "$CACHE/build-$name.log" -f "$dockerfile" -t "$tag" "$ROOT" ||
      die "build of $name failed (see $CACHE/build-$name.log)"
    log "built $tag ($((SECONDS - t0)) s)"
  fi
  echo "$tag"
}

from_binary() { # NAME BINARY: the Dockerfile's runtime stage plus the host binary
  local name=$1 binary=$2 dockerfile=$ROOT/docker/Dockerfile.$1 runtime tag ctr context=$ROOT/docker
  if [[ $name == trainer-cuda ]]; then
    context=$(bash "$ROOT/scripts/cuda-libs") || die "scripts/cuda-libs failed"
  fi
  runtime=localhost/petname-$name-runtime:$({
    podman image inspect --format '{{.Id}}' "$BASE"
    cat "$dockerfile"
    [[ $context == "$ROOT/docker" ]] || cat "$context/.complete"
  } | content_hash)
  if ! podman image exists "$runtime"; then
    log "building $runtime (log: $CACHE/build-$name-runtime.log)"
    local t0=$SECONDS
    bud "$CACHE/build-$name-runtime.log" --target runtime -f "$dockerfile" -t "$runtime" \
      "$context" || die "build of the $name runtime failed (see $CACHE/build-$name-runtime.log)"
    log "built $runtime ($((SECONDS - t0)) s)"
  fi
  tag=localhost/petname-$name:$({
    podman image inspect --format '{{.Id}}' "$runtime"
    sha256sum <"$binary"
    echo "stripped, RPATH cleared"
  } | content_hash)
  if ! podman image exists "$tag"; then
    log "building $tag from $runtime + $binary"
    local stripped t0=$SECONDS
    stripped=$(mktemp -d)
    strip -o "$stripped/$(basename "$binary")" "$binary" || die "strip $binary failed"
    bash "$ROOT/scripts/clear-rpath" "$stripped/$(basename "$binary")" || die "clearing the RPATH of $binary failed"
    ctr=$(buildah from --pull=never "$runtime")
    if ! buildah copy --chown 0:0 --chmod 0755 "$ctr" "$stripped/$(basename "$binary")" \
      "/usr/local/bin/$(basename "$binary")" >/dev/null ||
      ! buildah commit -q --rm "$ctr" "$tag" >/dev/null; then
      buildah rm "$ctr" >/dev/null 2>&1 || true
      rm -rf "$stripped"
      die "assembling $tag failed"
    fi
    rm -rf "$stripped"
    log "built $tag ($((SECONDS - t0)) s)"
  fi
  echo "$tag"
}

build_image() { # NAME
  local name=$1 binary=petname
  [[ -f $ROOT/docker/Dockerfile.$name ]] || die "no $ROOT/docker/Dockerfile.$name"
  [[ $name == operator ]] && binary=petname-operator
  local tag
  tag=$(
    lock build # one build at a time: the apt cache is shared
    if [[ $name == trainer-cuda && -z $BINARIES ]]; then
      die "trainer-cuda is built from a CUDA petname only: --binaries DIR (e.g. build-torch2/bin of scripts/build-torch2)"
    fi
    if [[ -n $BINARIES ]]; then
      [[ -x $BINARIES/$binary ]] || die "no executable $BINARIES/$binary"
      from_binary "$name" "$BINARIES/$binary"
    else
      from_source "$name"
    fi
  )
  podman tag "$tag" "localhost/petname-$name:dev"
  echo "$tag"
}

BINARIES=
if [[ ${1:-} == --binaries ]]; then
  [[ -n ${2:-} ]] || die "--binaries needs a directory"
  BINARIES=$(cd "$2" && pwd) || die "no directory $2"
  shift 2
fi
targets=("$@")
((${#targets[@]})) || targets=(operator trainer)
for cmd in podman buildah debootstrap; do
  command -v "$cmd" >/dev/null || die "$cmd missing: run scripts/setup"
done
if ! err=$(podman info 2>&1 >/dev/null); then
  die "podman does not work (CONTAINERS_CONF=$CONTAINERS_CONF): ${err##*$'\n'}"
fi
build_base
for t in "${targets[@]}"; do
  case $t in
    base) echo "$BASE" ;;
    operator | trainer | trainer-cuda) build_image "$t" ;;
    *) die "unknown image $t (operator, trainer, trainer-cuda, base)" ;;
  esac
done
