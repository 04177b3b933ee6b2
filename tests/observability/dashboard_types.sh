#!/usr/bin/env bash
# Structural check of the Grafana dashboard: tsc --strict against the types of
# @grafana/grafana-foundation-sdk (Grafana 11.6), installed on first use into the cache
# outside the repository. Usage: dashboard_types.sh [DASHBOARD_JSON]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
dashboard=${1:-$here/../../charts/petname-operator/dashboards/petname-training.json}
cache=${PETNAME_CACHE:-$HOME/.cache/petname}/npm
sdk=11.6.0-cogv0.0.x.1769699379
typescript=5.6.3

installed() { node -p "require('$cache/node_modules/$1/package.json').version" 2>/dev/null; }
if [ "$(installed @grafana/grafana-foundation-sdk)" != "$sdk" ] ||
  [ "$(installed typescript)" != "$typescript" ]; then
  mkdir -p "$cache"
  npm install --prefix "$cache" --no-audit --no-fund --loglevel=error \
    "@grafana/grafana-foundation-sdk@$sdk" "typescript@$typescript" >&2
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
ln -s "$cache/node_modules" "$work/node_modules"
node "$here/dashboard_types.js" "$dashboard" >"$work/check.ts"
"$cache/node_modules/.bin/tsc" --strict --noEmit --target es2020 --module esnext \
  --moduleResolution bundler "$work/check.ts"
echo "dashboard_types: $(basename "$dashboard") matches the Grafana foundation SDK types"
