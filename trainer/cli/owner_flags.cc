#include "trainer/cli/owner_flags.h"

#include <vector>

#include "common/sha256.h"
#include "trainer/checkpoint/manifest_mac.h"
#include "trainer/checkpoint/owner.h"
#include "trainer/checkpoint/store.h"
#include "trainer/distributed/rank_env.h"

namespace petname::cli {

void AddOwnerFlags(CLI::App* train, OwnerFlags* f, train::TrainOptions* o) {
  f->run_id_option = train->add_option(
      "--run-id", f->run_id,
      "Who this run is, recorded in its checkpoints; a run resumes, replaces and prunes only its "
      "own (default: the operator's job, else the owner of --checkpoint-dir's newest checkpoint)");
  train->add_flag("--adopt-checkpoints", o->adopt_checkpoints,
                  "Resume from another run's checkpoints, or with other settings, and own them");
}

Status ResolveOwner(const OwnerFlags& f, train::TrainOptions* o) {
  const checkpoint::OwnerEnv env = dist::ProcessEnv();
  PETNAME_RETURN_IF_ERROR(checkpoint::CheckpointKeyFromEnvironment(env, &o->checkpoint_key));
  PETNAME_RETURN_IF_ERROR(checkpoint::OwnerFromEnvironment(
      env, f.run_id, f.run_id_option != nullptr && f.run_id_option->count() > 0, &o->owner));
  if (!o->owner.id.empty() || o->checkpoint_dir.empty()) return Status::Ok();
  std::vector<std::string> skipped;
  std::string dir;
  checkpoint::Manifest newest;
  if (checkpoint::FindNewestValid(o->checkpoint_dir, &skipped, &dir, &newest, o->checkpoint_key)
          .ok() &&
      !newest.owner.id.empty()) {
    o->owner = newest.owner;
    return Status::Ok();
  }
  std::string id;
  PETNAME_RETURN_IF_ERROR(RandomHex(6, &id));
  o->owner = {"run " + id, ""};
  return Status::Ok();
}

}  // namespace petname::cli
