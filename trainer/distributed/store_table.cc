#include "trainer/distributed/store_table.h"

#include <cerrno>
#include <cstdlib>

namespace petname::dist::store {
namespace {

Reply Error(std::string why) { return Reply{Code::kError, std::move(why), 0}; }

// A kAdd counter's value: a decimal integer, as TCPStore keeps it.
bool ParseCounter(const std::string& text, int64_t* out) {
  if (text.empty() || text.size() > 20) return false;
  errno = 0;
  char* end = nullptr;
  const long long v = std::strtoll(text.c_str(), &end, 10);
  if (errno != 0 || end != text.c_str() + text.size()) return false;
  *out = v;
  return true;
}

}  // namespace

bool Table::Ready(const std::vector<std::string>& keys) const {
  for (const std::string& key : keys) {
    if (values_.count(key) == 0) return false;
  }
  return true;
}

bool Table::Put(const std::string& key, const std::string& value, Reply* reply) {
  auto it = values_.find(key);
  const size_t old = it == values_.end() ? 0 : key.size() + it->second.size();
  const size_t after = bytes_ - old + key.size() + value.size();
  if (after > max_bytes_) {
    *reply = Error("the store would hold " + std::to_string(after) + " bytes, over its limit of " +
                   std::to_string(max_bytes_));
    return false;
  }
  bytes_ = after;
  values_[key] = value;
  return true;
}

Reply Table::Apply(const Request& request) {
  static const std::string kNoKey;
  Reply reply;
  const std::string& key = request.keys.empty() ? kNoKey : request.keys[0];
  auto it = values_.find(key);
  switch (request.op) {
    case Op::kSet:
      Put(key, request.value, &reply);
      return reply;
    case Op::kGet:
      if (it == values_.end()) return Reply{Code::kMissing, "", 0};
      reply.value = it->second;
      return reply;
    case Op::kAdd: {
      int64_t sum = 0;
      if (it != values_.end() && !ParseCounter(it->second, &sum)) {
        return Error("key " + key + " does not hold a number");
      }
      if (__builtin_add_overflow(sum, request.number, &sum)) {
        return Error("key " + key + " would overflow");
      }
      if (Put(key, std::to_string(sum), &reply)) reply.number = sum;
      return reply;
    }
    case Op::kCompareSet:
      if (it == values_.end() && !request.expected.empty()) {
        reply.value = request.expected;
      } else if (it == values_.end() || it->second == request.expected) {
        if (Put(key, request.value, &reply)) reply.value = request.value;
      } else {
        reply.value = it->second;
      }
      return reply;
    case Op::kDelete:
      reply.number = it == values_.end() ? 0 : 1;
      if (it != values_.end()) {
        bytes_ -= key.size() + it->second.size();
        values_.erase(it);
      }
      return reply;
    case Op::kCheck:
      reply.number = Ready(request.keys) ? 1 : 0;
      return reply;
    case Op::kNumKeys:
      reply.number = static_cast<int64_t>(values_.size());
      return reply;
    case Op::kWait:
      if (!Ready(request.keys)) reply.code = Code::kMissing;
      return reply;
  }
  return Error("unknown operation");
}

}  // namespace petname::dist::store
