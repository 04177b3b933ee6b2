// Where a PetNameTrainingJob's outputs go (pure): its checkpoints and the exported model, both in
// the trainer's checkpoint directory (api::CheckpointDir, passed as --checkpoint-dir), on the
// volume spec.checkpoint names.
//
//  - Without spec.checkpoint.claimName the volume is an emptyDir: checkpoints, resume points and
//    the model die with the pods. CheckpointsCondition says so (condition CheckpointsPersistent
//    False, reason EmptyDir; the job status adds one Warning event CheckpointsNotPersistent when it
//    first appears); with a claim it is True, reason PersistentVolumeClaim.
//  - A successful run leaves <checkpoint dir>/model.safetensors. ModelPath is that file as the rank
//    pods see it (status.modelPath); ModelOnClaim, with a claim, the claim and the file's path
//    inside its volume (status.model: the checkpoint subPath, or the job's name, then
//    model.safetensors).
#pragma once

#include <optional>
#include <string>

#include "operator/api/job.h"

namespace petname::controller {

inline constexpr char kModelFile[] = "model.safetensors";

struct ConditionValue {
  bool status = false;
  std::string reason;
  std::string message;
};

ConditionValue CheckpointsCondition(const api::Job& job);

std::string ModelPath(const api::Job& job);

std::optional<api::ModelVolume> ModelOnClaim(const api::Job& job);

}  // namespace petname::controller
