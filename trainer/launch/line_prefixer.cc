#include "trainer/launch/line_prefixer.h"

namespace petname::launch {

std::string LinePrefixer::Feed(const char* data, size_t size) {
  std::string out;
  for (size_t i = 0; i < size; ++i) {
    partial_.push_back(data[i]);
    if (data[i] == '\n') {
      out += prefix_;
      out += partial_;
      partial_.clear();
    }
  }
  return out;
}

std::string LinePrefixer::Flush() {
  if (partial_.empty()) return "";
  std::string out = prefix_ + partial_ + "\n";
  partial_.clear();
  return out;
}

}  // namespace petname::launch
