#include "trainer/model/prefix_forest.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

namespace petname::model {
namespace {

using Rows = std::vector<std::vector<int64_t>>;

PrefixForest Build(const Rows& rows) {
  std::vector<int64_t> flat;
  for (const auto& r : rows) flat.insert(flat.end(), r.begin(), r.end());
  const int64_t steps = rows.empty() ? 0 : static_cast<int64_t>(rows[0].size());
  return BuildPrefixForest(flat.data(), static_cast<int64_t>(rows.size()), steps);
}

// Follows parents from the node of (row, t) back to level 0: must spell row[0..t].
std::vector<int64_t> Spell(const PrefixForest& f, int64_t node) {
  std::vector<int64_t> prefix;
  for (int64_t n = node; n >= 0; n = f.parent[n]) prefix.push_back(f.token[n]);
  std::reverse(prefix.begin(), prefix.end());
  return prefix;
}

// Every structural property the header promises, checked on any forest.
void ExpectWellFormed(const PrefixForest& f, const Rows& rows) {
  const int64_t n = f.size();
  ASSERT_EQ(f.level_offsets.size(), static_cast<size_t>(f.steps) + 1);
  ASSERT_EQ(f.level_offsets.back(), n);
  ASSERT_EQ(f.parent.size(), static_cast<size_t>(n));
  ASSERT_EQ(f.child_begin.size(), static_cast<size_t>(n) + 1);
  for (int64_t t = 0; t < f.steps; ++t) {
    for (int64_t id = f.level_offsets[t]; id < f.level_offsets[t + 1]; ++id) {
      if (t == 0) {
        EXPECT_EQ(f.parent[id], -1);
      } else {
        EXPECT_GE(f.parent[id], f.level_offsets[t - 1]);
        EXPECT_LT(f.parent[id], f.level_offsets[t]);
        if (id > f.level_offsets[t]) {
          EXPECT_GE(f.parent[id], f.parent[id - 1]);
        }
      }
      for (int64_t c = f.child_begin[id]; c < f.child_begin[id + 1]; ++c) {
        EXPECT_EQ(f.parent[c], id);
      }
      if (t + 1 < f.steps) {
        EXPECT_LT(f.child_begin[id], f.child_begin[id + 1]) << "node " << id << " has no child";
      }
    }
  }
  for (size_t r = 0; r < rows.size(); ++r) {
    for (int64_t t = 0; t < f.steps; ++t) {
      const int64_t node = f.node[r * f.steps + t];
      EXPECT_GE(node, f.level_offsets[t]);
      EXPECT_LT(node, f.level_offsets[t + 1]);
      EXPECT_EQ(Spell(f, node), std::vector<int64_t>(rows[r].begin(), rows[r].begin() + t + 1));
    }
  }
}

TEST(PrefixForestTest, PaddedWindowsShareTheirPrefixes) {
  // The rows of "spot" and "spud" as the dataset encodes them (0 = pad).
  const Rows rows = {{0, 0, 0, 0, 0, 0, 0, 5}, {0, 0, 0, 0, 0, 0, 5, 6}, {0, 0, 0, 0, 0, 5, 6, 7},
                     {0, 0, 0, 0, 0, 0, 0, 5}, {0, 0, 0, 0, 0, 0, 5, 6}, {0, 0, 0, 0, 0, 5, 6, 8}};
  const PrefixForest f = Build(rows);
  ExpectWellFormed(f, rows);
  // Levels 0-4 are the shared pad prefix; level 5 is "******" and "*****s"; level 6 is
  // "*******", "******s" and "*****sp"; level 7 has the four distinct windows.
  EXPECT_EQ(f.level_offsets, (std::vector<int64_t>{0, 1, 2, 3, 4, 5, 7, 10, 14}));
  EXPECT_EQ(f.node[0 * 8 + 7], f.node[3 * 8 + 7]);  // identical rows share every node
  EXPECT_NE(f.node[2 * 8 + 7], f.node[5 * 8 + 7]);
  EXPECT_EQ(f.node[2 * 8 + 6], f.node[5 * 8 + 6]);
}

TEST(PrefixForestTest, DistinctRowsGiveAChainPerRowAfterTheFirstDifference) {
  const Rows rows = {{3, 1, 4}, {1, 5, 9}, {2, 6, 5}};
  const PrefixForest f = Build(rows);
  ExpectWellFormed(f, rows);
  EXPECT_EQ(f.size(), 9);
  // Sorted order is rows 1, 2, 0, so level 0 is tokens 1, 2, 3.
  EXPECT_EQ(f.token, (std::vector<int64_t>{1, 2, 3, 5, 6, 1, 9, 5, 4}));
  EXPECT_EQ(f.parent, (std::vector<int64_t>{-1, -1, -1, 0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(f.child_begin, (std::vector<int64_t>{3, 4, 5, 6, 7, 8, 9, 9, 9, 9}));
}

TEST(PrefixForestTest, IdenticalRowsCollapseToOneChain) {
  const Rows rows(5, std::vector<int64_t>{7, 7, 2, 0});
  const PrefixForest f = Build(rows);
  ExpectWellFormed(f, rows);
  EXPECT_EQ(f.size(), 4);
  for (size_t r = 0; r < rows.size(); ++r) {
    for (int64_t t = 0; t < 4; ++t) EXPECT_EQ(f.node[r * 4 + t], t);
  }
}

TEST(PrefixForestTest, SingleRowAndSingleStep) {
  const Rows one_row = {{4, 4, 1}};
  const PrefixForest a = Build(one_row);
  ExpectWellFormed(a, one_row);
  EXPECT_EQ(a.size(), 3);

  const Rows one_step = {{2}, {0}, {2}, {1}};
  const PrefixForest b = Build(one_step);
  ExpectWellFormed(b, one_step);
  EXPECT_EQ(b.token, (std::vector<int64_t>{0, 1, 2}));
  EXPECT_EQ(b.node, (std::vector<int64_t>{2, 0, 2, 1}));
  EXPECT_EQ(b.child_begin, (std::vector<int64_t>{3, 3, 3, 3}));
}

TEST(PrefixForestTest, EmptyBatchGivesAnEmptyForest) {
  const PrefixForest f = BuildPrefixForest(nullptr, 0, 8);
  EXPECT_EQ(f.size(), 0);
  EXPECT_EQ(f.level_offsets, std::vector<int64_t>(9, 0));
  EXPECT_EQ(f.child_begin, std::vector<int64_t>{0});
}

TEST(PrefixForestTest, NumberingIsDeterministicAndIndependentOfRowOrder) {
  // A pseudo-random batch with heavy sharing: small alphabet, left padding.
  Rows rows;
  uint32_t state = 12345;
  for (int r = 0; r < 200; ++r) {
    std::vector<int64_t> row(8, 0);
    state = state * 1664525u + 1013904223u;
    const int len = 1 + static_cast<int>(state >> 29);
    for (int t = 8 - len; t < 8; ++t) {
      state = state * 1664525u + 1013904223u;
      row[t] = 1 + static_cast<int64_t>(state >> 30);
    }
    rows.push_back(row);
  }
  const PrefixForest a = Build(rows);
  ExpectWellFormed(a, rows);
  const PrefixForest again = Build(rows);
  EXPECT_EQ(a.token, again.token);
  EXPECT_EQ(a.parent, again.parent);
  EXPECT_EQ(a.node, again.node);

  Rows reversed(rows.rbegin(), rows.rend());
  const PrefixForest b = Build(reversed);
  ExpectWellFormed(b, reversed);
  EXPECT_EQ(a.level_offsets, b.level_offsets);
  EXPECT_EQ(a.token, b.token);
  EXPECT_EQ(a.parent, b.parent);
  EXPECT_EQ(a.child_begin, b.child_begin);
  for (size_t r = 0; r < rows.size(); ++r) {
    for (int64_t t = 0; t < 8; ++t) {
      EXPECT_EQ(a.node[r * 8 + t], b.node[(rows.size() - 1 - r) * 8 + t]);
    }
  }
  EXPECT_LT(a.size(), 200 * 8 / 2);  // the sharing is real
}

TEST(ForestLevelSizesTest, EqualsTheForestsLevelsOnSharedAndIndexedRows) {
  // Rows with heavy sharing over the whole 5-bit token range, read through an index that
  // repeats and skips rows.
  constexpr int64_t kSteps = 8;
  std::vector<uint8_t> table;
  uint32_t state = 777;
  for (int r = 0; r < 500; ++r) {
    state = state * 1664525u + 1013904223u;
    const int len = 1 + static_cast<int>(state >> 29);
    for (int t = 0; t < kSteps; ++t) {
      state = state * 1664525u + 1013904223u;
      table.push_back(t < kSteps - len ? 0 : static_cast<uint8_t>(state >> 27));
    }
  }
  std::vector<int64_t> index;
  for (int64_t k = 0; k < 700; ++k) index.push_back((k * 7) % 500);
  std::vector<int64_t> flat;
  for (int64_t r : index) {
    for (int64_t t = 0; t < kSteps; ++t) flat.push_back(table[r * kSteps + t]);
  }
  const PrefixForest f = BuildPrefixForest(flat.data(), static_cast<int64_t>(index.size()), kSteps);
  std::vector<int64_t> want;
  for (int64_t t = 0; t < kSteps; ++t) want.push_back(f.level_offsets[t + 1] - f.level_offsets[t]);
  EXPECT_EQ(
      ForestLevelSizes(table.data(), index.data(), static_cast<int64_t>(index.size()), kSteps),
      want);

  const std::vector<uint8_t> small = {1, 2, 1, 3, 31, 0};
  EXPECT_EQ(ForestLevelSizes(small.data(), nullptr, 3, 2), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(ForestLevelSizes(small.data(), nullptr, 0, 2), (std::vector<int64_t>{0, 0}));
}

}  // namespace
}  // namespace petname::model
