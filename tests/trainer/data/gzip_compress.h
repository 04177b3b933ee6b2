// Test input for the gzip reader: `text` compressed as one gzip member (RFC 1952) by zlib at
// `level` (1..9), as `gzip -LEVEL` would write it.
#pragma once

#include <string>

namespace petname::testing {

std::string GzipCompress(const std::string& text, int level = 9);

}  // namespace petname::testing
