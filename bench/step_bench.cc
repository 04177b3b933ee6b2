// step_bench: times the model's training step in isolation (no data loading, no loop).
//
// Each step is forward on a batch of training windows [batch, window], cross-entropy against
// their targets, backward and an Adam(1e-3) update, the same work as one training batch.
// Batches are consecutive slices of a shuffled epoch of the real training examples (--data,
// encoded and split like `petname train`), or with --random uniformly random tokens and
// targets (no shared prefixes, unlike real data). Prints one line: the median milliseconds of
// the whole step and of each phase, the samples/s that the median step gives, the mean
// prefix-forest size of the timed batches over batch*window, and the process's peak RSS.
//
//   step_bench [--impl fast|plain] [--precision fp32|bf16] [--batch 4096] [--threads 2]
//              [--steps 20] [--warmup 3] [--data CSV | --random] [--window 8]
#include <sys/resource.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include "trainer/data/dataset.h"
#include "trainer/data/names.h"
#include "trainer/data/sampler.h"
#include "trainer/model/model.h"
#include "trainer/model/plain_lstm.h"
#include "trainer/model/prefix_forest.h"

namespace {

using Clock = std::chrono::steady_clock;

double Ms(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

double PeakRssMb() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;
}

struct Timings {
  std::vector<double> forward, backward, optimizer, step, forest_fraction;
};

// Inputs and targets [count, window] (uint8, to keep the step's peak RSS apart from the data)
// the steps draw their batches from, in the order drawn.
struct Batches {
  torch::Tensor inputs, targets;

