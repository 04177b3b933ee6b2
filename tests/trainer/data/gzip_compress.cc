#include "tests/trainer/data/gzip_compress.h"

#define ZLIB_CONST
#include <zlib.h>

#include <stdexcept>

namespace petname::testing {

std::string GzipCompress(const std::string& text, int level) {
  z_stream s{};
  if (deflateInit2(&s, level, Z_DEFLATED, MAX_WBITS + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
    throw std::runtime_error("deflateInit2 failed");
  }
  std::string out(deflateBound(&s, static_cast<uLong>(text.size())), '\0');
  s.next_in = reinterpret_cast<const Bytef*>(text.data());
  s.avail_in = static_cast<uInt>(text.size());
  s.next_out = reinterpret_cast<Bytef*>(out.data());
  s.avail_out = static_cast<uInt>(out.size());
  const int rc = deflate(&s, Z_FINISH);
  out.resize(s.total_out);
  deflateEnd(&s);
  if (rc != Z_STREAM_END) throw std::runtime_error("deflate did not finish");
  return out;
}

}  // namespace petname::testing
