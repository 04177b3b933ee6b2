#include "trainer/distributed/batch_split.h"

#include <algorithm>
#include <cstring>
#include <numeric>

namespace petname::dist {

std::vector<int64_t> RankRowsOfBatch(const uint8_t* tokens, int64_t rows, int64_t steps, int world,
                                     int rank) {
  std::vector<int64_t> order(static_cast<size_t>(std::max<int64_t>(rows, 0)));
  std::iota(order.begin(), order.end(), 0);
  if (world <= 1) return order;
  const auto row = [&](int64_t k) { return tokens + k * steps; };
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
    return std::memcmp(row(a), row(b), static_cast<size_t>(steps)) < 0;
  });
  const int64_t chunks = 2 * static_cast<int64_t>(world);
  const auto chunk = [&](int64_t k) {
    return std::pair{order.begin() + k * rows / chunks, order.begin() + (k + 1) * rows / chunks};
  };
  std::vector<int64_t> mine;
  for (int64_t k : {static_cast<int64_t>(rank), chunks - 1 - rank}) {
    const auto [begin, end] = chunk(k);
    mine.insert(mine.end(), begin, end);
  }
  return mine;
}

double RankLossScale(int64_t rank_rows, int64_t total_rows, int world) {
  if (total_rows <= 0) return 0;
  return static_cast<double>(world) * static_cast<double>(rank_rows) /
         static_cast<double>(total_rows);
}

}  // namespace petname::dist
