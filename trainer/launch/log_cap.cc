#include "trainer/launch/log_cap.h"

namespace petname::launch {
namespace {

constexpr char kEraseLine[] = "\033[K";

}  // namespace

LogCap::LogCap(const LogLimits& limits, int64_t head_size, int64_t tail_size)
    : limits_(limits),
      head_size_(head_size),
      tail_size_(tail_size),
      head_open_(tail_size == 0 && head_size < limits.head_bytes) {}

LogPlace LogCap::Place(int64_t bytes) {
  if (head_open_ && head_size_ + bytes <= limits_.head_bytes) {
    head_size_ += bytes;
    return LogPlace::kHead;
  }
  head_open_ = false;
  if (tail_size_ > 0 && tail_size_ + bytes > limits_.segment_bytes) {
    tail_size_ = bytes;
    return LogPlace::kRotate;
  }
  tail_size_ += bytes;
  return LogPlace::kTail;
}

std::string LogLines::Finish() {
  std::string line;
  line.swap(partial_);
  for (size_t at = line.find(kEraseLine); at != std::string::npos; at = line.find(kEraseLine)) {
    line.erase(at, sizeof kEraseLine - 1);
  }
  return line + "\n";
}

std::vector<std::string> LogLines::Feed(const char* data, size_t size) {
  std::vector<std::string> lines;
  for (size_t i = 0; i < size; ++i) {
    const char c = data[i];
    if (after_cr_ && c != '\n') partial_.clear();
    after_cr_ = c == '\r';
    if (c == '\r') continue;
    if (c == '\n') {
      lines.push_back(Finish());
      continue;
    }
    partial_ += c;
    if (partial_.size() >= max_line_) lines.push_back(Finish());
  }
  return lines;
}

std::string LogLines::Flush() {
  after_cr_ = false;
  return partial_.empty() ? "" : Finish();
}

}  // namespace petname::launch
