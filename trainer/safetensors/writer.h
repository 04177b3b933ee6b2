// A writer of the safetensors format (https://github.com/huggingface/safetensors); no LibTorch.
// The file is:
//
//   8 bytes   N, the header's length, unsigned 64-bit little-endian
//   N bytes   a JSON object: for every tensor "NAME": {"dtype": "F32", "shape": [...],
//             "data_offsets": [BEGIN, END]} (byte offsets into the data, END exclusive), and
//             "__metadata__": {string: string}; padded with spaces so that 8 + N is a
//             multiple of 8
//   data      the tensors' values, row-major, little-endian (dtype.h), one tensor after the
//             other in the order given, no gaps
//
// Encoding is pure: the caller writes the bytes (atomically, common/file_util.h). reader.h
// reads such a file back.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "trainer/safetensors/dtype.h"

namespace petname::safetensors {

// One tensor as the caller holds it.
struct TensorData {
  std::string name;
  Dtype dtype = Dtype::kF32;
  std::vector<int64_t> shape;  // empty: a scalar (one value)
  std::string_view bytes;      // row-major little-endian values, as many as the shape's product
};

// Encodes `tensors` and `metadata` into `*out`. InvalidArgument for an empty, repeated or
// reserved ("__metadata__") name, a negative dimension, or bytes that do not fill the shape.
Status EncodeSafetensors(const std::vector<TensorData>& tensors,
                         const std::map<std::string, std::string>& metadata, std::string* out);

}  // namespace petname::safetensors
