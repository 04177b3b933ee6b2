// step_bench: times the model's training step in isolation (no data loading, no loop).
//
// Each step is forward on random tokens [batch, window], cross-entropy against random
// targets, backward and an Adam(1e-3) update, the same work as one training batch.
// Prints one line: the median milliseconds of the whole step and of each phase, the
// samples/s that the median step gives, and the process's peak RSS.
//
//   step_bench [--impl fast|plain] [--precision fp32|bf16] [--batch 4096] [--threads 2]
//              [--steps 20] [--warmup 3]
#include <sys/resource.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "trainer/model/model.h"
#include "trainer/model/plain_lstm.h"

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
  std::vector<double> forward, backward, optimizer, step;
};

template <typename Model>
Timings Run(Model& model, int64_t batch, int64_t window, int steps, int warmup) {
  const int64_t vocab = petname::model::ModelOptions{}.vocab_size;
  torch::optim::Adam optimizer(model->parameters(), torch::optim::AdamOptions(1e-3));
  const torch::Tensor tokens = torch::randint(vocab, {batch, window}, torch::kInt64);
  const torch::Tensor targets = torch::randint(vocab, {batch, window}, torch::kInt64);
  Timings t;
  for (int s = 0; s < warmup + steps; ++s) {
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
  app.add_option("--impl", impl, "fast (CharLstm) or plain (nn::LSTM port)")
      ->check(CLI::IsMember({"fast", "plain"}));
  app.add_option("--precision", precision_name, "fp32 or bf16 (fast only)")
      ->check(CLI::IsMember({"fp32", "bf16"}));
  app.add_option("--batch", batch, "examples per step")->check(CLI::PositiveNumber);
  app.add_option("--window", window, "characters per example")->check(CLI::PositiveNumber);
  app.add_option("--threads", threads, "intra-op threads")->check(CLI::PositiveNumber);
  app.add_option("--steps", steps, "timed steps")->check(CLI::PositiveNumber);
  app.add_option("--warmup", warmup, "untimed steps first")->check(CLI::NonNegativeNumber);
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
  Timings t;
  try {
    if (impl == "fast") {
      petname::model::CharLstm model(options);
      t = Run(model, batch, window, steps, warmup);
    } else {
      petname::model::PlainCharLstm model(options);
      t = Run(model, batch, window, steps, warmup);
    }
  } catch (const c10::Error& e) {
    std::fprintf(stderr, "step_bench: %s\n", e.what_without_backtrace());
    return 1;
  }
  const double step_ms = Median(t.step);
  std::printf(
      "impl %s precision %s batch %ld threads %d steps %d step_ms %.1f forward_ms %.1f "
      "backward_ms %.1f optimizer_ms %.1f samples_per_s %.0f peak_rss_mb %.0f\n",
      impl.c_str(), precision_name.c_str(), static_cast<long>(batch), threads, steps, step_ms,
      Median(t.forward), Median(t.backward), Median(t.optimizer), 1000.0 * batch / step_ms,
      PeakRssMb());
  return 0;
}
