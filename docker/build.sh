#!/usr/bin/env bash
# Builds the petname container images without a Docker engine or a registry:
#   1. base:  debootstrap --variant=minbase bookworm from this machine's Debian mirror, imported
#             with podman as localhost/petname-base:bookworm (once; ~30 s, ~200 MB).
#   2. images: buildah bud --isolation chroot of docker/Dockerfile.<name> on that base, tagged
#             localhost/petname-<name>:<content hash> and :dev. An image whose content hash
#             (Dockerfile + every tracked source file the build copies + base image id) already
#             exists is not rebuilt.
#
#   docker/build.sh [operator|trainer|base]...      (default: operator trainer)
#
# Env: PETNAME_CACHE (default ~/.cache/petname; images/ below it holds the containers.conf,
#      the debootstrap rootfs tarball and build logs), PETNAME_MIRROR (default: the first Debian
#      URI in /etc/apt/sources.list*). Prints each image's name:hash tag on stdout.
# The CUDA trainer (Dockerfile.trainer-cuda) needs an NVIDIA base image from a registry and is not
# built here.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CACHE=${PETNAME_CACHE:-$HOME/.cache/petname}/images
BASE=localhost/petname-base:bookworm
mkdir -p "$CACHE"

# podman/buildah fail here without it (crun and hybrid cgroups; default ulimits give EPERM).
if [[ -z ${CONTAINERS_CONF:-} ]]; then
  cat >"$CACHE/containers.conf" <<'CONF'
[containers]
default_ulimits = ["nofile=20000:20000", "nproc=32768:32768"]
[engine]
runtime = "runc"
CONF
  export CONTAINERS_CONF=$CACHE/containers.conf
fi

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
  log "debootstrap --variant=minbase bookworm from $(mirror)"
  debootstrap --variant=minbase bookworm "$rootfs" "$(mirror)" >"$CACHE/debootstrap.log" 2>&1 ||
    die "debootstrap failed (see $CACHE/debootstrap.log)"
  # Keep images small and apt quiet inside builds.
  rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/*
  tar -C "$rootfs" -c . | podman import -q --change 'CMD ["/bin/bash"]' - "$BASE" >/dev/null
  rm -rf "$rootfs"
  log "imported $BASE"
)

# The Dockerfile and the tracked sources its build copies (the Dockerfiles copy named
# directories only).
inputs() {
  echo "docker/Dockerfile.$1"
  git -C "$ROOT" ls-files -- CMakeLists.txt common operator trainer bench
}

build_image() {
  local name=$1 dockerfile=$ROOT/docker/Dockerfile.$1 hash tag
  [[ -f $dockerfile ]] || die "no $dockerfile"
  hash=$({
    podman image inspect --format '{{.Id}}' "$BASE"
    cd "$ROOT" && inputs "$name" | xargs sha256sum
  } | sha256sum | cut -c1-16)
  tag=localhost/petname-$name:$hash
  lock "$name"
  if ! podman image exists "$tag"; then
    log "building $tag (log: $CACHE/build-$name.log)"
    buildah bud --isolation chroot --layers=false --build-arg "BASE=$BASE" \
      -f "$dockerfile" -t "$tag" "$ROOT" >"$CACHE/build-$name.log" 2>&1 ||
      die "build of $name failed (see $CACHE/build-$name.log)"
  fi
  podman tag "$tag" "localhost/petname-$name:dev"
  echo "$tag"
}

targets=("$@")
((${#targets[@]})) || targets=(operator trainer)
for cmd in podman buildah debootstrap; do
  command -v "$cmd" >/dev/null || die "$cmd missing: run scripts/setup"
done
build_base
for t in "${targets[@]}"; do
  case $t in
    base) echo "$BASE" ;;
    operator | trainer) build_image "$t" ;;
    *) die "unknown image $t (operator, trainer, base)" ;;
  esac
done
