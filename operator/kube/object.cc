#include "operator/kube/object.h"

namespace petname::kube {

std::string StringAt(const Json& obj, const char* pointer) {
  Json::json_pointer ptr(pointer);
  if (!obj.contains(ptr)) return "";
  const Json& v = obj.at(ptr);
  return v.is_string() ? v.get<std::string>() : std::string();
}

int64_t IntAt(const Json& obj, const char* pointer, int64_t fallback) {
  Json::json_pointer ptr(pointer);
  if (!obj.contains(ptr)) return fallback;
  const Json& v = obj.at(ptr);
  return v.is_number() ? v.get<int64_t>() : fallback;
}

std::string Name(const Json& obj) { return StringAt(obj, "/metadata/name"); }
std::string Namespace(const Json& obj) { return StringAt(obj, "/metadata/namespace"); }
std::string Uid(const Json& obj) { return StringAt(obj, "/metadata/uid"); }
std::string ResourceVersion(const Json& obj) { return StringAt(obj, "/metadata/resourceVersion"); }

std::string Key(const std::string& ns, const std::string& name) {
  return ns.empty() ? name : ns + "/" + name;
}

std::string Key(const Json& obj) { return Key(Namespace(obj), Name(obj)); }

std::string Label(const Json& obj, const std::string& key) {
  if (!obj.is_object()) return "";
  auto meta = obj.find("metadata");
  if (meta == obj.end() || !meta->is_object()) return "";
  auto labels = meta->find("labels");
  if (labels == meta->end() || !labels->is_object()) return "";
  auto v = labels->find(key);
  return v != labels->end() && v->is_string() ? v->get<std::string>() : std::string();
}

bool MatchesLabels(const Json& obj, const std::map<std::string, std::string>& selector) {
  for (const auto& [k, v] : selector) {
    if (Label(obj, k) != v) return false;
  }
  return true;
}

std::string SelectorString(const std::map<std::string, std::string>& selector) {
  std::string out;
  for (const auto& [k, v] : selector) {
    if (!out.empty()) out += ",";
    out += v.empty() ? k : k + "=" + v;
  }
  return out;
}

std::string ControllerUid(const Json& obj) {
  Json::json_pointer ptr("/metadata/ownerReferences");
  if (!obj.contains(ptr) || !obj.at(ptr).is_array()) return "";
  for (const Json& ref : obj.at(ptr)) {
    if (ref.is_object() && ref.value("controller", false)) return ref.value("uid", "");
  }
  return "";
}

bool IsControlledBy(const Json& obj, const std::string& owner_uid) {
  Json::json_pointer ptr("/metadata/ownerReferences");
  if (owner_uid.empty() || !obj.contains(ptr) || !obj.at(ptr).is_array()) return false;
  for (const Json& ref : obj.at(ptr)) {
    if (ref.value("uid", "") == owner_uid && ref.value("controller", false)) return true;
  }
  return false;
}

Json ControllerRef(const Json& owner) {
  return {{"apiVersion", owner.value("apiVersion", "")},
          {"kind", owner.value("kind", "")},
          {"name", Name(owner)},
          {"uid", Uid(owner)},
          {"controller", true},
          {"blockOwnerDeletion", true}};
}

}  // namespace petname::kube
