#!/usr/bin/env bash
# promtool check rules + promtool test rules (one unit test per alert) on the chart's rules.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
promtool check rules "$here/../../charts/petname-operator/rules/petname.rules.yaml"
cd "$here" && promtool test rules petname.rules.test.yaml
