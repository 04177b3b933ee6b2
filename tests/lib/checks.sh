# shellcheck shell=bash
# Source this file for TAP-like checks in test scripts:
#   ok NAME / not_ok NAME      count and print `ok - NAME` / `not ok - NAME`
#   check NAME COMMAND...      runs COMMAND (output appended to $CHECKS_LOG) and reports it
#   checks_summary             prints `N passed, N failed`; returns 1 when a check failed
#   eventually SECONDS CMD...  retries CMD (output appended to $CHECKS_LOG) every 0.5 s until it
#                              succeeds (0) or SECONDS have passed (1)
#   checks_workdir NAME        makes $TMP, a new folder under $TMPDIR (or /tmp) holding
#                              $CHECKS_LOG, and on exit prints the summary, removes $TMP when
#                              every check passed (else names it) and exits 0 or 1
PASSED=0
FAILED=0
: "${CHECKS_LOG:=/dev/null}"
ok() { PASSED=$((PASSED + 1)); echo "ok - $1"; }
not_ok() { FAILED=$((FAILED + 1)); echo "not ok - $1"; }
check() {
  local name=$1
  shift
  if "$@" >>"$CHECKS_LOG" 2>&1; then ok "$name"; else not_ok "$name"; fi
}
eventually() {
  local deadline=$((SECONDS + $1))
  shift
  until "$@" >>"$CHECKS_LOG" 2>&1; do
    ((SECONDS < deadline)) || return 1
    sleep 0.5
  done
}
checks_summary() {
  echo "$PASSED passed, $FAILED failed"
  ((FAILED == 0))
}
checks_workdir() {
  TMP=$(mktemp -d "${TMPDIR:-/tmp}/$1.XXXXXX")
  CHECKS_LOG=$TMP/checks.log
  trap checks_finish EXIT
  trap 'exit 130' INT TERM
}
checks_finish() {
  if ((FAILED == 0)); then rm -rf "$TMP"; else echo "logs kept in $TMP" >&2; fi
  checks_summary && exit 0
  exit 1
}
