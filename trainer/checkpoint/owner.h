// Whose checkpoints these are. Several runs may point at one checkpoint directory (jobs sharing
// a claim without checkpoint.subPath, a copied command line); each manifest records its owner
// and the settings that define the run, and a run resumes, replaces, prunes and cleans up only
// what it owns. Pure (no LibTorch, no files).
//
// Identity: `--run-id ID` gives "run ID"; else PETNAME_JOB_UID (set by the operator with
// PETNAME_JOB_NAME and PETNAME_NAMESPACE) gives "job NAMESPACE/NAME" (uid kept for messages: a
// job deleted and created again under its name is the same run, as long as its settings match);
// else the run is anonymous and the caller takes the owner of the directory's newest checkpoint,
// or a new random "run ID" for an empty directory (a plain `petname train` then `--resume` keeps
// working as it always has).
//
// Checkpoints without an owner (written by an older petname) belong to whoever uses them.
#pragma once

#include <functional>
#include <set>
#include <string>

#include "common/status.h"
#include "trainer/checkpoint/manifest.h"

namespace petname::checkpoint {

// Returns the value of an environment variable, or nullptr when it is unset.
using OwnerEnv = std::function<const char*(const char* name)>;

// The owner named by `run_id` (may be empty) or the environment; an empty id when neither says.
// InvalidArgument naming the flag or variable: a run id that is empty, longer than 63
// characters or not [A-Za-z0-9._-]; PETNAME_JOB_UID set without PETNAME_JOB_NAME or
// PETNAME_NAMESPACE.
Status OwnerFromEnvironment(const OwnerEnv& env, const std::string& run_id, bool run_id_given,
                            Owner* out);

// "job default/demo (uid 7f3c...)", "run a1", or "an older petname (no owner recorded)".
std::string DescribeOwner(const Owner& owner);

// Whether a checkpoint of `have` may be touched (resumed, replaced, pruned) by `owner`.
bool BelongsTo(const Owner& have, const Owner& owner);

// The part of a staging directory's name that says whose it is: "o" + 12 hex digits of the
// sha256 of the owner's id. Staging names are ".staging-epoch-NNNNNN-TAG-XXXXXX".
std::string StagingTag(const Owner& owner);

// Whether the directory entry `name` in a checkpoint root is a staging directory (or one moved
// aside while replacing, ".replaced") that the owner with `tag` may remove: its own, or one
// without a tag (written by an older petname).
bool StagingBelongsTo(const std::string& name, const std::string& tag);

struct ResumeChoice {
  bool adopt = false;  // --adopt-checkpoints: take another owner's checkpoints, settings and all
  bool force = false;  // --force-resume: other data is accepted (manifest.h, CheckResumable)
};

// Whether the run `want` may continue from the checkpoint `have` in `dir`, as far as owners and
// settings go (CheckResumable decides the model shape and data). FailedPrecondition with one
// line: another owner (naming both and the flags that resolve it), or the same owner with other
// settings (naming the first differing one; data settings are accepted with `force`).
Status CheckOwner(const Manifest& have, const Manifest& want, const ResumeChoice& choice,
                  const std::string& dir);

// Why a run of `owner` cannot resume from `dir`, where no checkpoint verifies with the job's key
// (manifest_mac.h) and the newest names `claimed` as its owner (unverified): FailedPrecondition
// naming both when `claimed` is another owner (another job's directory, whose checkpoints are
// signed with that job's secret), else Ok (the damage is the error).
Status CheckClaimedOwner(const Owner& claimed, const Owner& owner, const std::string& dir);

// The settings that --force-resume allows to differ (the data a run trains on).
const std::set<std::string>& DataSettings();

}  // namespace petname::checkpoint
