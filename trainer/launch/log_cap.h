// How a rank's log stays bounded, and how its output becomes log lines (pure).
//
// LogLines turns a byte stream into the lines a terminal would end up showing: a line ends at
// '\n' ("\r\n" too); a lone '\r' starts the line over (a live progress line overwritten in
// place leaves nothing); the erase-line sequence ESC [ K is dropped; a line longer than
// max_line bytes is cut into lines of max_line bytes (memory stays bounded without newlines).
//
// LogCap places each line (log_layout.h names the files):
//  - into the head file while it stays within head_bytes; once a line does not fit, the head is
//    closed for good (a long run's first lines are kept);
//  - else into the current tail segment; a line that would take it past segment_bytes first
//    rotates it (the current segment replaces the older one, a new one starts).
// A rank's attempt so holds at most head_bytes + 2 * segment_bytes (plus one line), always with
// the first and the last lines written. What lay between the head and the older segment is
// dropped. A run that appends to existing files (a job resumed under the same attempt) starts
// from their sizes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace petname::launch {

struct LogLimits {
  int64_t head_bytes = int64_t{1} << 20;
  int64_t segment_bytes = int64_t{512} << 10;
  size_t max_line = size_t{16} << 10;
};

enum class LogPlace {
  kHead,    // append to the head file
  kTail,    // append to the current tail segment
  kRotate,  // rotate the tail segments, then append to the new current one
};

class LogCap {
 public:
  LogCap(const LogLimits& limits, int64_t head_size, int64_t tail_size);

  // Where a line of `bytes` bytes goes; counts it there.
  LogPlace Place(int64_t bytes);

 private:
  LogLimits limits_;
  int64_t head_size_;
  int64_t tail_size_;
  bool head_open_;
};

class LogLines {
 public:
  explicit LogLines(size_t max_line) : max_line_(max_line) {}

  // The lines completed by `data`, each ending in '\n'.
  std::vector<std::string> Feed(const char* data, size_t size);
  // The unfinished line with a '\n' added, or "" when there is none.
  std::string Flush();

 private:
  std::string Finish();

  size_t max_line_;
  std::string partial_;
  bool after_cr_ = false;
};

}  // namespace petname::launch
