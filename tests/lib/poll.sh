# shellcheck shell=bash
# Source this file for the pause between the polls of one wait:
#   poll_pause N   sleeps before poll N + 1 (N = 0 after the first poll): 0.1 s, then twice as
#                  long each time up to 1 s
# A change that lands at once is seen within 0.1 s; a wait of a minute costs about 60 polls, not
# the 300 of a fixed 0.2 s, and each poll is a process (kubectl, curl) that the 2-core machine
# running the suite would otherwise spend on the tests beside it.
poll_pause() {
  local pauses=(0.1 0.2 0.4 0.8 1)
  sleep "${pauses[$(($1 < 4 ? $1 : 4))]}"
}
