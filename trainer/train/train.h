// The training loop: epoch -> batch -> forward/backward -> step -> validate -> checkpoint
// -> report, as named steps (train.cc RunTraining) that read top to bottom.
//
// Determinism: model initialisation is seeded with `seed`, the order of epoch e is
// data::EpochPermutation(seed, e, n), and nothing else is random, so the same seed and
// thread count on CPU give the same loss trace, and resuming after epoch k gives the same
// parameters as not stopping. On CUDA that holds with `deterministic` (without it, atomic adds
// in the device forest's backward change the last bits from run to run).
//
// The whole encoded dataset lives in tensors on the training device; a batch is an
// index_select through the epoch's permutation, and a step (step.h) is HostStep for the host
// prefix forest or DeviceStep for the device-generic implementations (whole step on the
// device, CUDA graphs on CUDA). The only host sync per epoch is reading the summed training
// loss (and, with several ranks, each step's stop vote).
//
// Data parallelism (trainer/distributed): every rank runs Train with its RankConfig. Rank 0's
// parameters are broadcast before the first step. Each rank trains batch_size examples of its
// shard of the epoch's permutation per step (HostStep regroups the step's global batch by
// shared prefixes); gradients are averaged across ranks; training loss and validation (on
// shards) are all-reduced, so every rank computes the same numbers. Only rank 0 writes
// checkpoints and reports.
// SIGTERM stops all ranks at the same step: rank 0 checkpoints (mid-epoch position
// included) and Train returns OK with `preempted` set. World size 1 is the plain loop.
#pragma once

#include "common/status.h"
#include "trainer/data/dataset.h"
#include "trainer/metrics/training_metrics.h"
#include "trainer/train/reporter.h"
#include "trainer/train/train_options.h"

namespace petname::train {

// Sets the intra-op thread count; the inter-op pool is set to one thread on first call.
void ConfigureThreads(int threads);

// Trains as `options` say. `metrics` (may be null) receives the run's Prometheus metrics;
// with a checkpoint directory, each epoch also appends a line to its metrics.jsonl.
Status Train(const data::Dataset& data, const TrainOptions& options, Reporter* reporter,
             metrics::TrainingMetrics* metrics, TrainResult* result);

}  // namespace petname::train
