// The character vocabulary of the pet-name model: "*+abcdefghijklmnopqrstuvwxyz-. ".
// Index 0 ('*') pads windows on the left, index 1 ('+') ends a name. Names themselves
// use only the other 29 characters.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace petname::data {

inline constexpr std::string_view kVocabulary = "*+abcdefghijklmnopqrstuvwxyz-. ";
inline constexpr int64_t kVocabularySize = 31;
inline constexpr int kPadIndex = 0;
inline constexpr int kStopIndex = 1;
inline constexpr char kPadChar = '*';
inline constexpr char kStopChar = '+';

// Index of `c` in kVocabulary, or -1 when it is not there.
int CharIndex(char c);

// True when `c` may appear inside a cleaned name (a vocabulary character but not pad/stop).
bool IsNameChar(char c);

// True when every character of `name` is a name character.
bool IsCleanName(std::string_view name);

}  // namespace petname::data
