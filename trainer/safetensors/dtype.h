// The element types of safetensors files that petname writes and reads: the names the format
// gives them and their sizes in bytes. Pure.
#pragma once

#include <cstddef>

namespace petname::safetensors {

enum class Dtype {
  kF32,  // "F32": IEEE 754 single precision (parameters, Adam's moments)
  kI64,  // "I64": signed 64-bit integer (Adam's step count)
  kU8,   // "U8": byte (the random generator's state)
};

struct DtypeInfo {
  const char* name;
  size_t size;
};

// Indexed by Dtype.
inline constexpr DtypeInfo kDtypes[] = {{"F32", 4}, {"I64", 8}, {"U8", 1}};

inline const char* DtypeName(Dtype dtype) { return kDtypes[static_cast<size_t>(dtype)].name; }

inline size_t DtypeSize(Dtype dtype) { return kDtypes[static_cast<size_t>(dtype)].size; }

}  // namespace petname::safetensors
