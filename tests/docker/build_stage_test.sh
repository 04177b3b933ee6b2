#!/usr/bin/env bash
# The images as the quick start builds them (docs/getting-started/cluster.md: `bash
# docker/build.sh`, each whole Dockerfile compiling in its build stage), checked on this host
# without building an image (docker/README.md): for every docker/Dockerfile.* with a build stage,
# tests/docker/build_stage.py runs that stage's configure over exactly the files its COPY lines
# take and checks that the packages its apt-get line installs (the lists of scripts/packages/,
# which scripts/setup installs on the host too) cover every package whose files that configure
# reads; a Dockerfile without a build stage must be one docker/build.sh builds only with
# --binaries. Then the check is shown to catch what it is for, on a copy of the build context
# that misses one thing each time: a COPY'd folder (cmake/, which common/http includes), the
# COPY of a package list, or a package of a list (libcpp-httplib-dev, libtorch-dev).
#
#   tests/docker/build_stage_test.sh
#
# Exit 0 when every check passes, 1 otherwise; last line `N passed, N failed`.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
HERE=$ROOT/tests/docker
# shellcheck source=../lib/checks.sh
source "$ROOT/tests/lib/checks.sh"
checks_workdir build-stage-test

checks_plan 5
checks_plan_files 1 "$ROOT/docker" 'Dockerfile.*'
documented() { # the quick start's image build command, as written there
  grep -qE '^bash docker/build\.sh( +#.*)?$' "$ROOT/docs/getting-started/cluster.md"
}
check "the quick start builds the images with the whole Dockerfiles (bash docker/build.sh)" documented

# binaries_only NAME: docker/build.sh refuses to build Dockerfile.NAME (no build stage) without
# --binaries, rather than building an image without its binary
binaries_only() {
  grep -qF "if [[ \$name == $1 && -z \$BINARIES ]]; then" "$ROOT/docker/build.sh"
}
for dockerfile in "$ROOT"/docker/Dockerfile.*; do
  name=${dockerfile##*/Dockerfile.}
  if grep -qiE '^FROM .* AS build$' "$dockerfile"; then
    check "Dockerfile.$name: its build stage configures over its COPY'd files and installs what that reads" \
      python3 "$HERE/build_stage.py" --log "$TMP/check.log" "$dockerfile"
  else
    check "Dockerfile.$name: no build stage, and docker/build.sh builds it only with --binaries" \
      binaries_only "$name"
  fi
done

# The planted copies: a build context holding the tracked files (so that git ls-files lists them
# as in the repository), one of them edited; the Dockerfiles under test are in $TMP/planted.
mkdir -p "$TMP/context"
git -C "$ROOT" ls-files -z | tar -C "$ROOT" --null -T - -c | tar -C "$TMP/context" -x
git -C "$TMP/context" init -q && git -C "$TMP/context" add -A
mkdir -p "$TMP/planted"
# plant FILE SED: FILE (relative to the repository) edited by SED: a Dockerfile at
# $TMP/planted/, any other file in place in the planted context
plant() {
  local to=$TMP/context/$1
  [[ $1 != docker/Dockerfile.* ]] || to=$TMP/planted/${1#docker/}
  sed -E "$2" "$ROOT/$1" >"$to"
  ! cmp -s "$ROOT/$1" "$to" || { echo "plant: '$2' changed nothing in $1" >&2 && return 1; }
}
# fails_naming NAME TEXT: the check of Dockerfile.NAME (the planted one if any) over the planted
# context fails, naming TEXT
fails_naming() {
  local out rc=0 dockerfile=$TMP/planted/Dockerfile.$1
  [[ -f $dockerfile ]] || dockerfile=$TMP/context/docker/Dockerfile.$1
  out=$(python3 "$HERE/build_stage.py" --context "$TMP/context" --log "$TMP/check.log" \
    "$dockerfile") || rc=$?
  echo "$out"
  ((rc == 1)) && grep -qF -- "$2" <<<"$out"
}
unplant() { # FILE: back as in the repository
  rm -f "$TMP/planted/${1#docker/}"
  cp "$ROOT/$1" "$TMP/context/$1"
}
setup "Dockerfile.operator without COPY cmake" plant docker/Dockerfile.operator '/^COPY cmake cmake$/d'
check "a build stage that misses the folder cmake/ fails, naming cmake/httplib.cmake" \
  fails_naming operator "cmake/httplib.cmake"
setup "Dockerfile.operator as it is" unplant docker/Dockerfile.operator
setup "Dockerfile.operator without the COPY of operator.txt" \
  plant docker/Dockerfile.operator 's#^(COPY .*) scripts/packages/operator\.txt #\1 #'
check "a build stage that misses a package list it installs from fails, naming it" \
  fails_naming operator "/packages/operator.txt: No such file"
setup "Dockerfile.operator as it is" unplant docker/Dockerfile.operator
setup "scripts/packages/build.txt without libcpp-httplib-dev" \
  plant scripts/packages/build.txt 's/^libcpp-httplib-dev( |$)/#\1/'
check "a build stage whose list misses libcpp-httplib-dev fails, naming it" \
  fails_naming operator "the build stage does not install libcpp-httplib-dev,"
setup "scripts/packages/build.txt as it is" unplant scripts/packages/build.txt
setup "scripts/packages/trainer.txt without libtorch-dev" \
  plant scripts/packages/trainer.txt 's/^libtorch-dev //'
check "a build stage whose list misses libtorch-dev fails, naming it" \
  fails_naming trainer "the build stage does not install libtorch-dev,"
checks_done
