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

inline const char* DtypeName(Dtype dtype) {
  switch (dtype) {
    case Dtype::kF32:
      return "F32";
    case Dtype::kI64:
      return "I64";
    case Dtype::kU8:
      return "U8";
  }
  return "?";
}

inline size_t DtypeSize(Dtype dtype) {
  switch (dtype) {
    case Dtype::kF32:
      return 4;
    case Dtype::kI64:
      return 8;
    case Dtype::kU8:
      return 1;
  }
  return 0;
}

}  // namespace petname::safetensors
