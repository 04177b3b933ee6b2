#include "operator/jobs/job_outputs.h"

namespace petname::controller {

ConditionValue CheckpointsCondition(const api::Job& job) {
  const std::string dir = api::CheckpointDir(job.spec, job.name);
  if (!job.spec.checkpoint_claim.empty()) {
    return {true, "PersistentVolumeClaim",
            "checkpoints and the exported model are kept on claim " + job.spec.checkpoint_claim +
                " (" + dir + " in the rank pods)"};
  }
  return {false, "EmptyDir",
          "spec.checkpoint.claimName is not set: checkpoints go to an emptyDir (" + dir +
              "), so the trained model (" + kModelFile +
              ") and every resume point are lost when the pods go, and a restarted job starts "
              "from scratch; set spec.checkpoint.claimName to a PersistentVolumeClaim to keep "
              "them"};
}

std::string ModelPath(const api::Job& job) {
  return api::CheckpointDir(job.spec, job.name) + "/" + kModelFile;
}

std::optional<api::ModelVolume> ModelOnClaim(const api::Job& job) {
  if (job.spec.checkpoint_claim.empty()) return std::nullopt;
  const std::string& sub =
      job.spec.checkpoint_sub_path.empty() ? job.name : job.spec.checkpoint_sub_path;
  return api::ModelVolume{job.spec.checkpoint_claim, sub + "/" + kModelFile};
}

}  // namespace petname::controller
