#include "trainer/launch/log_cap.h"

#include <gtest/gtest.h>

namespace petname::launch {
namespace {

std::vector<LogPlace> PlaceAll(LogCap* cap, const std::vector<int64_t>& sizes) {
  std::vector<LogPlace> out;
  for (int64_t s : sizes) out.push_back(cap->Place(s));
  return out;
}

constexpr LogPlace H = LogPlace::kHead, T = LogPlace::kTail, R = LogPlace::kRotate;

TEST(LogCapTest, HeadThenTailSegmentsRotating) {
  LogCap cap({100, 50, 16}, 0, 0);
  EXPECT_EQ(PlaceAll(&cap, {40, 60, 1, 30, 20, 1, 50, 49}),
            (std::vector<LogPlace>{H, H, T, T, R, T, R, R}));
}

TEST(LogCapTest, OnceALineDoesNotFitTheHeadStaysClosed) {
  LogCap cap({100, 50, 16}, 0, 0);
  EXPECT_EQ(PlaceAll(&cap, {90, 20, 5}), (std::vector<LogPlace>{H, T, T}));
}

TEST(LogCapTest, ALineLongerThanASegmentGetsOneOfItsOwn) {
  LogCap cap({10, 50, 16}, 0, 0);
  EXPECT_EQ(PlaceAll(&cap, {80, 80, 1}), (std::vector<LogPlace>{T, R, R}));
}

TEST(LogCapTest, AppendingStartsFromTheFilesSizes) {
  LogCap head_left({100, 50, 16}, 95, 0);
  EXPECT_EQ(PlaceAll(&head_left, {5, 1}), (std::vector<LogPlace>{H, T}));
  LogCap tail_started({100, 50, 16}, 10, 45);
  EXPECT_EQ(PlaceAll(&tail_started, {5, 1}), (std::vector<LogPlace>{T, R}));
}

TEST(LogCapTest, TheTotalStaysBounded) {
  const LogLimits limits{1000, 300, 16};
  LogCap cap(limits, 0, 0);
  int64_t head = 0, current = 0, older = 0;
  for (int i = 0; i < 10000; ++i) {
    const int64_t size = 1 + (i * 7919) % 97;
    switch (cap.Place(size)) {
      case LogPlace::kHead:
        head += size;
        break;
      case LogPlace::kTail:
        current += size;
        break;
      case LogPlace::kRotate:
        older = current;
        current = size;
        break;
    }
    ASSERT_LE(head, limits.head_bytes);
    ASSERT_LE(current, limits.segment_bytes);
    ASSERT_LE(older, limits.segment_bytes);
  }
}

std::vector<std::string> Feed(LogLines* lines, const std::string& text) {
  return lines->Feed(text.data(), text.size());
}

TEST(LogLinesTest, LinesAsATerminalShowsThem) {
  LogLines lines(1000);
  EXPECT_EQ(Feed(&lines, "a\nb"), std::vector<std::string>{"a\n"});
  EXPECT_EQ(Feed(&lines, "c\r\nd\n"), (std::vector<std::string>{"bc\n", "d\n"}));
  // A live progress line overwritten in place, then erased, leaves only what came after.
  EXPECT_EQ(Feed(&lines, "\r\033[Kepoch 1 batch 1\r\033[Kepoch 1 batch 2\r"),
            std::vector<std::string>{});
  EXPECT_EQ(Feed(&lines, "\033[Kpetname: done\n"), std::vector<std::string>{"petname: done\n"});
  EXPECT_EQ(Feed(&lines, "\n"), std::vector<std::string>{"\n"});
  EXPECT_EQ(lines.Flush(), "");
  EXPECT_EQ(Feed(&lines, "last words"), std::vector<std::string>{});
  EXPECT_EQ(lines.Flush(), "last words\n");
}

TEST(LogLinesTest, ACarriageReturnSplitAcrossReadsStillEndsTheLine) {
  LogLines lines(1000);
  EXPECT_EQ(Feed(&lines, "x\r"), std::vector<std::string>{});
  EXPECT_EQ(Feed(&lines, "\ny"), std::vector<std::string>{"x\n"});
  EXPECT_EQ(lines.Flush(), "y\n");
}

TEST(LogLinesTest, LongLinesAreCut) {
  LogLines lines(4);
  EXPECT_EQ(Feed(&lines, "abcdefghij\n"), (std::vector<std::string>{"abcd\n", "efgh\n", "ij\n"}));
}

}  // namespace
}  // namespace petname::launch
