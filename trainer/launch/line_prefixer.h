// Splits a byte stream into lines and prefixes each one (pure). Feed() returns the
// complete lines seen so far, each prefixed and ending in '\n'; Flush() returns a
// trailing partial line (with a '\n' added), or "" when there is none.
#pragma once

#include <string>

namespace petname::launch {

class LinePrefixer {
 public:
  explicit LinePrefixer(std::string prefix) : prefix_(std::move(prefix)) {}

  std::string Feed(const char* data, size_t size);
  std::string Flush();

 private:
  std::string prefix_;
  std::string partial_;
};

}  // namespace petname::launch
