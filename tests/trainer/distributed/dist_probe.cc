// A small real data-parallel trainer for the integration tests: CharLstm on fixed random
// data, the sharded sampler, GradSync and the stop vote, run as real ranks either directly
// (rank from the environment) or through the launcher (--nproc N). Each rank writes its
// final parameters (raw fp32) and the examples it saw into --out; tests compare them.
// Fault injection: --die (SIGKILL itself), --stall (sleep inside the step), --term (SIGTERM
// itself), each at a given rank and step.
#include <CLI/CLI.hpp>

#include <torch/torch.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <fstream>
#include <thread>

#include "trainer/data/sampler.h"
#include "trainer/distributed/communicator.h"
#include "trainer/distributed/grad_sync.h"
#include "trainer/distributed/rank_env.h"
#include "trainer/distributed/sampler.h"
#include "trainer/distributed/stop_signal.h"
#include "trainer/launch/launcher.h"
#include "trainer/model/model.h"

namespace {

using namespace petname;

struct Fault {
  int rank = -1;
  int step = -1;
  bool Now(int rank_now, int step_now) const { return rank == rank_now && step == step_now; }
};

struct ProbeFlags {
  int nproc = 0;
  int steps = 4;
  int batch = 4;
  int examples = 60;
  std::string out;
  bool no_overlap = false;
  bool coverage = false;
  size_t bucket_bytes = 8192;
  int collective_timeout_ms = 30000;
  int rendezvous_timeout_ms = 30000;
  int grace_ms = 2000;
  Fault die, stall, term;
};

void WriteParams(const std::string& path, const model::CharLstm& net) {
  std::vector<torch::Tensor> flat;
  for (const auto& p : net->parameters()) flat.push_back(p.detach().reshape(-1));
  torch::Tensor c = torch::cat(flat);
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char*>(c.data_ptr<float>()), c.numel() * sizeof(float));
}

int RunRank(const ProbeFlags& f) {
  dist::RankConfig rank;
  Status st = dist::ParseRankConfig(dist::ProcessEnv(), {}, &rank);
  if (!st.ok()) {
    std::fprintf(stderr, "dist_probe: %s\n", st.message().c_str());
    return st.ExitCode();
  }
  dist::InstallStopHandler();
  torch::set_num_threads(1);
  dist::CommOptions comm_options;
  comm_options.rendezvous_timeout = std::chrono::milliseconds(f.rendezvous_timeout_ms);
  comm_options.collective_timeout = std::chrono::milliseconds(f.collective_timeout_ms);
  std::unique_ptr<dist::Communicator> comm;
  st = dist::Communicator::Connect(rank, comm_options, &comm);
  if (!st.ok()) {
    std::fprintf(stderr, "dist_probe: %s\n", st.message().c_str());
    return st.ExitCode();
  }

  torch::manual_seed(7);
  torch::Tensor data = torch::randint(0, 31, {f.examples, 9}, torch::kLong);
  torch::manual_seed(100 + rank.rank);  // ranks start different; the broadcast fixes that
  model::ModelOptions model_options;
  model_options.hidden_size = 24;
  model_options.num_layers = 2;
  model::CharLstm net(model_options);
  st = comm->BroadcastFromRank0(net->parameters());
  dist::GradSyncOptions sync_options;
  sync_options.bucket_bytes = f.bucket_bytes;
  sync_options.overlap = !f.no_overlap;
  dist::GradSync sync(comm.get(), net->parameters(), sync_options);
  torch::optim::Adam adam(net->parameters(), torch::optim::AdamOptions(1e-2));
  if (rank.rank == 0) std::printf("buckets %zu\n", sync.num_buckets());

  auto epoch_shard = [&](int64_t epoch) {
    return dist::ShardIndices(data::EpochPermutation(3, epoch, f.examples), 0, rank.world_size,
                              rank.rank, false);
  };
  std::vector<int64_t> shard = epoch_shard(0);
  const int64_t per_epoch = static_cast<int64_t>(shard.size());
  const int steps = f.coverage ? static_cast<int>((per_epoch + f.batch - 1) / f.batch) : f.steps;
  std::vector<int64_t> seen;
  int step = 0;
  for (; st.ok() && step < steps; ++step) {
    if (f.die.Now(rank.rank, step)) std::raise(SIGKILL);
    if (f.term.Now(rank.rank, step)) std::raise(SIGTERM);
    if (f.stall.Now(rank.rank, step)) std::this_thread::sleep_for(std::chrono::hours(1));
    const int64_t epoch = (static_cast<int64_t>(step) * f.batch) / per_epoch;
    const int64_t begin = (static_cast<int64_t>(step) * f.batch) % per_epoch;
    shard = epoch_shard(epoch);
    const int64_t end = std::min<int64_t>(begin + f.batch, per_epoch);
    std::vector<int64_t> batch(shard.begin() + begin, shard.begin() + end);
    seen.insert(seen.end(), batch.begin(), batch.end());
    torch::Tensor rows = data.index_select(0, torch::tensor(batch));

    adam.zero_grad();
    sync.BeginStep(dist::StopRequested());
    torch::Tensor logits = net->forward(rows.narrow(1, 0, 8));
    torch::Tensor loss = torch::nn::functional::cross_entropy(logits.reshape({-1, 31}),
                                                              rows.narrow(1, 1, 8).reshape(-1));
    loss.backward();
    bool stop = false;
    st = sync.FinishStep(&stop);
    if (!st.ok()) break;
    adam.step();
    if (stop) {
      std::ofstream(f.out + "/stop.rank" + std::to_string(rank.rank)) << step << "\n";
      if (rank.rank == 0) WriteParams(f.out + "/checkpoint", net);
      return dist::kExitPreempted;
    }
  }
  if (!st.ok()) {
    std::fprintf(stderr, "dist_probe: %s\n", st.message().c_str());
    return st.ExitCode();
  }
  WriteParams(f.out + "/params.rank" + std::to_string(rank.rank), net);
  std::ofstream seen_file(f.out + "/seen.rank" + std::to_string(rank.rank));
  for (int64_t i : seen) seen_file << i << "\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  ProbeFlags f;
  CLI::App app("dist_probe");
  app.add_option("--nproc", f.nproc);
  app.add_option("--steps", f.steps);
  app.add_option("--batch", f.batch);
  app.add_option("--examples", f.examples);
  app.add_option("--out", f.out)->required();
  app.add_flag("--no-overlap", f.no_overlap);
  app.add_flag("--coverage", f.coverage);
  app.add_option("--bucket-bytes", f.bucket_bytes);
  app.add_option("--collective-timeout-ms", f.collective_timeout_ms);
  app.add_option("--rendezvous-timeout-ms", f.rendezvous_timeout_ms);
  app.add_option("--grace-ms", f.grace_ms);
  app.add_option("--die-rank", f.die.rank);
  app.add_option("--die-step", f.die.step);
  app.add_option("--stall-rank", f.stall.rank);
  app.add_option("--stall-step", f.stall.step);
  app.add_option("--term-rank", f.term.rank);
  app.add_option("--term-step", f.term.step);
  CLI11_PARSE(app, argc, argv);
  if (f.nproc > 0 && std::getenv("WORLD_SIZE") == nullptr) {
    launch::LaunchOptions options;
    options.nproc = f.nproc;
    options.args.assign(argv, argv + argc);
    options.grace = std::chrono::milliseconds(f.grace_ms);
    return launch::RunRanks(options);
  }
  return RunRank(f);
}
