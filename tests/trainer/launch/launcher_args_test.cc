#include <gtest/gtest.h>

#include "trainer/launch/launcher.h"

namespace petname::launch {
namespace {

using Args = std::vector<std::string>;

TEST(LauncherArgsTest, WithoutFlagRemovesBothSpellings) {
  EXPECT_EQ(WithoutFlag({"petname", "train", "--nproc", "2", "--epochs", "3"}, "--nproc"),
            (Args{"petname", "train", "--epochs", "3"}));
  EXPECT_EQ(WithoutFlag({"petname", "train", "--nproc=4", "--seed", "1"}, "--nproc"),
            (Args{"petname", "train", "--seed", "1"}));
  EXPECT_EQ(WithoutFlag({"petname", "--nprocs", "1"}, "--nproc"),
            (Args{"petname", "--nprocs", "1"}));
}

}  // namespace
}  // namespace petname::launch
