#include "trainer/dist/rank_env.h"

#include <gtest/gtest.h>

#include <map>

namespace petname::dist {
namespace {

EnvLookup Env(const std::map<std::string, std::string>& vars) {
  return [vars](const char* name) -> const char* {
    auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  };
}

TEST(RankEnvTest, DefaultsToSingleRank) {
  RankConfig c;
  ASSERT_TRUE(ParseRankConfig(Env({}), {}, &c).ok());
  EXPECT_EQ(c.world_size, 1);
  EXPECT_EQ(c.rank, 0);
  EXPECT_EQ(c.master_addr, "127.0.0.1");
  EXPECT_EQ(c.master_port, 29500);
}

TEST(RankEnvTest, ReadsTorchrunVariables) {
  RankConfig c;
  ASSERT_TRUE(ParseRankConfig(Env({{"MASTER_ADDR", "job-rank-0.job"},
                                   {"MASTER_PORT", "23456"},
                                   {"WORLD_SIZE", "4"},
                                   {"RANK", "3"},
                                   {"LOCAL_RANK", "1"}}),
                              {}, &c)
                  .ok());
  EXPECT_EQ(c.master_addr, "job-rank-0.job");
  EXPECT_EQ(c.master_port, 23456);
  EXPECT_EQ(c.world_size, 4);
  EXPECT_EQ(c.rank, 3);
  EXPECT_EQ(c.local_rank, 1);
}

TEST(RankEnvTest, FallsBackToKubeflowNames) {
  RankConfig c;
  ASSERT_TRUE(ParseRankConfig(Env({{"PET_MASTER_ADDR", "m"},
                                   {"PET_MASTER_PORT", "1234"},
                                   {"PET_NNODES", "2"},
                                   {"PET_NODE_RANK", "1"}}),
                              {}, &c)
                  .ok());
  EXPECT_EQ(c.master_addr, "m");
  EXPECT_EQ(c.master_port, 1234);
  EXPECT_EQ(c.world_size, 2);
  EXPECT_EQ(c.rank, 1);
}

TEST(RankEnvTest, StandardNamesWinOverKubeflowNames) {
  RankConfig c;
  ASSERT_TRUE(ParseRankConfig(Env({{"WORLD_SIZE", "3"}, {"PET_NNODES", "9"}}), {}, &c).ok());
  EXPECT_EQ(c.world_size, 3);
}

TEST(RankEnvTest, FlagsOverrideEnvironment) {
  RankOverrides flags;
  flags.world_size = 2;
  flags.rank = 1;
  flags.master_addr = "flag-host";
  RankConfig c;
  ASSERT_TRUE(
      ParseRankConfig(Env({{"WORLD_SIZE", "8"}, {"RANK", "7"}, {"MASTER_ADDR", "env"}}), flags, &c)
          .ok());
  EXPECT_EQ(c.world_size, 2);
  EXPECT_EQ(c.rank, 1);
  EXPECT_EQ(c.master_addr, "flag-host");
}

void ExpectInvalid(const std::map<std::string, std::string>& vars, const std::string& names) {
  RankConfig c;
  Status st = ParseRankConfig(Env(vars), {}, &c);
  EXPECT_EQ(st.code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(st.ExitCode(), 2);
  EXPECT_NE(st.message().find(names), std::string::npos) << st.message();
}

TEST(RankEnvTest, RejectsBadValuesNamingTheVariable) {
  ExpectInvalid({{"WORLD_SIZE", "two"}}, "WORLD_SIZE");
  ExpectInvalid({{"WORLD_SIZE", "0"}}, "WORLD_SIZE");
  ExpectInvalid({{"WORLD_SIZE", "2"}, {"RANK", "2"}}, "RANK");
  ExpectInvalid({{"WORLD_SIZE", "2"}, {"RANK", "-1"}}, "RANK");
  ExpectInvalid({{"RANK", "1x"}}, "RANK");
  ExpectInvalid({{"MASTER_PORT", "70000"}}, "MASTER_PORT");
  ExpectInvalid({{"MASTER_PORT", "0"}}, "MASTER_PORT");
  ExpectInvalid({{"MASTER_PORT", ""}}, "MASTER_PORT");
  ExpectInvalid({{"PET_MASTER_PORT", "99999999999"}}, "PET_MASTER_PORT");
  ExpectInvalid({{"PET_NNODES", "2"}, {"PET_NODE_RANK", "5"}}, "PET_NODE_RANK");
  ExpectInvalid({{"WORLD_SIZE", "2"}, {"LOCAL_RANK", "3"}}, "LOCAL_RANK");
  ExpectInvalid({{"MASTER_ADDR", ""}}, "MASTER_ADDR");
}

TEST(RankEnvTest, FlagErrorsNameTheFlag) {
  RankOverrides flags;
  flags.rank = 4;
  RankConfig c;
  Status st = ParseRankConfig(Env({{"WORLD_SIZE", "2"}}), flags, &c);
  EXPECT_EQ(st.ExitCode(), 2);
  EXPECT_NE(st.message().find("--rank"), std::string::npos);
}

}  // namespace
}  // namespace petname::dist
