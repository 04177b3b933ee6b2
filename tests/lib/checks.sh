# shellcheck shell=bash
# Source this file for TAP-like checks in test scripts:
#   checks_plan N              the suite (or the part of it that starts here) runs N more checks
#   checks_plan_files K DIR GLOB   K checks for each file in DIR matching GLOB
#   ok NAME / not_ok NAME      count and print `ok - NAME` / `not ok - NAME`
#   check NAME COMMAND...      runs COMMAND (output appended to $CHECKS_LOG) and reports it
#   setup NAME COMMAND...      runs COMMAND (output appended to $CHECKS_LOG) as a step the checks
#                              depend on, not a check: on failure one `not ok - setup: NAME` line
#                              (a failure) and a non-zero status (under `set -e` the suite stops)
#   eventually SECONDS CMD...  retries CMD (output appended to $CHECKS_LOG) until it succeeds (0)
#                              or SECONDS have passed (1), the pause between tries doubling from
#                              0.1 s to 1 s (poll.sh)
#   checks_done                the script's last line: it reached its end
#   checks_finish RC           for the EXIT trap, with the script's exit status: prints
#                              `N passed, N failed` last and returns 0 only when the script
#                              reached checks_done with status 0, no check failed and at least
#                              the planned number of checks passed. Otherwise it first prints one
#                              `not ok - ` line saying why (counted as a failure): where an
#                              unchecked command failed, a signal, an early exit, a short count.
#   checks_workdir NAME        makes $TMP, a new folder under $TMPDIR (or /tmp) holding
#                              $CHECKS_LOG, and on exit removes it when every check passed (else
#                              names it) and exits as checks_finish says
#
# The plans are what docs/contributing/testing.md counts (tests/lint/testing_counts.py reads them: integer
# literals, or checks_plan_files with a literal K, DIR relative to "$HERE" or "$ROOT").
# Sourcing this file records where an unchecked command fails (an ERR trap, inherited by
# functions), so that a suite stopped by `set -e` names the command.
# shellcheck source-path=SCRIPTDIR source=poll.sh
source "$(dirname "${BASH_SOURCE[0]}")/poll.sh"
PASSED=0
FAILED=0
CHECKS_PLANNED=0
CHECKS_DONE=0
CHECKS_STOPPED_AT=""
: "${CHECKS_LOG:=/dev/null}"
set -o errtrace
trap '_checks_err $LINENO "$BASH_COMMAND"' ERR
_checks_err() {
  # Only the script's own shell: a command substitution's failure is its caller's to judge.
  ((BASH_SUBSHELL == 0)) || return 0
  CHECKS_STOPPED_AT="${BASH_SOURCE[1]##*/}:$1: $2"
}
checks_plan() { CHECKS_PLANNED=$((CHECKS_PLANNED + $1)); }
checks_plan_files() {
  local n=0 f
  for f in "$2"/$3; do [[ -e $f ]] && n=$((n + 1)); done
  checks_plan $(($1 * n))
}
ok() { PASSED=$((PASSED + 1)); echo "ok - $1"; }
not_ok() { FAILED=$((FAILED + 1)); echo "not ok - $1"; }
check() {
  local name=$1
  shift
  if "$@" >>"$CHECKS_LOG" 2>&1; then ok "$name"; else not_ok "$name"; fi
}
setup() {
  local name=$1 rc=0
  shift
  "$@" >>"$CHECKS_LOG" 2>&1 || rc=$?
  ((rc == 0)) && return 0
  not_ok "setup: $name (exit $rc)"
  return "$rc"
}
eventually() {
  local deadline=$((SECONDS + $1)) polls=0
  shift
  until "$@" >>"$CHECKS_LOG" 2>&1; do
    ((SECONDS < deadline)) || return 1
    poll_pause $((polls++))
  done
}
checks_done() { CHECKS_DONE=1; }
checks_finish() {
  local rc=$1 why=""
  if ((rc != 0)); then
    why="the suite stopped with exit status $rc"
    ((rc > 128)) && why+=" (signal $((rc - 128)))"
    [[ -z $CHECKS_STOPPED_AT ]] || why+=" after an unchecked command failed: $CHECKS_STOPPED_AT"
  elif ((!CHECKS_DONE)); then
    why="the suite exited before its last line"
  elif ((FAILED == 0 && PASSED < CHECKS_PLANNED)); then
    why="$PASSED checks ran, $CHECKS_PLANNED planned"
  fi
  [[ -z $why ]] || not_ok "$why"
  echo "$PASSED passed, $FAILED failed"
  ((FAILED == 0))
}
checks_workdir() {
  TMP=$(mktemp -d "${TMPDIR:-/tmp}/$1.XXXXXX")
  CHECKS_LOG=$TMP/checks.log
  trap '_checks_workdir_exit $?' EXIT
  trap 'exit 130' INT TERM
}
_checks_workdir_exit() {
  local rc=$1
  if ((rc == 0 && FAILED == 0)); then rm -rf "$TMP"; else echo "logs kept in $TMP" >&2; fi
  checks_finish "$rc" && exit 0
  exit 1
}
