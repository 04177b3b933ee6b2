#!/usr/bin/env bash
# `petname fetch` against real local HTTP and HTTPS servers (serve.py; the HTTPS one with a
# server certificate from a test CA made here with openssl): success and checksum, a wrong
# checksum, an untrusted certificate, oversized bodies, retries after 503, an unreachable port,
# a server that trickles its body (the low-speed limit, the total deadline), refused schemes and
# redirects. After every failure the output file must not exist and no
# temporary file may be left beside it.
# usage: fetch_test.sh PETNAME_BIN DATA_FILE
set -euo pipefail
petname=$1
data=$2
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../../lib/checks.sh
source "$here/../../lib/checks.sh"
# shellcheck source=../../support/ports.sh
source "$here/../../support/ports.sh"

work=$(mktemp -d)
pids=()
finish() {
  local rc=$? pid
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$work"
  checks_finish "$rc" && exit 0
  exit 1
}
trap finish EXIT
trap 'exit 130' INT TERM
checks_plan 53

# A test CA and a server certificate for 127.0.0.1 and localhost signed by it; another CA that
# signed nothing.
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=petname-test-ca \
  -keyout "$work/ca.key" -out "$work/ca.pem" 2>/dev/null
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=other-ca \
  -keyout "$work/other.key" -out "$work/other.pem" 2>/dev/null
openssl req -newkey rsa:2048 -nodes -subj /CN=localhost \
  -keyout "$work/server.key" -out "$work/server.csr" 2>/dev/null
printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\n' >"$work/san.ext"
openssl x509 -req -in "$work/server.csr" -CA "$work/ca.pem" -CAkey "$work/ca.key" \
  -CAcreateserial -days 2 -extfile "$work/san.ext" -out "$work/server.pem" 2>/dev/null

# Starts serve.py with the given arguments; sets $port.
start_server() {
  local out=$work/port.$#.$RANDOM
  python3 "$here/serve.py" "$data" "$@" >"$out" 2>>"$work/server.log" &
  pids+=($!)
  for _ in $(seq 100); do
    port=$(head -n1 "$out" 2>/dev/null || true)
    [[ -n $port ]] && return 0
    sleep 0.1
  done
  echo "serve.py did not start" >&2
  exit 1
}
start_server
http_port=$port
start_server --cert "$work/server.pem" --key "$work/server.key"
https_port=$port
sum=$(sha256sum "$data" | cut -d' ' -f1)
zeros=$(printf '0%.0s' $(seq 64))

# Runs petname fetch with the given arguments; sets $rc, $err (stderr).
fetch() {
  rc=0
  "$petname" fetch "$@" >"$work/stdout" 2>"$work/stderr" || rc=$?
  err=$(cat "$work/stderr")
}
# The output was not written and nothing is left beside it.
clean() {
  [[ ! -e $1 ]] && [[ -z $(find "$(dirname "$1")" -name '*.part-*' -print -quit) ]]
}
# Exactly one error line, naming $1 (a fixed string).
error_line() {
  [[ $(grep -c '^petname: error: ' <<<"$err") == 1 ]] && grep -qF -- "$1" <<<"$err"
}

out=$work/plain/data.csv
mkdir -p "$work/plain"
fetch --url "http://127.0.0.1:$http_port/data" --sha256 "$sum" --output "$out"
check "http: exit 0" test "$rc" = 0
check "http: the file is the served one" cmp "$data" "$out"
check "http: no temporary file left" test -z "$(find "$work/plain" -name '*.part-*')"

out=$work/tls/data.csv
mkdir -p "$work/tls"
fetch --url "https://localhost:$https_port/data?token=secret" --sha256 "${sum^^}" \
  --output "$out" --ca-file "$work/ca.pem"
check "https with --ca-file: exit 0" test "$rc" = 0
check "https with --ca-file: the file is the served one" cmp "$data" "$out"
check "https: the token is not printed" bash -c '! grep -q secret "$1"' _ "$work/stdout"

out=$work/mismatch/data.csv
mkdir -p "$work/mismatch"
fetch --url "http://user:hunter2@127.0.0.1:$http_port/data" --sha256 "$zeros" --output "$out" \
  --termination-log "$work/mismatch/termination-log"
check "wrong sha256: exit 1" test "$rc" = 1
check "wrong sha256: names both digests" \
  error_line "sha256 mismatch: expected $zeros, got $sum"
check "wrong sha256: names the URL without its password" \
  bash -c 'grep -qF "fetch http://127.0.0.1:$1/data:" <<<"$2" && ! grep -q hunter2 <<<"$2"' \
  _ "$http_port" "$err"
check "wrong sha256: no output file" clean "$out"
check "wrong sha256: the termination log holds the error line" \
  grep -qF "sha256 mismatch: expected $zeros" "$work/mismatch/termination-log"

out=$work/untrusted/data.csv
mkdir -p "$work/untrusted"
fetch --url "https://localhost:$https_port/data" --sha256 "$sum" --output "$out" --retries 3
check "untrusted certificate: exit 1" test "$rc" = 1
check "untrusted certificate: says the certificate failed" \
  error_line "TLS failed: SSL certificate problem"
