// Judging the names read from the data file before training on them: the one-line summary
// the trainer prints, and the refusal of data that would train nothing useful.
//
// Rules, checked in this order; each failure is one InvalidArgument line naming the numbers
// and what to do:
//  1. Most records must give a usable name. Of the non-empty records read (empty names are
//     missing data, not a sign of a wrong file), fewer than kMinUsableShare (half) giving a
//     usable name is refused: a binary or otherwise compressed file read as text, a file in
//     another format or the wrong --column drop nearly every record for characters outside
//     the vocabulary or short rows. The Seattle table keeps 99%. A file with fewer than
//     kMinNonEmptyToJudge non-empty records read is not judged (a hand-written list may be
//     tiny; the summary line shows what was dropped).
//  2. At least one training example must remain after the validation split.
//  3. A positive validation fraction must hold out at least one name; otherwise every
//     validation loss would be NaN. (A fraction of 0 trains without validation, on purpose.)
#pragma once

#include <cstddef>
#include <string>

#include "common/status.h"
#include "trainer/data/dataset.h"
#include "trainer/data/names.h"

namespace petname::data {

inline constexpr double kMinUsableShare = 0.5;
inline constexpr size_t kMinNonEmptyToJudge = 20;

// "data: N usable names (D distinct) of R records; dropped ...; T training and V validation
// examples (H names held out)".
std::string DataSummary(const NameList& names, const Dataset& dataset);

// Ok, or why `names` (read from the file `path`) and the `dataset` built from them are not fit
// to train on (rules above).
Status CheckTrainable(const std::string& path, const NameList& names, const Dataset& dataset);

}  // namespace petname::data
