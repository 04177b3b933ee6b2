#include "trainer/checkpoint/owner.h"

#include <algorithm>

#include "common/sha256.h"

namespace petname::checkpoint {
namespace {

constexpr size_t kMaxRunId = 63;
constexpr const char* kStagingPrefix = ".staging-";

bool RunIdChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
         c == '_' || c == '-';
}

std::string EnvValue(const OwnerEnv& env, const char* name) {
  const char* v = env(name);
  return v == nullptr ? "" : v;
}

}  // namespace

Status OwnerFromEnvironment(const OwnerEnv& env, const std::string& run_id, bool run_id_given,
                            Owner* out) {
  if (run_id_given) {
    if (run_id.empty() || run_id.size() > kMaxRunId ||
        !std::all_of(run_id.begin(), run_id.end(), RunIdChar)) {
      return Status::InvalidArgument(
          "--run-id must be 1 to 63 characters of letters, digits, '.', '_' or '-'");
    }
    *out = {"run " + run_id, ""};
    return Status::Ok();
  }
  const std::string uid = EnvValue(env, "PETNAME_JOB_UID");
  if (uid.empty()) {
    *out = {};
    return Status::Ok();
  }
  const std::string ns = EnvValue(env, "PETNAME_NAMESPACE");
  const std::string name = EnvValue(env, "PETNAME_JOB_NAME");
  for (const auto& [var, value] :
       {std::pair{"PETNAME_NAMESPACE", ns}, {"PETNAME_JOB_NAME", name}}) {
    if (value.empty()) {
      return Status::InvalidArgument(std::string("environment variable PETNAME_JOB_UID is set "
                                                 "but ") +
                                     var + " is not");
    }
  }
  *out = {"job " + ns + "/" + name, uid};
  return Status::Ok();
}

std::string DescribeOwner(const Owner& owner) {
  if (owner.id.empty()) return "an older petname (no owner recorded)";
  return owner.uid.empty() ? owner.id : owner.id + " (uid " + owner.uid + ")";
}

bool BelongsTo(const Owner& have, const Owner& owner) {
  return have.id.empty() || have.id == owner.id;
}

std::string StagingTag(const Owner& owner) { return "o" + Sha256Hex(owner.id).substr(0, 12); }

bool StagingBelongsTo(const std::string& name, const std::string& tag) {
  const std::string prefix = std::string(kStagingPrefix) + "epoch-";
  constexpr size_t kEpochDigits = 6;
  if (name.rfind(prefix, 0) != 0 || name.size() < prefix.size() + kEpochDigits + 1) return false;
  std::string rest = name.substr(prefix.size() + kEpochDigits + 1);  // after "epoch-NNNNNN-"
  const std::string replaced = ".replaced";
  if (rest.size() > replaced.size() &&
      rest.compare(rest.size() - replaced.size(), replaced.size(), replaced) == 0) {
    rest.resize(rest.size() - replaced.size());
  }
  if (rest.find('-') == std::string::npos) return true;  // untagged: an older petname's
  return rest.rfind(tag + "-", 0) == 0;
}

const std::set<std::string>& DataSettings() {
  static const std::set<std::string> kData = {"data", "validation_fraction", "window"};
  return kData;
}

Status CheckClaimedOwner(const Owner& claimed, const Owner& owner, const std::string& dir) {
  if (BelongsTo(claimed, owner)) return Status::Ok();
  return Status::FailedPrecondition(
      "the checkpoints in " + dir + " belong to " + DescribeOwner(claimed) + ", not to " +
      DescribeOwner(owner) +
      " (none of them is signed with this job's key); give this run its own checkpoint "
      "directory (spec.checkpoint.subPath, or another --checkpoint-dir)");
}

Status CheckOwner(const Manifest& have, const Manifest& want, const ResumeChoice& choice,
                  const std::string& dir) {
  if (choice.adopt) return Status::Ok();
  if (!BelongsTo(have.owner, want.owner)) {
    return Status::FailedPrecondition(
        "the checkpoints in " + dir + " belong to " + DescribeOwner(have.owner) + ", not to " +
        DescribeOwner(want.owner) +
        "; give this run its own checkpoint directory (spec.checkpoint.subPath, or another "
        "--checkpoint-dir), or --adopt-checkpoints to continue from them");
  }
  if (have.settings.empty() || have.settings_sha256 == want.settings_sha256) return Status::Ok();
  const std::string field = FirstDifference(
      have.settings, want.settings, choice.force ? DataSettings() : std::set<std::string>{});
  if (field.empty()) return Status::Ok();
  return Status::FailedPrecondition(
      "the checkpoint in " + dir + " was trained with " + DescribeSetting(have.settings, field) +
      ", this run has " + DescribeSetting(want.settings, field) +
      "; resume with the same settings, or --adopt-checkpoints to continue anyway");
}

}  // namespace petname::checkpoint
