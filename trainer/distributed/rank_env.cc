#include "trainer/distributed/rank_env.h"

#include <cstdlib>
#include <limits>

namespace petname::dist {
namespace {

// Parses a whole decimal number; false on empty input, junk or overflow.
bool ParseInt(const std::string& text, int* out) {
  if (text.empty()) return false;
  size_t i = (text[0] == '-' || text[0] == '+') ? 1 : 0;
  if (i == text.size()) return false;
  long long value = 0;
  for (; i < text.size(); ++i) {
    if (text[i] < '0' || text[i] > '9') return false;
    value = value * 10 + (text[i] - '0');
    if (value > std::numeric_limits<int>::max()) return false;
  }
  *out = text[0] == '-' ? -static_cast<int>(value) : static_cast<int>(value);
  return true;
}

// The first set variable among `names`, or nullptr; *used receives its name.
const char* FirstSet(const EnvLookup& env, std::initializer_list<const char*> names,
                     std::string* used) {
  for (const char* name : names) {
    const char* value = env(name);
    if (value != nullptr) {
      *used = name;
      return value;
    }
  }
  return nullptr;
}

Status ReadInt(const EnvLookup& env, std::initializer_list<const char*> names,
               const std::optional<int>& flag, const char* flag_name, int* out,
               std::string* source) {
  if (flag) {
    *out = *flag;
    *source = flag_name;
    return Status::Ok();
  }
  const char* value = FirstSet(env, names, source);
  if (value == nullptr) return Status::Ok();
  if (!ParseInt(value, out)) {
    return Status::InvalidArgument(*source + "='" + value + "' is not a whole number");
  }
  return Status::Ok();
}

// kInvalidArgument "SOURCE=VALUE WANT" unless `ok`.
Status Check(bool ok, const std::string& source, int value, const std::string& want) {
  if (ok) return Status::Ok();
  return Status::InvalidArgument(source + "=" + std::to_string(value) + " " + want);
}

std::string Below(int n) { return "must be in [0, " + std::to_string(n) + ")"; }

constexpr const char* kNotAPort = "is not a port (1..65535)";

}  // namespace

EnvLookup ProcessEnv() {
  return [](const char* name) -> const char* { return std::getenv(name); };
}

Status ParseRankConfig(const EnvLookup& env, const RankOverrides& flags, RankConfig* out) {
  RankConfig config;
  std::string addr_source;
  if (flags.master_addr) {
    config.master_addr = *flags.master_addr;
    addr_source = "--master-addr";
  } else if (const char* addr = FirstSet(env, {"MASTER_ADDR", "PET_MASTER_ADDR"}, &addr_source)) {
    config.master_addr = addr;
  }
  if (config.master_addr.empty()) {
    return Status::InvalidArgument(addr_source + " is empty");
  }

  std::string port_source = "MASTER_PORT", world_source = "WORLD_SIZE", rank_source = "RANK",
              local_source = "LOCAL_RANK";
  PETNAME_RETURN_IF_ERROR(ReadInt(env, {"MASTER_PORT", "PET_MASTER_PORT"}, flags.master_port,
                                  "--master-port", &config.master_port, &port_source));
  PETNAME_RETURN_IF_ERROR(ReadInt(env, {"WORLD_SIZE", "PET_NNODES"}, flags.world_size,
                                  "--world-size", &config.world_size, &world_source));
  PETNAME_RETURN_IF_ERROR(
      ReadInt(env, {"RANK", "PET_NODE_RANK"}, flags.rank, "--rank", &config.rank, &rank_source));
  PETNAME_RETURN_IF_ERROR(ReadInt(env, {"LOCAL_RANK"}, flags.local_rank, "--local-rank",
                                  &config.local_rank, &local_source));

  const int port = config.master_port, world = config.world_size;
  PETNAME_RETURN_IF_ERROR(Check(port >= 1 && port <= 65535, port_source, port, kNotAPort));
  PETNAME_RETURN_IF_ERROR(Check(world >= 1, world_source, world, "must be at least 1"));
  PETNAME_RETURN_IF_ERROR(
      Check(config.rank >= 0 && config.rank < world, rank_source, config.rank, Below(world)));
  PETNAME_RETURN_IF_ERROR(Check(config.local_rank >= 0 && config.local_rank < world, local_source,
                                config.local_rank, Below(world)));
  *out = config;
  return Status::Ok();
}

Status CudaDeviceIndex(const RankConfig& rank, int visible_gpus, int* index) {
  if (rank.local_rank >= visible_gpus) {
    return Status::FailedPrecondition(
        "--device cuda: local rank " + std::to_string(rank.local_rank) + " needs GPU " +
        std::to_string(rank.local_rank) + " but " + std::to_string(visible_gpus) +
        (visible_gpus == 1 ? " is" : " are") + " visible");
  }
  *index = rank.local_rank;
  return Status::Ok();
}

Status ParseNodeLayout(const EnvLookup& env, const NodeOverrides& flags, NodeLayout* out) {
  NodeLayout layout;
  std::string nnodes_source = "--nnodes", rank_source = "--node-rank", addr_source,
              port_source = "MASTER_PORT";
  PETNAME_RETURN_IF_ERROR(
      ReadInt(env, {"PET_NNODES"}, flags.nnodes, "--nnodes", &layout.nnodes, &nnodes_source));
  PETNAME_RETURN_IF_ERROR(ReadInt(env, {"PET_NODE_RANK"}, flags.node_rank, "--node-rank",
                                  &layout.node_rank, &rank_source));
  const int nnodes = layout.nnodes, node_rank = layout.node_rank;
  PETNAME_RETURN_IF_ERROR(Check(nnodes >= 1, nnodes_source, nnodes, "must be at least 1"));
  PETNAME_RETURN_IF_ERROR(
      Check(node_rank >= 0 && node_rank < nnodes, rank_source, node_rank, Below(nnodes)));
  const char* addr = nullptr;
  if (flags.master_addr) {
    addr = flags.master_addr->c_str();
    addr_source = "--master-addr";
  } else {
    addr = FirstSet(env, {"MASTER_ADDR", "PET_MASTER_ADDR"}, &addr_source);
  }
  if (addr == nullptr) {
    PETNAME_RETURN_IF_ERROR(Check(nnodes == 1, nnodes_source, nnodes,
                                  "needs the master's address (MASTER_ADDR or --master-addr)"));
    *out = layout;
    return Status::Ok();
  }
  if (*addr == '\0') return Status::InvalidArgument(addr_source + " is empty");
  layout.shared_master = true;
  layout.master_addr = addr;
  layout.master_port = kDefaultMasterPort;
  PETNAME_RETURN_IF_ERROR(ReadInt(env, {"MASTER_PORT", "PET_MASTER_PORT"}, flags.master_port,
                                  "--master-port", &layout.master_port, &port_source));
  const int port = layout.master_port;
  PETNAME_RETURN_IF_ERROR(Check(port >= 1 && port <= 65535, port_source, port, kNotAPort));
  *out = layout;
  return Status::Ok();
}

bool ParseBackend(const std::string& name, Backend* out) {
  if (name == "gloo") {
    *out = Backend::kGloo;
    return true;
  }
  if (name == "nccl") {
    *out = Backend::kNccl;
    return true;
  }
  return false;
}

Status ChooseBackend(const EnvLookup& env, const std::string& flag, const std::string& device,
                     Backend* out, std::string* source) {
  if (!flag.empty()) {
    if (!ParseBackend(flag, out)) {
      return Status::InvalidArgument("--backend must be gloo or nccl, not '" + flag + "'");
    }
    *source = "--backend " + flag;
    return Status::Ok();
  }
  const char* value = env("PETNAME_BACKEND");
  if (value != nullptr && *value != '\0') {
    if (!ParseBackend(value, out)) {
      return Status::InvalidArgument(std::string("PETNAME_BACKEND='") + value +
                                     "' is not a backend: gloo or nccl (a job's spec.backend)");
    }
    *source = std::string("PETNAME_BACKEND=") + value;
    return Status::Ok();
  }
  *out = device == "cuda" ? Backend::kNccl : Backend::kGloo;
  *source = device == "cuda" ? "--backend nccl" : "--backend gloo";  // the flag's default
  return Status::Ok();
}

Status RendezvousSecret(const EnvLookup& env, std::string* out) {
  const char* secret = env("PETNAME_RENDEZVOUS_SECRET");
  *out = secret != nullptr ? secret : "";
  if (out->empty() && env("PETNAME_JOB_UID") != nullptr) {
    return Status::InvalidArgument(
        "PETNAME_RENDEZVOUS_SECRET is empty or unset, but PETNAME_JOB_UID says the operator "
        "started this rank, and it always passes the job's rendezvous Secret: refusing to join an "
        "unauthenticated rendezvous");
  }
  return Status::Ok();
}

}  // namespace petname::dist
