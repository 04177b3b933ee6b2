#!/usr/bin/env bash
# Fails when a tracked C++ file is not formatted with the repository's .clang-format (third_party/,
# others' code kept as published, aside).
set -euo pipefail
cd "$(dirname "$0")/../.."
mapfile -t files < <(git ls-files '*.cc' '*.h' ':!third_party' 2>/dev/null || find . -name '*.cc' -o -name '*.h')
if [ ${#files[@]} -eq 0 ]; then
  echo "format: no C++ files found" >&2
  exit 1
fi
clang-format --dry-run -Werror "${files[@]}"
echo "format: ${#files[@]} files clean"
