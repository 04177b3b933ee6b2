#include "operator/api/fields.h"

#include <cmath>

#include "operator/kube/time.h"

namespace petname::api::fields {

std::string String(const Json& obj, const char* key) {
  auto it = obj.find(key);
  return it != obj.end() && it->is_string() ? it->get<std::string>() : "";
}

int64_t Int(const Json& obj, const char* key) {
  auto it = obj.find(key);
  return it != obj.end() && it->is_number_integer() ? it->get<int64_t>() : 0;
}

std::optional<double> Number(const Json& obj, const char* key) {
  auto it = obj.find(key);
  if (it == obj.end() || !it->is_number()) return std::nullopt;
  return it->get<double>();
}

std::optional<int64_t> Time(const Json& obj, const char* key) {
  int64_t t = 0;
  if (!kube::ParseTime(String(obj, key), &t)) return std::nullopt;
  return t;
}

void PutNumber(Json* obj, const char* key, const std::optional<double>& v) {
  if (v && std::isfinite(*v)) (*obj)[key] = *v;
}

void PutTime(Json* obj, const char* key, const std::optional<int64_t>& t) {
  if (t) (*obj)[key] = kube::FormatTime(*t);
}

}  // namespace petname::api::fields
