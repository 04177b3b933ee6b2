// Checkpoints of format version 1, written by earlier petname releases: their model.pt,
// optimizer.pt and rng.pt are TorchScript archives read with torch::load, and loading one runs
// whatever code the archive carries (its __setstate__ methods, for instance) as the user who
// loads it. petname reads them nowhere else: training, generate and export refuse them with
// one line that names `petname convert-checkpoints`, which turns them into format-2
// checkpoints (checkpoint.h) once, on request. Converting loads them, so it runs their code:
// it is for checkpoints whose directory nobody else could write.
#pragma once

#include <string>
#include <vector>

#include "common/status.h"

namespace petname::checkpoint {

// Converts every format-1 epoch directory under `root`, oldest first: its manifest is read and
// its files verified against their sha256, the model is built from the manifest and loaded
// (every parameter's shape checked), then Adam (at the manifest's learning rate) and the
// generator state; the checkpoint is written again as format 2 under the same epoch with the
// same manifest fields, signed with `key` (manifest_mac.h), replacing the old directory
// atomically (store.h). `latest` ends on the newest converted. Format-2 directories are left
// alone; `*converted` lists the directories converted. NotFound when there is no format-1
// checkpoint under `root`; on an error the ones converted before it stay converted.
Status ConvertLegacyCheckpoints(const std::string& root, const std::string& key,
                                std::vector<std::string>* converted);

}  // namespace petname::checkpoint
