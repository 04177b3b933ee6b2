#include "trainer/data/gzip.h"

#define ZLIB_CONST
#include <zlib.h>

#include <algorithm>

namespace petname::data {
namespace {

constexpr size_t kInputChunk = size_t{1} << 20;
constexpr size_t kOutputChunk = size_t{1} << 16;

// An inflate stream for gzip members only (windowBits 15 + 16), ended on destruction.
class Inflater {
 public:
  Inflater() { ok_ = inflateInit2(&stream_, MAX_WBITS + 16) == Z_OK; }
  ~Inflater() {
    if (ok_) inflateEnd(&stream_);
  }
  Inflater(const Inflater&) = delete;
  Inflater& operator=(const Inflater&) = delete;

  bool ok() const { return ok_; }
  z_stream* stream() { return &stream_; }

 private:
  z_stream stream_{};
  bool ok_ = false;
};

}  // namespace

bool IsGzip(std::string_view bytes) {
  return bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f &&
         static_cast<unsigned char>(bytes[1]) == 0x8b;
}

Status Gunzip(std::string_view compressed, int64_t max_bytes, std::string* out) {
  Inflater inflater;
  if (!inflater.ok()) return Status::Internal("zlib cannot start a gzip decompression");
  z_stream* s = inflater.stream();
  std::string data;
  char chunk[kOutputChunk];
  size_t fed = 0;
  bool in_member = true;  // between a member's first byte and its end
  for (;;) {
    if (s->avail_in == 0 && fed < compressed.size()) {
      const size_t n = std::min(kInputChunk, compressed.size() - fed);
      s->next_in = reinterpret_cast<const Bytef*>(compressed.data() + fed);
      s->avail_in = static_cast<uInt>(n);
      fed += n;
    }
    if (s->avail_in == 0 && !in_member) break;
    s->next_out = reinterpret_cast<Bytef*>(chunk);
    s->avail_out = sizeof(chunk);
    const int rc = inflate(s, Z_NO_FLUSH);
    data.append(chunk, sizeof(chunk) - s->avail_out);
    if (static_cast<int64_t>(data.size()) > max_bytes) {
      return Status::InvalidArgument("the decompressed data is longer than " +
                                     std::to_string(max_bytes) + " bytes");
    }
    if (rc == Z_STREAM_END) {
      in_member = false;
      if (s->avail_in > 0 || fed < compressed.size()) {
        if (inflateReset(s) != Z_OK) return Status::Internal("zlib cannot restart");
        in_member = true;
      }
      continue;
    }
    if (rc == Z_BUF_ERROR) {  // no progress possible: the input is used up (refilled above)
      return Status::Corruption("truncated gzip data: it ends after " +
                                std::to_string(compressed.size()) +
                                " bytes, before its compressed stream does");
    }
    if (rc != Z_OK) {
      return Status::Corruption(std::string("damaged gzip data: ") +
                                (s->msg != nullptr ? s->msg : "zlib error " + std::to_string(rc)));
    }
  }
  *out = std::move(data);
  return Status::Ok();
}

}  // namespace petname::data
