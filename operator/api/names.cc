#include "operator/api/names.h"

namespace petname::api {
namespace {

bool IsLower(char c) { return c >= 'a' && c <= 'z'; }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }

}  // namespace

bool IsDns1035Label(const std::string& name) {
  if (name.empty() || name.size() > 63 || !IsLower(name.front())) return false;
  if (!IsLower(name.back()) && !IsDigit(name.back())) return false;
  for (char c : name) {
    if (!IsLower(c) && !IsDigit(c) && c != '-') return false;
  }
  return true;
}

Status CheckObjectName(const std::string& name, size_t max_length) {
  if (!IsDns1035Label(name)) {
    return Status::InvalidArgument(
        "metadata.name \"" + name +
        "\" must be a DNS-1035 label (lowercase letters, digits and '-', starting with a letter "
        "and ending with a letter or digit): Service names, pod names and hostnames are made from "
        "it");
  }
  if (name.size() > max_length) {
    return Status::InvalidArgument("metadata.name \"" + name + "\" must be at most " +
                                   std::to_string(max_length) +
                                   " characters so that the names derived from it stay valid");
  }
  return Status::Ok();
}

}  // namespace petname::api
