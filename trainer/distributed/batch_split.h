// Splitting one global batch among the ranks (pure, no LibTorch).
//
// Every step, the ranks together train on one global batch (a contiguous range of the epoch's
// sequence, distributed/sampler.h). How its rows are divided among the ranks does not change the
// averaged gradient as long as each rank weights its mean loss by its share of the rows (see
// RankLossScale), so the division is chosen for speed: the model computes each distinct
// prefix of a rank's rows once (model/prefix_forest.h), so a rank should get rows that share
// prefixes, and the ranks should get about the same work, or the fastest waits for the
// slowest at the all-reduce.
//
// RankRowsOfBatch sorts the rows lexicographically (ties by position), cuts them into
// 2 * world contiguous chunks of near-equal size and gives rank r chunks r and
// 2 * world - 1 - r: neighbours in sorted order share the most prefixes, and pairing a chunk
// from the front (mostly short, padded windows that share a lot) with one from the back
// evens out the work. The result depends only on the rows, so all ranks compute the same
// split without communicating; every row goes to exactly one rank.
#pragma once

#include <cstdint>
#include <vector>

namespace petname::dist {

// `tokens` is [rows, steps] row-major. Returns rank `rank`'s rows as positions in the batch,
// in sorted-row order. world 1 returns every position.
std::vector<int64_t> RankRowsOfBatch(const uint8_t* tokens, int64_t rows, int64_t steps, int world,
                                     int rank);

// The factor for a rank's mean loss over `rank_rows` of a global batch of `total_rows` on
// `world` ranks, such that averaging the ranks' gradients gives the gradient of the mean
// over the whole batch: world * rank_rows / total_rows (exactly 1 for equal shares).
double RankLossScale(int64_t rank_rows, int64_t total_rows, int world);

}  // namespace petname::dist
