// What `petname export` writes (docs/tasks/cpu-job.md, "The model in Python"): the model's
// parameters under the names of the original PyTorch recipe's model,
//
//   class Recipe(nn.Module):   # input one_hot(tokens, 31) [B, 8, 31], output logits [B, 31]
//     self.lstm = nn.LSTM(31, 128, num_layers=4, batch_first=True)
//     self.fc = nn.Linear(128, 31)      # applied to the last time step's output
//
// so that `load_state_dict(strict=True)` takes them as they are: CharLstm's lstm.* parameters
// keep their names (they already are nn.LSTM's: weight_ih_lk, weight_hh_lk, bias_ih_lk,
// bias_hh_lk, gates i, f, g, o), head.* becomes fc.*. Pure; no LibTorch.
#pragma once

#include <map>
#include <string>

#include "trainer/checkpoint/manifest.h"

namespace petname::exporter {

// The recipe's name of the CharLstm parameter `name`; false for a name the recipe lacks.
bool RecipeTensorName(const std::string& name, std::string* out);

// The file's "__metadata__" (all values strings): the model's shape, its input encoding and
// vocabulary, and the training run the manifest records. Keys:
//   format ("petname-recipe-lstm-v1"), vocabulary, pad, stop, window, input ("one_hot"),
//   vocab_size, hidden_size, num_layers, epochs (completed), steps, seed, batch_size,
//   world_size, learning_rate, precision, validation_fraction, train_loss, val_loss,
//   val_accuracy, data_fingerprint_sha256 (of the encoded dataset, dataset.h), settings_sha256.
// Numbers are written in their shortest round-trip form; a non-finite one as "nan" / "inf".
std::map<std::string, std::string> RecipeMetadata(const checkpoint::Manifest& manifest);

}  // namespace petname::exporter
