// Gzip-compressed data (RFC 1952), recognised by its content: a gzip stream starts with the
// magic bytes 1f 8b, whatever the file is called. Decompression is bounded: it stops as soon
// as the output passes a cap, so a small file that expands enormously (a "gzip bomb") is
// refused after at most the cap plus one 64 KiB chunk of output. Concatenated members
// (`cat a.gz b.gz`) decompress to the concatenation of their contents, as gunzip does.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "common/status.h"

namespace petname::data {

// True when `bytes` starts with the gzip magic bytes 1f 8b.
bool IsGzip(std::string_view bytes);

// Decompresses the gzip stream `compressed` into `*out` (left unchanged on failure).
// InvalidArgument when the output would be longer than `max_bytes`; Corruption when the stream
// is damaged (naming zlib's reason: a bad header, block or checksum, bytes after a member that
// are not another member) or truncated (it ends before its last member does).
Status Gunzip(std::string_view compressed, int64_t max_bytes, std::string* out);

}  // namespace petname::data
