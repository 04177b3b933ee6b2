#include "trainer/data/data_file.h"

#include "common/untrusted_file.h"
#include "trainer/data/gzip.h"

namespace petname::data {
namespace {

// Replaces `*contents` (the bytes of the gzip file `path`) by its decompressed data.
Status Decompress(const std::string& path, int64_t max_bytes, std::string* contents) {
  std::string text;
  Status st = Gunzip(*contents, max_bytes, &text);
  if (st.code() == Status::Code::kInvalidArgument) {
    return Status::InvalidArgument("data file " + path +
                                   " is gzip-compressed and decompresses to more than "
                                   "--max-data-bytes " +
                                   std::to_string(max_bytes) + " bytes");
  }
  if (st.code() == Status::Code::kCorruption) {
    return Status::Corruption("data file " + path + ": " + st.message());
  }
  PETNAME_RETURN_IF_ERROR(st);
  *contents = std::move(text);
  return Status::Ok();
}

}  // namespace

Status ReadDataFile(const std::string& path, int64_t max_bytes, DataFileContents* out) {
  UntrustedFileRules rules;
  rules.max_bytes = max_bytes;
  rules.what = "data path";
  rules.limit = "--max-data-bytes";
  std::string contents;
  PETNAME_RETURN_IF_ERROR(ReadUntrustedFile(path, rules, &contents));
  out->gzipped = IsGzip(contents);
  if (out->gzipped) PETNAME_RETURN_IF_ERROR(Decompress(path, max_bytes, &contents));
  out->text = std::move(contents);
  return Status::Ok();
}

}  // namespace petname::data
