// The prefix forest of a batch of token sequences (pure C++, no LibTorch).
//
// A batch is `rows` sequences of `steps` tokens each. The forest has one node per distinct
// prefix: level t holds the distinct prefixes of length t + 1 that occur in the batch, and a
// node's parent is the node of its prefix one token shorter (level 0 nodes have none). An
// LSTM's state after a prefix depends only on that prefix, so running the recurrence once per
// node computes exactly the states of every (row, step), with fewer cells when rows share
// prefixes (left-padded name windows share most of theirs).
//
// Numbering is deterministic and depends only on the multiset of rows, not on their order:
// rows are sorted lexicographically (ties by row index), and nodes are numbered level by
// level, and within a level in that sorted order. Hence:
// - level t occupies ids [level_offsets[t], level_offsets[t + 1]);
// - within a level, parent ids are non-decreasing, so the children of a node are a
//   contiguous range of the next level, [child_begin[n], child_begin[n + 1]);
// - every node below the last level has at least one child; last-level nodes have none.
#pragma once

#include <cstdint>
#include <vector>

namespace petname::model {

struct PrefixForest {
  int64_t rows = 0;
  int64_t steps = 0;
  std::vector<int64_t> level_offsets;  // steps + 1 entries, level_offsets[steps] = size()
  std::vector<int64_t> token;          // per node: the last token of its prefix
  std::vector<int64_t> parent;         // per node: parent id (level t - 1), -1 on level 0
  std::vector<int64_t> child_begin;    // size() + 1 entries, child_begin[size()] = size()
  std::vector<int64_t> node;           // [rows, steps] row-major: the node of (row, t)

  int64_t size() const { return static_cast<int64_t>(token.size()); }
};

// `tokens` is [rows, steps] row-major. Token values are copied, never interpreted; rows or
// steps of 0 give an empty forest (steps + 1 zero offsets).
PrefixForest BuildPrefixForest(const int64_t* tokens, int64_t rows, int64_t steps);

// The most steps ForestLevelSizes (and the device forest, device_forest.h) accept: a prefix is
// packed into one integer at kPrefixTokenBits per token.
constexpr int64_t kPrefixTokenBits = 5;
constexpr int64_t kMaxPackedSteps = 11;

// The level sizes of the forest of `count` rows, row k being the `steps` one-byte tokens at
// tokens + index[k] * steps (index may be null: row k at tokens + k * steps): sizes[t] is the
// number of distinct prefixes of length t + 1, i.e. level_offsets[t + 1] - level_offsets[t] of
// BuildPrefixForest on the same rows. Tokens must be below 2^kPrefixTokenBits and steps at most
// kMaxPackedSteps. Linear time (radix sort of packed prefixes), for planning a batch ahead of
// the device that computes it.
std::vector<int64_t> ForestLevelSizes(const uint8_t* tokens, const int64_t* index, int64_t count,
                                      int64_t steps);

}  // namespace petname::model
