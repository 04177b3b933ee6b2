// Reading a safetensors file (writer.h has the layout) as untrusted input: a checkpoint
// directory may hold a file whose header lies about what follows it. The caller says which
// tensors it expects (names, dtypes and shapes: those of its model), so nothing in the file
// sizes an allocation:
//  - the header length is at most kMaxHeaderBytes and within the file; the header is a JSON
//    object (nlohmann_json; "__metadata__", if present, maps strings to strings);
//  - it names exactly the expected tensors, each with the expected dtype and shape and
//    data_offsets [BEGIN, END] spanning exactly the bytes that dtype and shape need;
//  - the tensors tile the data after the header with no gap and no overlap, and the file ends
//    where the last one does.
// The caller reads the file with MaxFileBytes(expected) as its cap (common/untrusted_file.h
// refuses a larger file before reading a byte), so at most the expected tensors' bytes and
// the header cap are ever materialised, whatever the file claims. Pure; no LibTorch.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "trainer/safetensors/dtype.h"

namespace petname::safetensors {

// The largest header read: 1 MiB (a 16-layer model's optimizer state needs about 30 KiB).
inline constexpr uint64_t kMaxHeaderBytes = uint64_t{1} << 20;

// What the caller expects of one tensor.
struct TensorSpec {
  std::string name;
  Dtype dtype = Dtype::kF32;
  std::vector<int64_t> shape;  // empty: a scalar
};

// The bytes `spec`'s tensor occupies: its elements times the dtype's size.
uint64_t TensorBytes(const TensorSpec& spec);

// The largest file that can hold exactly `expected`: 8 + kMaxHeaderBytes + their bytes.
int64_t MaxFileBytes(const std::vector<TensorSpec>& expected);

// Checks the whole file `file` against `expected` (above). On success (*data)[i] holds the
// little-endian bytes of expected[i], a view into `file`. Corruption naming the first problem,
// e.g. "tensor lstm.weight_ih_l0 is F32 [1024, 31], expected F32 [512, 31]" or "header length
// 4294967296 runs past the end of the file (1208 bytes)".
Status ParseSafetensors(std::string_view file, const std::vector<TensorSpec>& expected,
                        std::vector<std::string_view>* data);

}  // namespace petname::safetensors
