#include "trainer/dist/rank_env.h"

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

  if (config.master_port < 1 || config.master_port > 65535) {
    return Status::InvalidArgument(port_source + "=" + std::to_string(config.master_port) +
                                   " is not a port (1..65535)");
  }
  if (config.world_size < 1) {
    return Status::InvalidArgument(world_source + "=" + std::to_string(config.world_size) +
                                   " must be at least 1");
  }
  if (config.rank < 0 || config.rank >= config.world_size) {
    return Status::InvalidArgument(rank_source + "=" + std::to_string(config.rank) +
                                   " must be in [0, " + std::to_string(config.world_size) + ")");
  }
  if (config.local_rank < 0 || config.local_rank >= config.world_size) {
    return Status::InvalidArgument(local_source + "=" + std::to_string(config.local_rank) +
                                   " must be in [0, " + std::to_string(config.world_size) + ")");
  }
  *out = config;
  return Status::Ok();
}

}  // namespace petname::dist