check "untrusted certificate: not retried" bash -c '! grep -q "attempt 2" <<<"$1"' _ "$err"
check "untrusted certificate: no output file" clean "$out"
fetch --url "https://localhost:$https_port/data" --sha256 "$sum" --output "$out" \
  --ca-file "$work/other.pem"
check "certificate of another CA: exit 1" test "$rc" = 1
check "certificate of another CA: no output file" clean "$out"

out=$work/big/data.csv
mkdir -p "$work/big"
echo "kept" >"$out.old"
fetch --url "http://127.0.0.1:$http_port/claims-big" --sha256 "$sum" --output "$out" \
  --max-bytes 1000
check "Content-Length over --max-bytes: exit 1" test "$rc" = 1
check "Content-Length over --max-bytes: named" error_line "more than --max-bytes 1000 bytes"
check "Content-Length over --max-bytes: no output file" clean "$out"
fetch --url "http://127.0.0.1:$http_port/endless" --sha256 "$sum" --output "$out" \
  --max-bytes 1000000
check "endless body: exit 1" test "$rc" = 1
check "endless body: cut off at --max-bytes" error_line "more than --max-bytes 1000000 bytes"
check "endless body: no output file" clean "$out"
fetch --url "http://127.0.0.1:$http_port/data" --sha256 "$sum" --output "$out" --max-bytes 1000
check "a file over --max-bytes is refused" test "$rc" = 1

out=$work/flaky/data.csv
mkdir -p "$work/flaky"
fetch --url "http://127.0.0.1:$http_port/flaky" --sha256 "$sum" --output "$out" --retries 2
check "503 twice then 200: exit 0 after retries" test "$rc" = 0
check "503 twice then 200: two retries announced" \
  bash -c '[[ $(grep -c "HTTP 503; attempt" <<<"$1") == 2 ]]' _ "$err"
check "503 twice then 200: the file is the served one" cmp "$data" "$out"

out=$work/missing/data.csv
mkdir -p "$work/missing"
fetch --url "http://127.0.0.1:$http_port/missing" --sha256 "$sum" --output "$out" --retries 3
check "404: exit 1" test "$rc" = 1
check "404: named, not retried" error_line "HTTP 404"
check "404: no retry" bash -c '! grep -q "attempt 2" <<<"$1"' _ "$err"
check "404: no output file" clean "$out"

unused_port=$(free_port)
out=$work/unreachable/data.csv
mkdir -p "$work/unreachable"
fetch --url "http://127.0.0.1:$unused_port/data" --sha256 "$sum" --output "$out" --retries 2
check "unreachable port: exit 1" test "$rc" = 1
check "unreachable port: host unreachable after 3 attempts" \
  error_line "host unreachable after 3 attempts"
check "unreachable port: no output file" clean "$out"

# 10 bytes/s: below the low-speed limit, so the attempt is aborted after --timeout seconds.
out=$work/trickle/data.csv
mkdir -p "$work/trickle"
fetch --url "http://127.0.0.1:$http_port/trickle" --sha256 "$sum" --output "$out" --timeout 1 \
  --retries 0
check "trickling body, --timeout 1: exit 1" test "$rc" = 1
check "trickling body, --timeout 1: aborted as too slow" error_line "timed out: Operation too slow"
check "trickling body, --timeout 1: no output file" clean "$out"
# The low-speed limit cannot fire within the deadline: the deadline ends the fetch, and no
# further attempt starts after it although retries are left.
fetch --url "http://127.0.0.1:$http_port/trickle" --sha256 "$sum" --output "$out" --timeout 30 \
  --deadline 2 --retries 5
check "trickling body, --deadline 2: exit 1" test "$rc" = 1
check "trickling body, --deadline 2: names the deadline" error_line "; --deadline 2 s reached"
check "trickling body, --deadline 2: the first attempt timed out" error_line "timed out: "
check "trickling body, --deadline 2: no second attempt" \
  bash -c '! grep -q "attempt 2" <<<"$1"' _ "$err"
check "trickling body, --deadline 2: no output file" clean "$out"
fetch --url "http://127.0.0.1:$http_port/data" --sha256 "$sum" --output "$out" --deadline 0
check "--deadline 0: usage error (exit 2)" test "$rc" = 2
check "--deadline 0: named" error_line "--deadline must be positive"
fetch --help
check "--help describes --deadline" grep -q -- "--deadline" "$work/stdout"

out=$work/schemes/data.csv
mkdir -p "$work/schemes"
fetch --url "file:///etc/passwd" --sha256 "$sum" --output "$out"
check "file:// URL: usage error (exit 2)" test "$rc" = 2
check "file:// URL: names the scheme rule" error_line "must start with http:// or https://"
check "file:// URL: no output file" clean "$out"
fetch --url "http://127.0.0.1:$http_port/to-file" --sha256 "$sum" --output "$out"
check "redirect to file://: exit 1" test "$rc" = 1
check "redirect to file://: refused" error_line "redirect refused"
check "redirect to file://: no output file" clean "$out"
fetch --url "http://127.0.0.1:$http_port/data" --sha256 abc --output "$out"
check "short --sha256: exit 2" test "$rc" = 2
fetch --url "http://127.0.0.1:$http_port/data" --output "$out"
check "missing --sha256: exit 2" test "$rc" = 2

checks_done
