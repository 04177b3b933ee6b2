#!/usr/bin/env bash
# The images as the quick start builds them (docs/getting-started/cluster.md: `bash docker/build.sh`,
# each whole Dockerfile compiling
# in its build stage), checked on this host without building an image:
# tests/docker/build_stage.py runs each build stage's configure over
# exactly the files its COPY lines take and checks that its apt-get line installs every package
# whose files that configure reads (docker/README.md). Then the check is shown to catch what it is
# for, on copies of Dockerfile.operator and Dockerfile.trainer that each miss one thing: a COPY'd
# folder (cmake/, which common/http includes) or a package (libcpp-httplib-dev, libtorch-dev).
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

checks_plan 6
documented() { # the quick start's image build command, as written there
  grep -qE '^bash docker/build\.sh( +#.*)?$' "$ROOT/docs/getting-started/cluster.md"
}
check "the quick start builds the images with the whole Dockerfiles (bash docker/build.sh)" documented

for name in operator trainer; do
  check "Dockerfile.$name: its build stage configures over its COPY'd files and installs what that reads" \
    python3 "$HERE/build_stage.py" --log "$TMP/check.log" "$ROOT/docker/Dockerfile.$name"
done

# plant NAME SED: a copy of docker/Dockerfile.NAME edited by SED, at $TMP/planted/Dockerfile.NAME
plant() {
  mkdir -p "$TMP/planted"
  sed -E "$2" "$ROOT/docker/Dockerfile.$1" >"$TMP/planted/Dockerfile.$1"
  ! cmp -s "$ROOT/docker/Dockerfile.$1" "$TMP/planted/Dockerfile.$1" ||
    { echo "plant: '$2' changed nothing in Dockerfile.$1" >&2 && return 1; }
}
# fails_naming NAME TEXT: the check of the planted Dockerfile.NAME fails, naming TEXT
fails_naming() {
  local out rc=0
  out=$(python3 "$HERE/build_stage.py" --context "$ROOT" --log "$TMP/check.log" \
    "$TMP/planted/Dockerfile.$1") || rc=$?
  echo "$out"
  ((rc == 1)) && grep -qF -- "$2" <<<"$out"
}
setup "Dockerfile.operator without COPY cmake" plant operator '/^COPY cmake cmake$/d'
check "a build stage that misses the folder cmake/ fails, naming cmake/httplib.cmake" \
  fails_naming operator "cmake/httplib.cmake"
setup "Dockerfile.operator without libcpp-httplib-dev" plant operator 's/ libcpp-httplib-dev( |$)/ \1/'
check "a build stage that misses libcpp-httplib-dev fails, naming it" \
  fails_naming operator "the build stage does not install libcpp-httplib-dev,"
setup "Dockerfile.trainer without libtorch-dev" plant trainer 's/ libtorch-dev( |$)/ \1/'
check "a build stage that misses libtorch-dev fails, naming it" \
  fails_naming trainer "the build stage does not install libtorch-dev,"
checks_done