  // Batch s as int64: rows [s * batch, (s + 1) * batch) modulo count (wrapping around).
  std::pair<torch::Tensor, torch::Tensor> Get(int64_t s, int64_t batch) const {
    const int64_t count = inputs.size(0);
    const torch::Tensor rows = torch::arange(s * batch, (s + 1) * batch, torch::kInt64) % count;
    return {inputs.index_select(0, rows).to(torch::kInt64),
            targets.index_select(0, rows).to(torch::kInt64)};
  }
};

torch::Tensor ToTensor(const std::vector<uint8_t>& flat, size_t count, int window) {
  return torch::from_blob(const_cast<uint8_t*>(flat.data()), {static_cast<int64_t>(count), window},
                          torch::kUInt8);
}

// The training split of `path`, shuffled like epoch 1 of `petname train --seed 0`.
bool LoadBatches(const std::string& path, int window, Batches* out) {
  petname::data::NameList names;
  const petname::Status status = petname::data::LoadNames({path, "", 0}, &names);
  if (!status.ok()) {
    std::fprintf(stderr, "step_bench: %s\n", status.ToString().c_str());
    return false;
  }
  petname::data::EncodeOptions encode;
  encode.window = window;
  const petname::data::Dataset data = petname::data::BuildDataset(names.names, encode);
  const auto count = static_cast<int64_t>(data.train.count);
  const std::vector<int64_t> order = petname::data::EpochPermutation(0, 1, count);
  const torch::Tensor index =
      torch::from_blob(const_cast<int64_t*>(order.data()), {count}, torch::kInt64);
  out->inputs = ToTensor(data.train.inputs, data.train.count, window).index_select(0, index);
  out->targets = ToTensor(data.train.targets, data.train.count, window).index_select(0, index);
  return true;
}

double ForestFraction(const torch::Tensor& tokens) {
  const torch::Tensor t = tokens.contiguous();
  const petname::model::PrefixForest f =
      petname::model::BuildPrefixForest(t.data_ptr<int64_t>(), t.size(0), t.size(1));
  return static_cast<double>(f.size()) / static_cast<double>(t.numel());
}

template <typename Model>
Timings Run(Model& model, const Batches& batches, int64_t batch, int steps, int warmup) {
  torch::optim::Adam optimizer(model->parameters(), torch::optim::AdamOptions(1e-3));
  Timings t;
  for (int s = 0; s < warmup + steps; ++s) {
    const auto [tokens, targets] = batches.Get(s, batch);
    const Clock::time_point t0 = Clock::now();
    optimizer.zero_grad();
    torch::Tensor loss = torch::cross_entropy_loss(model->forward(tokens).transpose(1, 2), targets);
    const Clock::time_point t1 = Clock::now();
    loss.backward();
    const Clock::time_point t2 = Clock::now();
    optimizer.step();
    const Clock::time_point t3 = Clock::now();
    if (s < warmup) continue;
    t.forward.push_back(Ms(t0, t1));
    t.backward.push_back(Ms(t1, t2));
    t.optimizer.push_back(Ms(t2, t3));
    t.step.push_back(Ms(t0, t3));
    t.forest_fraction.push_back(ForestFraction(tokens));
  }
  return t;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Times the pet-name model's training step"};
  std::string impl = "fast";
  std::string precision_name = "fp32";
  int64_t batch = 4096;
  int64_t window = 8;
  int threads = 2;
  int steps = 20;
  int warmup = 3;
  const char* env_data = std::getenv("PETNAME_DATA");
  std::string data_path =
      env_data != nullptr && *env_data != '\0' ? env_data : "data/seattle_pet_licenses.csv";
  bool random = false;
  app.add_option("--impl", impl, "fast (CharLstm) or plain (nn::LSTM port)")
      ->check(CLI::IsMember({"fast", "plain"}));
  app.add_option("--precision", precision_name, "fp32 or bf16 (fast only)")
      ->check(CLI::IsMember({"fp32", "bf16"}));
  app.add_option("--batch", batch, "examples per step")->check(CLI::PositiveNumber);
  app.add_option("--window", window, "characters per example")->check(CLI::PositiveNumber);
  app.add_option("--threads", threads, "intra-op threads")->check(CLI::PositiveNumber);
  app.add_option("--steps", steps, "timed steps")->check(CLI::PositiveNumber);
  app.add_option("--warmup", warmup, "untimed steps first")->check(CLI::NonNegativeNumber);
  app.add_option(
      "--data", data_path,
      "names CSV or text file; default $PETNAME_DATA, else data/seattle_pet_licenses.csv");
  app.add_flag("--random", random, "uniformly random tokens and targets instead of --data");
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "step_bench: %s\n", e.what());
    return 2;
  }

  torch::set_num_threads(threads);
  torch::manual_seed(0);
  petname::model::ModelOptions options;
  petname::model::ParsePrecision(precision_name, &options.precision);
  Batches batches;
  if (random) {
    const int64_t count = batch * (warmup + steps);
    batches.inputs = torch::randint(options.vocab_size, {count, window}, torch::kUInt8);
    batches.targets = torch::randint(options.vocab_size, {count, window}, torch::kUInt8);
  } else if (!LoadBatches(data_path, static_cast<int>(window), &batches)) {
    return 1;
  }
  Timings t;
  try {
    if (impl == "fast") {
      petname::model::CharLstm model(options);
      t = Run(model, batches, batch, steps, warmup);
    } else {
      petname::model::PlainCharLstm model(options);
      t = Run(model, batches, batch, steps, warmup);
    }
  } catch (const c10::Error& e) {
    std::fprintf(stderr, "step_bench: %s\n", e.what_without_backtrace());
    return 1;
  }
  const double step_ms = Median(t.step);
  std::printf(
      "impl %s precision %s batch %ld threads %d steps %d step_ms %.1f forward_ms %.1f "
      "backward_ms %.1f optimizer_ms %.1f samples_per_s %.0f nodes_per_bt %.3f peak_rss_mb %.0f\n",
      impl.c_str(), precision_name.c_str(), static_cast<long>(batch), threads, steps, step_ms,
      Median(t.forward), Median(t.backward), Median(t.optimizer), 1000.0 * batch / step_ms,
      std::accumulate(t.forest_fraction.begin(), t.forest_fraction.end(), 0.0) /
          static_cast<double>(t.forest_fraction.size()),
      PeakRssMb());
  return 0;
}
