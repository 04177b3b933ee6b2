#!/usr/bin/env bash
# Run on a Debian 12 machine with network access, before building on a GPU machine that has
# none (docs/contributing/gpu.md): puts into .gpu-kit/ (ignored by git) the Debian packages the trainer
# needs beyond the PyTorch wheel, and into data/ the Seattle table (not with --debs-only). The
# packages are what the trainer-only build (PETNAME_WITH_OPERATOR=OFF) finds: OpenSSL,
# nlohmann_json, ZLIB, GTest (CMakeLists.txt), cpp-httplib (cmake/httplib.cmake; its
# pkg-config file defines CPPHTTPLIB_OPENSSL_SUPPORT and CPPHTTPLIB_BROTLI_SUPPORT, so its header
# includes OpenSSL's and brotli's), prometheus-cpp with civetweb (trainer/metrics,
# common/metrics), yaml-cpp (trainer/sweep), CLI11 (trainer, bench), CURL (trainer/fetch); and
# every library those load in turn (libcurl's LDAP, SSH, Kerberos, GnuTLS, ...), which the
# linker needs to see and which an Ubuntu GPU image lacks or has at other versions: the C and
# C++ runtime (libc6, libstdc++6, libgcc-s1) alone come from the GPU machine. bench/gpu/kit_test.sh
# proves the list complete by configuring against it alone and linking petname in a root that
# holds nothing else.
#
#   bash bench/gpu/prepare.sh [--debs-only]
set -euo pipefail
cd "$(dirname "$0")/../.."

packages=(prometheus-cpp-dev libprometheus-cpp-core1.0 libprometheus-cpp-pull1.0
  libprometheus-cpp-push1.0 libcivetweb1 libcivetweb-dev nlohmann-json3-dev libcli11-dev
  libgtest-dev libgmock-dev zlib1g-dev zlib1g libcurl4-openssl-dev libcurl4
  libcpp-httplib-dev libcpp-httplib0.11 libbrotli-dev libbrotli1 libyaml-cpp-dev libyaml-cpp0.7
  libssl-dev libssl3
  # what libcurl4 loads (objdump -p: NEEDED, recursively)
  libldap-2.5-0 libsasl2-2 libssh2-1 libnghttp2-14 libpsl5 libidn2-0 libunistring2 libzstd1
  libgssapi-krb5-2 libkrb5-3 libk5crypto3 libkrb5support0 libkeyutils1 libcom-err2
  librtmp1 libgnutls30 libhogweed6 libnettle8 libgmp10 libp11-kit0 libtasn1-6 libffi8)
# A fresh folder each time: the kit is exactly this list, never what an earlier list left.
rm -rf .gpu-kit/debs.partial
mkdir -p .gpu-kit/debs.partial
(cd .gpu-kit/debs.partial && apt-get -qq download "${packages[@]}" 2>&1 | grep -v '^W: Download is performed unsandboxed' || true)
for p in "${packages[@]}"; do
  compgen -G ".gpu-kit/debs.partial/${p}_*.deb" >/dev/null || { echo "prepare: $p was not downloaded" >&2; exit 1; }
done
rm -rf .gpu-kit/debs
mv .gpu-kit/debs.partial .gpu-kit/debs
[[ ${1:-} == --debs-only ]] && exit 0
bash scripts/get-data
echo "prepare: .gpu-kit/debs ($(ls .gpu-kit/debs | wc -l) packages) and data/ ready; carry both to the GPU machine" >&2
