#include "trainer/launch/line_prefixer.h"

#include <gtest/gtest.h>

namespace petname::launch {
namespace {

std::string Feed(LinePrefixer* p, const std::string& s) { return p->Feed(s.data(), s.size()); }

TEST(LinePrefixerTest, PrefixesCompleteLines) {
  LinePrefixer p("[rank 1] ");
  EXPECT_EQ(Feed(&p, "a\nb\n"), "[rank 1] a\n[rank 1] b\n");
}

TEST(LinePrefixerTest, HoldsPartialLinesAcrossReads) {
  LinePrefixer p("> ");
  EXPECT_EQ(Feed(&p, "hel"), "");
  EXPECT_EQ(Feed(&p, "lo\nwor"), "> hello\n");
  EXPECT_EQ(p.Flush(), "> wor\n");
  EXPECT_EQ(p.Flush(), "");
}

TEST(LinePrefixerTest, EmptyLinesArePrefixedToo) {
  LinePrefixer p("> ");
  EXPECT_EQ(Feed(&p, "\n"), "> \n");
}

}  // namespace
}  // namespace petname::launch
