#include "trainer/data/vocabulary.h"

namespace petname::data {

int CharIndex(char c) {
  size_t i = kVocabulary.find(c);
  return i == std::string_view::npos ? -1 : static_cast<int>(i);
}

bool IsNameChar(char c) { return CharIndex(c) > kStopIndex; }

bool IsCleanName(std::string_view name) {
  for (char c : name) {
    if (!IsNameChar(c)) return false;
  }
  return true;
}

}  // namespace petname::data
