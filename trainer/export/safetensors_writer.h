// A writer of the safetensors format (https://github.com/huggingface/safetensors), float32
// tensors only; no LibTorch. The file is:
//
//   8 bytes   N, the header's length, unsigned 64-bit little-endian
//   N bytes   a JSON object: for every tensor "NAME": {"dtype": "F32", "shape": [...],
//             "data_offsets": [BEGIN, END]} (byte offsets into the data, END exclusive), and
//             "__metadata__": {string: string}; padded with spaces so that 8 + N is a
//             multiple of 8
//   data      the tensors' values, row-major, 4-byte little-endian IEEE 754 floats, one
//             tensor after the other in the order given, no gaps
//
// Encoding is pure: the caller writes the bytes (atomically, common/file_util.h).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "common/status.h"

namespace petname::exporter {

struct F32Tensor {
  std::string name;
  std::vector<int64_t> shape;  // empty: a scalar (one value)
  std::vector<float> values;   // row-major; as many as the shape's product
};

// Encodes `tensors` and `metadata` into `*out`. InvalidArgument for an empty, repeated or
// reserved ("__metadata__") name, a negative dimension, or values that do not fill the shape.
Status EncodeSafetensors(const std::vector<F32Tensor>& tensors,
                         const std::map<std::string, std::string>& metadata, std::string* out);

}  // namespace petname::exporter
