#include "trainer/train/run_fingerprint.h"

#include <cstdio>

#include "trainer/data/vocabulary.h"

namespace petname::train {
namespace {

// Text that reads back as the same double (17 significant digits, trailing zeros dropped).
std::string Number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.17g", v);
  return buf;
}

}  // namespace

Fingerprint CheckpointSettings(const data::Dataset& data, const TrainOptions& o) {
  return {{"data", data.fingerprint},
          {"window", std::to_string(data.options.window)},
          {"validation_fraction", Number(data.options.validation_fraction)},
          {"seed", std::to_string(o.seed)},
          {"lr", Number(o.learning_rate)},
          {"lr_schedule", LrDecayName(o.lr_decay)},
          {"warmup_steps", std::to_string(o.warmup_steps)}};
}

Fingerprint RankSettings(const data::Dataset& data, const TrainOptions& o) {
  Fingerprint f = CheckpointSettings(data, o);
  const model::ModelOptions shape;
  f.insert({{"version", PETNAME_VERSION},
            {"vocabulary", std::string(data::kVocabulary)},
            {"hidden_size", std::to_string(shape.hidden_size)},
            {"num_layers", std::to_string(shape.num_layers)},
            {"batch_size", std::to_string(o.batch_size)},
            {"epochs", std::to_string(o.epochs)},
            {"precision", model::PrecisionName(o.precision)},
            {"lstm_impl", model::LstmImplName(o.impl)},
            {"device", o.device},
            {"tf32", o.tf32 ? "1" : "0"},
            {"deterministic", o.deterministic ? "1" : "0"},
            {"world_size", std::to_string(o.rank.world_size)},
            {"backend", o.comm.backend == dist::Backend::kNccl ? "nccl" : "gloo"},
            {"bucket_bytes", std::to_string(o.grad_sync.bucket_bytes)},
            {"overlap", o.grad_sync.overlap ? "1" : "0"},
            {"drop_last", o.drop_last ? "1" : "0"}});
  return f;
}

}  // namespace petname::train
