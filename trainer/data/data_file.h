// Reading the training data file as untrusted input: it must be a regular file (after
// following symlinks) of at most a given size, so that a FIFO (which would block forever), a
// device such as /dev/zero (which never ends) or an oversized file is refused with one message
// instead of hanging the trainer or exhausting its memory (read through
// common/untrusted_file.h, messages naming it "data path P").
//
// A gzip-compressed file (recognised by its first bytes, gzip.h, not by its name) is
// decompressed transparently; the size cap bounds the decompressed contents as well as the
// file, so a gzip bomb is refused like an oversized file.
#pragma once

#include <cstdint>
#include <string>

#include "common/status.h"

namespace petname::data {

// The default of --max-data-bytes: 1 GiB (the Seattle table is 3 MB).
inline constexpr int64_t kDefaultMaxDataBytes = int64_t{1} << 30;

struct DataFileContents {
  std::string text;      // the file's bytes; decompressed when the file is gzip-compressed
  bool gzipped = false;  // the file was gzip-compressed
};

// Reads the whole of `path` into `*out`. NotFound when it does not exist; InvalidArgument when
// it is a directory, not a regular file, or larger than `max_bytes` before or after
// decompression (naming --max-data-bytes); Corruption when it is gzip-compressed but damaged or
// truncated; IoError (with the errno) when it cannot be opened or read.
Status ReadDataFile(const std::string& path, int64_t max_bytes, DataFileContents* out);

}  // namespace petname::data
