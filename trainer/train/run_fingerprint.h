// The settings that define a training run, as a Fingerprint (common/fingerprint.h):
//  - CheckpointSettings: what a resumed run must share with its checkpoint (the data, the
//    validation split, seed and learning-rate schedule). World size, batch size per rank,
//    epochs, precision and the LSTM implementation may change on resume and are not in it.
//  - RankSettings: what every rank of one job must share, checked at rendezvous
//    (distributed/peer_check.h): the checkpoint settings plus the build, model shape, batch,
//    epochs, precision, implementation, world size, backend and gradient bucketing.
#pragma once

#include "common/fingerprint.h"
#include "trainer/data/dataset.h"
#include "trainer/train/train.h"

namespace petname::train {

Fingerprint CheckpointSettings(const data::Dataset& data, const TrainOptions& o);

Fingerprint RankSettings(const data::Dataset& data, const TrainOptions& o);

}  // namespace petname::train
