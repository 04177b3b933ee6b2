// The bodies of the rendezvous store's messages (store_protocol.h seals and opens them): requests
// and replies, and the little-endian integers they are built from. Pure (no sockets, no
// LibTorch), unit-tested under sanitizers.
//
// A request names an operation and its keys, values and number (the delta of kAdd, the timeout
// in milliseconds of kWait, 0 for none); a reply has a code, a value and a number. Keys are at
// most kMaxKeyBytes, values at most kMaxValueBytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace petname::dist::store {

inline constexpr size_t kMaxKeyBytes = 4096;
inline constexpr size_t kMaxValueBytes = size_t{1} << 20;
// A body holds at most two values (kCompareSet) and keys up to the rest.
inline constexpr size_t kMaxBodyBytes = 2 * kMaxValueBytes + size_t{64} * 1024;

enum class Op : uint8_t {
  kSet = 1,         // keys[0] = value
  kGet = 2,         // keys[0]'s value, or kMissing
  kAdd = 3,         // keys[0] (a decimal integer, 0 when absent) += number; the sum
  kCompareSet = 4,  // keys[0] = value if it holds `expected` (or is absent and expected is
                    // empty); the value it then holds, or `expected` when absent
  kDelete = 5,      // number 1 when keys[0] existed
  kCheck = 6,       // number 1 when every key exists
  kNumKeys = 7,     // the number of keys
  kWait = 8,        // kOk once every key exists, kTimeout after `number` ms (0: never)
};

struct Request {
  Op op = Op::kGet;
  std::vector<std::string> keys;
  std::string value;
  std::string expected;
  int64_t number = 0;
};

enum class Code : uint8_t { kOk = 1, kMissing = 2, kTimeout = 3, kError = 4 };

struct Reply {
  Code code = Code::kOk;
  std::string value;  // kError: the reason
  int64_t number = 0;
};

// A request of `op` on `keys`, with `value` and `number` (Request's fields).
Request MakeRequest(Op op, std::vector<std::string> keys, std::string value = "",
                    int64_t number = 0);

std::string EncodeRequest(const Request& request);
// False, with *why, for a body that is not a request of a known operation with the keys it
// takes, or whose keys or values are over their limits.
bool DecodeRequest(std::string_view body, Request* request, std::string* why);

std::string EncodeReply(const Reply& reply);
bool DecodeReply(std::string_view body, Reply* reply, std::string* why);

// Appends `v` as 4 little-endian bytes.
void PutU32(uint32_t v, std::string* out);
// The unsigned integer of `bytes`, least significant first (at most 8 of them).
uint64_t LittleEndian(std::string_view bytes);

}  // namespace petname::dist::store
