// Whose checkpoints a `petname train` run writes and resumes (checkpoint/owner.h): --run-id,
// the operator's PETNAME_JOB_* environment, or, for an anonymous run, the owner of the newest
// checkpoint in --checkpoint-dir (a fresh random run id when there is none); and
// --adopt-checkpoints, which resumes another owner's checkpoints (or other settings) anyway.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "common/status.h"
#include "trainer/train/train.h"

namespace petname::cli {

struct OwnerFlags {
  std::string run_id;
  CLI::Option* run_id_option = nullptr;
};

void AddOwnerFlags(CLI::App* train, OwnerFlags* flags, train::TrainOptions* options);

// Sets options->owner and options->checkpoint_key. Errors: kInvalidArgument naming the flag or
// variable (OwnerFromEnvironment, CheckpointKeyFromEnvironment).
Status ResolveOwner(const OwnerFlags& flags, train::TrainOptions* options);

}  // namespace petname::cli
