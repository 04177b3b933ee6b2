// Measures what the training loop pays for metrics: the cost of one
// TrainingMetrics::OnStep call, alone and while another thread scrapes the registry as
// often as every millisecond (Prometheus scrapes every 15-30 s), and that cost as a share
// of a training step.
//
// Usage: metrics_overhead_bench [STEP_SECONDS]   (default 0.06: batch 256, one CPU thread)
#include <prometheus/text_serializer.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

#include "trainer/metrics/training_metrics.h"

namespace {

using Clock = std::chrono::steady_clock;

// Median nanoseconds per OnStep over `rounds` rounds of `calls` calls.
double NanosPerStep(petname::metrics::TrainingMetrics& metrics, int rounds, int calls) {
  std::vector<double> samples;
  for (int r = 0; r < rounds; ++r) {
    const Clock::time_point start = Clock::now();
    for (int i = 0; i < calls; ++i) metrics.OnStep(2.0 - i * 1e-9, 256, 0.05, 0.001);
    samples.push_back(std::chrono::duration<double, std::nano>(Clock::now() - start).count() /
                      calls);
  }
  std::sort(samples.begin(), samples.end());
  return samples[samples.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  const double step_seconds = argc > 1 ? std::atof(argv[1]) : 0.06;
  if (!(step_seconds > 0)) {
    std::fprintf(stderr, "metrics_overhead_bench: STEP_SECONDS must be a positive number\n");
    return 2;
  }
  petname::metrics::TrainingMetrics metrics({"bench", "local", 0, ""});
  metrics.SetInfo({"gloo", "fp32", "cpu", PETNAME_VERSION, 2, 10, 0, 1});
  constexpr int kRounds = 7;
  constexpr int kCalls = 1000000;

  const double alone = NanosPerStep(metrics, kRounds, kCalls);

  std::atomic<bool> stop{false};
  std::atomic<int> scrapes{0};
  std::thread scraper([&] {
    while (!stop.load()) {
      const std::string text =
          prometheus::TextSerializer().Serialize(metrics.registry()->Collect());
      if (!text.empty()) scrapes.fetch_add(1);
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  });
  const double scraped = NanosPerStep(metrics, kRounds, kCalls);
  stop = true;
  scraper.join();

  const double worst = std::max(alone, scraped);
  std::printf("OnStep: %.1f ns/call alone, %.1f ns/call while scraped %d times (every ~1 ms)\n",
              alone, scraped, scrapes.load());
  std::printf("share of a %.3f s step: %.6f %% (budget 1 %%)\n", step_seconds,
              100.0 * worst * 1e-9 / step_seconds);
  return 0;
}
