// Where this process sits in a data-parallel job: the torchrun / Kubeflow environment
// contract. Pure (no LibTorch), so it is unit-tested under sanitizers.
//
// Variables read: MASTER_ADDR, MASTER_PORT, WORLD_SIZE, RANK, LOCAL_RANK, and Kubeflow v2's
// PET_MASTER_ADDR, PET_MASTER_PORT, PET_NNODES, PET_NODE_RANK as fallbacks when the
// standard name is unset. A set flag (RankOverrides) wins over both. With nothing set the
// process is a single rank: world 1, rank 0, 127.0.0.1:29500.
//
// Errors are kInvalidArgument (exit 2) and name the offending variable or flag: a value
// that is not a whole number, a port outside 1..65535, WORLD_SIZE < 1, RANK or LOCAL_RANK
// outside [0, WORLD_SIZE).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "common/status.h"

namespace petname::dist {

// The rendezvous port when neither a flag nor the environment names one (torchrun's).
inline constexpr int kDefaultMasterPort = 29500;

struct RankConfig {
  std::string master_addr = "127.0.0.1";
  int master_port = kDefaultMasterPort;
  int world_size = 1;
  int rank = 0;
  int local_rank = 0;
};

// Values given on the command line; unset fields fall back to the environment.
struct RankOverrides {
  std::optional<std::string> master_addr;
  std::optional<int> master_port;
  std::optional<int> world_size;
  std::optional<int> rank;
  std::optional<int> local_rank;
};

// Returns the value of an environment variable, or nullptr when it is unset.
using EnvLookup = std::function<const char*(const char* name)>;

// The process environment (std::getenv).
EnvLookup ProcessEnv();

Status ParseRankConfig(const EnvLookup& env, const RankOverrides& flags, RankConfig* out);

// The CUDA device of a rank: cuda:LOCAL_RANK, as torchrun and Kubeflow's nprocPerNode expect (a
// pod given N GPUs sees them as 0..N-1). kFailedPrecondition naming both numbers when
// `visible_gpus` <= local_rank.
Status CudaDeviceIndex(const RankConfig& rank, int visible_gpus, int* index);

// Where a launcher of local ranks (`petname train --nproc P`) sits, like torchrun's
// --nnodes/--node-rank: `nnodes` launchers (pods, machines) of P ranks each, this one number
// `node_rank`; its ranks are node_rank * P + local of a world of nnodes * P.
struct NodeLayout {
  int nnodes = 1;
  int node_rank = 0;
  bool shared_master = false;  // false: one node whose rank 0 listens on a free local port
  std::string master_addr = "127.0.0.1";
  int master_port = 0;  // 0 unless shared_master
};

struct NodeOverrides {
  std::optional<int> nnodes;
  std::optional<int> node_rank;
  std::optional<std::string> master_addr;
  std::optional<int> master_port;
};

// nnodes: --nnodes, else PET_NNODES (as Kubeflow sets it in every pod), else 1; node_rank:
// --node-rank, else PET_NODE_RANK, else 0. The master is shared (taken from --master-addr /
// --master-port, else MASTER_ADDR / MASTER_PORT, else their PET_* names, port 29500 by default)
// when nnodes > 1 or an address is given; nnodes > 1 without an address is an error, as are
// nnodes < 1 and node_rank outside [0, nnodes). Errors are kInvalidArgument naming the source.
Status ParseNodeLayout(const EnvLookup& env, const NodeOverrides& flags, NodeLayout* out);

// The c10d backend of the process group (communicator.h serves it).
enum class Backend { kGloo, kNccl };

// "gloo" / "nccl" -> Backend; false on an unknown name.
bool ParseBackend(const std::string& name, Backend* out);

// The backend a rank uses: `flag` (--backend) when not empty, else PETNAME_BACKEND (which the
// operator sets from a job's spec.backend) when set and not empty, else nccl for `device`
// "cuda" and gloo otherwise, as PyTorchJob's default. *source says where the choice came from,
// for messages: "PETNAME_BACKEND=nccl", else "--backend NAME" (given or defaulted).
// kInvalidArgument naming the flag or the variable when it is neither gloo nor nccl.
Status ChooseBackend(const EnvLookup& env, const std::string& flag, const std::string& device,
                     Backend* out, std::string* source);

// The rendezvous secret (PETNAME_RENDEZVOUS_SECRET; "" when unset, and then the rendezvous is
// not authenticated). A rank the operator started (PETNAME_JOB_UID set, even to "") must have
// one: the operator always passes the job's Secret, so an empty one means the rank's environment
// was tampered with. kInvalidArgument (exit 2) naming both variables then.
Status RendezvousSecret(const EnvLookup& env, std::string* out);

}  // namespace petname::dist
