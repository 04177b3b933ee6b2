#!/usr/bin/env bash
# Katib's File metrics collector parser (kubeflow/katib v0.19.0, pinned by go.mod and go.sum) on
# the metrics file a real `petname train --katib-metrics-file` writes (collector_test.go).
#
#   tests/katib/test.sh PETNAME_BIN DATA
#
# Go as tests/cluster/build.sh finds it: $GO, else go on PATH, else /usr/local/go/bin/go; exit 77
# (ctest: skipped) only when there is none. Modules and build cache are Go's defaults, the ones
# tests/cluster/build.sh fills (the first run downloads the modules go.sum pins, then they are cached).
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
[[ $# -eq 2 ]] || { echo "usage: tests/katib/test.sh PETNAME_BIN DATA" >&2; exit 2; }

go=${GO:-}
if [[ -z $go ]]; then
  if command -v go >/dev/null 2>&1; then
    go=$(command -v go)
  elif [[ -x /usr/local/go/bin/go ]]; then
    go=/usr/local/go/bin/go
  else
    echo "katib: no Go toolchain (set GO=/path/to/go); skipped" >&2
    exit 77
  fi
fi

bin=$(realpath "$1") data=$(realpath "$2")
export GOTOOLCHAIN=local CGO_ENABLED=0 GOFLAGS="-mod=readonly -trimpath -buildvcs=false -gcflags=all=-dwarf=false"
cd "$HERE"
PETNAME_BIN=$bin PETNAME_TEST_DATA=$data "$go" test -count=1 -v ./...
