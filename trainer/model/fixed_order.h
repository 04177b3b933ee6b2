// Gradient sums in an order fixed by the data, for the device forest's training step with
// --deterministic (the same code on every device, device ops only, capturable in a CUDA graph).
//
// The device forest's gradients are sums over rows that share something: a parent's state
// gradient sums its children's, a node's logit gradient sums the (row, step) cells that end at
// it. The backward of index_select and take adds them with atomic adds on CUDA, in an order (and
// so with last bits) that changes from run to run (so may the embedding's, for small batches).
// These forms add in a fixed order:
//
// - GatherSortedRows(src, index, runs) is src.index_select(0, index) for an index that never
//   decreases, with runs[p] the first position of `index` whose value is at least p (so run p is
//   [runs[p], runs[p + 1]); runs has src.size(0) + 1 entries, its last being index.size(0)). Its
//   backward adds each run's rows one after the other (segment_reduce: one thread per output
//   element, in position order).
// - GatherRows(src, index) is src.index_select(0, index) for any index: a stable sort of the
//   index, GatherSortedRows over it, and the rows put back in place by a permutation (whose
//   backward writes each row once).
// - CountCrossEntropy(node_logits, node_of, targets) is NodeCrossEntropy (device_forest.h) written
//   as a weighted sum: -sum over (node, class) of count * log_softmax / cells, where count is how
//   many (row, step) cells end at the node with that target. Counts are whole numbers, exact in
//   any order of addition (below 2^24 per entry: a batch of fewer than 2^24 rows); the rest is
//   element-wise or one reduction of a fixed shape, whose order does not change between runs.
#pragma once

#include <torch/torch.h>

namespace petname::model {

torch::Tensor GatherSortedRows(const torch::Tensor& src, const torch::Tensor& index,
                               const torch::Tensor& runs);

torch::Tensor GatherRows(const torch::Tensor& src, const torch::Tensor& index);

// The runs of a never-decreasing int64 `index` over `rows` source rows (GatherSortedRows).
torch::Tensor SortedRuns(const torch::Tensor& index, int64_t rows);

torch::Tensor CountCrossEntropy(const torch::Tensor& node_logits, const torch::Tensor& node_of,
                                const torch::Tensor& targets);

}  // namespace petname::model
