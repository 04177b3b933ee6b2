// `petname export` and the model.safetensors a training run leaves: a CharLstm's parameters
// written as a safetensors file in the recipe's format (recipe_format.h,
// checkpoint/tensor_file.h), float32, on the host whatever device the model is on.
//
// The file is written atomically (common/file_util.h): a temporary file beside `output`, given
// its mode through its own descriptor, is renamed over it, so a reader sees the old file or the
// complete new one, and a failure leaves no partial file behind.
#pragma once

#include <string>
#include <vector>

#include "common/status.h"
#include "trainer/checkpoint/manifest.h"
#include "trainer/model/model.h"

namespace petname::exporter {

// The file name a training run with --checkpoint-dir DIR writes: DIR/model.safetensors.
inline constexpr const char* kModelFileName = "model.safetensors";

// Writes `model`'s parameters and RecipeMetadata(manifest) to `output`, readable by all
// (0644). A training run writes DIR/model.safetensors after its last checkpoint is committed,
// so the file is the export of the checkpoint DIR/latest names (checkpoint/store.h ignores it).
Status WriteRecipeModel(model::CharLstm& model, const checkpoint::Manifest& manifest,
                        const std::string& output);

// Loads the checkpoint `path` (a checkpoint directory, a file in one, or a --checkpoint-dir
// whose newest valid checkpoint is taken; checkpoint/store.h ResolveCheckpoint), verified with
// `key` (checkpoint/manifest_mac.h; empty: none here), into a new CharLstm on the CPU. Damaged
// checkpoints skipped on the way are described in `*skipped`; FailedPrecondition for another
// vocabulary.
Status LoadCheckpointModel(const std::string& path, const std::string& key,
                           std::vector<std::string>* skipped, std::string* dir,
                           checkpoint::Manifest* manifest, model::CharLstm* model);

// LoadCheckpointModel, then WriteRecipeModel to `output`; `*source` names the checkpoint
// exported, its owner and signature (checkpoint/manifest_mac.h DescribeCheckpoint).
Status ExportCheckpoint(const std::string& path, const std::string& output, const std::string& key,
                        std::vector<std::string>* skipped, std::string* source);

}  // namespace petname::exporter
