// Typed-enough accessors for Kubernetes objects held as nlohmann::json: metadata fields, keys,
// label matching and owner references. Missing fields read as empty, never throw.
#pragma once

#include <map>
#include <string>

#include <nlohmann/json.hpp>

namespace petname::kube {

using Json = nlohmann::json;

// The string at `pointer` (e.g. "/metadata/name"), or "" when absent or not a string.
std::string StringAt(const Json& obj, const char* pointer);
// The integer at `pointer`, or `fallback` when absent or not a number.
int64_t IntAt(const Json& obj, const char* pointer, int64_t fallback);

std::string Name(const Json& obj);
std::string Namespace(const Json& obj);
std::string Uid(const Json& obj);
std::string ResourceVersion(const Json& obj);
// "namespace/name" (just "name" for cluster-scoped objects): the work-queue key.
std::string Key(const std::string& ns, const std::string& name);
std::string Key(const Json& obj);

// The value of label `key`, or "" when unset.
std::string Label(const Json& obj, const std::string& key);
// True when every selector label is set on obj to the same value.
bool MatchesLabels(const Json& obj, const std::map<std::string, std::string>& selector);
// "k1=v1,k2=v2": the labelSelector query form.
std::string SelectorString(const std::map<std::string, std::string>& selector);

// The uid of obj's ownerReference with controller: true, or "".
std::string ControllerUid(const Json& obj);
// True when obj has an ownerReference with controller: true and the given uid.
bool IsControlledBy(const Json& obj, const std::string& owner_uid);

// A metav1 ownerReference (controller: true, blockOwnerDeletion: true) to `owner`.
Json ControllerRef(const Json& owner);

}  // namespace petname::kube
