#include "operator/api/names.h"

#include <cctype>

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

bool IsDnsSubdomain(const std::string& name) {
  if (name.empty() || name.size() > 253) return false;
  size_t start = 0;
  while (true) {
    const size_t end = name.find('.', start);
    const std::string label = name.substr(start, end - start);
    if (label.empty() || label.size() > 63) return false;
    if (!(IsLower(label.front()) || IsDigit(label.front()))) return false;
    if (!(IsLower(label.back()) || IsDigit(label.back()))) return false;
    for (char c : label) {
      if (!IsLower(c) && !IsDigit(c) && c != '-') return false;
    }
    if (end == std::string::npos) return true;
    start = end + 1;
  }
}

bool IsExtendedResourceName(const std::string& name) {
  const size_t slash = name.find('/');
  if (slash == std::string::npos) return false;
  const std::string domain = name.substr(0, slash);
  const std::string local = name.substr(slash + 1);
  if (!IsDnsSubdomain(domain) || local.empty() || local.size() > 63) return false;
  auto alnum = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; };
  if (!alnum(local.front()) || !alnum(local.back())) return false;
  for (char c : local) {
    if (!alnum(c) && c != '-' && c != '_' && c != '.') return false;
  }
  // Kubernetes takes names in kubernetes.io and its subdomains for its own (native) resources.
  const std::string k8s = "kubernetes.io";
  if (domain == k8s) return false;
  if (domain.size() > k8s.size() &&
      domain.compare(domain.size() - k8s.size() - 1, std::string::npos, "." + k8s) == 0) {
    return false;
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
