#!/usr/bin/env bash
# Run on a Debian 12 machine with network access, before building on a GPU machine that has
# none (docs/gpu.md): puts into .gpu-kit/ (ignored by git) the Debian packages the trainer
# needs beyond the PyTorch wheel, and into data/ the Seattle table (not with --debs-only). The
# packages are what the trainer-only build (PETNAME_WITH_OPERATOR=OFF) finds: OpenSSL,
# nlohmann_json, ZLIB, GTest (CMakeLists.txt), cpp-httplib (cmake/httplib.cmake; its
# pkg-config file defines CPPHTTPLIB_OPENSSL_SUPPORT and CPPHTTPLIB_BROTLI_SUPPORT, so its header
# includes OpenSSL's and brotli's), prometheus-cpp with civetweb (trainer/metrics,
# common/metrics), yaml-cpp (trainer/sweep), CLI11 (trainer, bench), CURL (trainer/fetch).
# bench/gpu/kit_configure_test.sh proves the list complete by configuring against it alone.
#
#   bash bench/gpu/prepare.sh [--debs-only]
set -euo pipefail
cd "$(dirname "$0")/../.."

packages=(prometheus-cpp-dev libprometheus-cpp-core1.0 libprometheus-cpp-pull1.0
  libprometheus-cpp-push1.0 libcivetweb1 libcivetweb-dev nlohmann-json3-dev libcli11-dev
  libgtest-dev libgmock-dev zlib1g-dev libcurl4-openssl-dev libcurl4
  libcpp-httplib-dev libcpp-httplib0.11 libbrotli-dev libbrotli1 libyaml-cpp-dev libyaml-cpp0.7
  libssl-dev libssl3)
mkdir -p .gpu-kit/debs
(cd .gpu-kit/debs && apt-get -qq download "${packages[@]}" 2>&1 | grep -v '^W: Download is performed unsandboxed' || true)
for p in "${packages[@]}"; do
  compgen -G ".gpu-kit/debs/${p}_*.deb" >/dev/null || { echo "prepare: $p was not downloaded" >&2; exit 1; }
done
[[ ${1:-} == --debs-only ]] && exit 0
bash scripts/get-data
echo "prepare: .gpu-kit/debs ($(ls .gpu-kit/debs | wc -l) packages) and data/ ready; carry both to the GPU machine" >&2
