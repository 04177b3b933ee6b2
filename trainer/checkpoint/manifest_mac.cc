#include "trainer/checkpoint/manifest_mac.h"

#include <nlohmann/json.hpp>

#include "common/sha256.h"

namespace petname::checkpoint {
namespace {

constexpr const char* kMacMember = "mac";
constexpr const char* kDomain = "petname checkpoint manifest\n";

}  // namespace

Status CheckpointKeyFromEnvironment(const OwnerEnv& env, std::string* key) {
  key->clear();
  if (env("PETNAME_JOB_UID") == nullptr) return Status::Ok();
  const char* secret = env("PETNAME_RENDEZVOUS_SECRET");
  if (secret == nullptr || *secret == '\0') {
    return Status::InvalidArgument(
        "PETNAME_RENDEZVOUS_SECRET is empty or unset, but PETNAME_JOB_UID says the operator runs "
        "this job, whose checkpoints are signed with it");
  }
  *key = secret;
  return Status::Ok();
}

std::string ManifestMac(const nlohmann::json& j, const std::string& key) {
  nlohmann::json unsigned_copy = j;
  unsigned_copy.erase(kMacMember);
  return HmacSha256Hex(key, kDomain + unsigned_copy.dump());
}

Status CheckManifestMac(const nlohmann::json& j, const std::string& key) {
  if (key.empty()) return Status::Ok();
  const auto mac = j.find(kMacMember);
  if (mac == j.end() || !mac->is_string()) {
    return Status::Corruption("manifest.json is not signed with this job's key");
  }
  if (!EqualInConstantTime(mac->get<std::string>(), ManifestMac(j, key))) {
    return Status::Corruption("manifest.json's mac does not verify with this job's key");
  }
  return Status::Ok();
}

std::string DescribeCheckpoint(const std::string& dir, const Manifest& manifest,
                               const std::string& key) {
  const char* signature = !manifest.is_signed ? "not signed"
                          : key.empty()       ? "signed, not checked (no job key here)"
                                              : "signed with this job's key";
  return "checkpoint " + dir + " (epoch " + std::to_string(manifest.epoch) + ") of " +
         DescribeOwner(manifest.owner) + ", " + signature;
}

}  // namespace petname::checkpoint
