#include "trainer/distributed/rank_env.h"

#include <gtest/gtest.h>

#include <map>
#include <vector>

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

TEST(NodeLayoutTest, WithoutNodesOrMasterTheLauncherIsStandalone) {
  NodeLayout n;
  ASSERT_TRUE(ParseNodeLayout(Env({{"WORLD_SIZE", "8"}, {"RANK", "3"}}), {}, &n).ok());
  EXPECT_EQ(n.nnodes, 1);
  EXPECT_EQ(n.node_rank, 0);
  EXPECT_FALSE(n.shared_master);
  EXPECT_EQ(n.master_port, 0);
}

TEST(NodeLayoutTest, ReadsKubeflowPodVariables) {
  NodeLayout n;
  ASSERT_TRUE(ParseNodeLayout(Env({{"PET_NNODES", "3"},
                                   {"PET_NODE_RANK", "2"},
                                   {"MASTER_ADDR", "job-rank-0.job"},
                                   {"MASTER_PORT", "23456"}}),
                              {}, &n)
                  .ok());
  EXPECT_EQ(n.nnodes, 3);
  EXPECT_EQ(n.node_rank, 2);
  EXPECT_TRUE(n.shared_master);
  EXPECT_EQ(n.master_addr, "job-rank-0.job");
  EXPECT_EQ(n.master_port, 23456);
  // Flags win; the port defaults to 29500 as torchrun's.
  ASSERT_TRUE(ParseNodeLayout(Env({{"PET_NNODES", "3"}, {"PET_MASTER_ADDR", "m"}}),
                              {2, 1, std::nullopt, std::nullopt}, &n)
                  .ok());
  EXPECT_EQ(n.nnodes, 2);
  EXPECT_EQ(n.node_rank, 1);
  EXPECT_EQ(n.master_addr, "m");
  EXPECT_EQ(n.master_port, 29500);
  // One pod of several ranks shares the master its pod spec names.
  ASSERT_TRUE(
      ParseNodeLayout(Env({{"PET_NNODES", "1"}, {"MASTER_ADDR", "job-rank-0.job"}}), {}, &n).ok());
  EXPECT_TRUE(n.shared_master);
}

TEST(NodeLayoutTest, RejectsLayoutsThatCannotRendezvous) {
  NodeLayout n;
  const std::vector<std::pair<std::map<std::string, std::string>, std::string>> cases = {
      {{{"PET_NNODES", "2"}}, "PET_NNODES=2 needs the master's address"},
      {{{"PET_NNODES", "0"}}, "PET_NNODES=0 must be at least 1"},
      {{{"PET_NNODES", "2"}, {"PET_NODE_RANK", "2"}, {"MASTER_ADDR", "m"}},
       "PET_NODE_RANK=2 must be in [0, 2)"},
      {{{"PET_NNODES", "two"}}, "PET_NNODES='two' is not a whole number"},
      {{{"MASTER_ADDR", "m"}, {"MASTER_PORT", "0"}}, "MASTER_PORT=0 is not a port"},
      {{{"MASTER_ADDR", ""}}, "MASTER_ADDR is empty"},
  };
  for (const auto& [vars, message] : cases) {
    const Status st = ParseNodeLayout(Env(vars), {}, &n);
    EXPECT_EQ(st.code(), Status::Code::kInvalidArgument) << message;
    EXPECT_NE(st.message().find(message), std::string::npos) << st.message();
  }
  const Status st = ParseNodeLayout(Env({}), {4, std::nullopt, std::nullopt, std::nullopt}, &n);
  EXPECT_NE(st.message().find("--nnodes=4 needs"), std::string::npos) << st.message();
}

TEST(CudaDeviceTest, LocalRankSelectsTheDevice) {
  RankConfig rank;
  int index = -1;
  for (int local = 0; local < 4; ++local) {
    rank.local_rank = local;
    ASSERT_TRUE(CudaDeviceIndex(rank, 4, &index).ok());
    EXPECT_EQ(index, local);
  }
  rank.local_rank = 1;
  const Status st = CudaDeviceIndex(rank, 1, &index);
  EXPECT_EQ(st.code(), Status::Code::kFailedPrecondition);
  EXPECT_EQ(st.message(), "--device cuda: local rank 1 needs GPU 1 but 1 is visible");
  rank.local_rank = 0;
  EXPECT_FALSE(CudaDeviceIndex(rank, 0, &index).ok());
}

// The backend: --backend, else PETNAME_BACKEND (the operator's spec.backend), else nccl on cuda
// and gloo on the CPU, as PyTorchJob's default.
TEST(ChooseBackendTest, TheFlagThenPetnameBackendThenTheDevicesDefault) {
  Backend b = Backend::kGloo;
  std::string source;
  ASSERT_TRUE(ChooseBackend(Env({}), "", "cpu", &b, &source).ok());
  EXPECT_EQ(b, Backend::kGloo);
  EXPECT_EQ(source, "--backend gloo");
  ASSERT_TRUE(ChooseBackend(Env({}), "", "cuda", &b, &source).ok());
  EXPECT_EQ(b, Backend::kNccl);
  EXPECT_EQ(source, "--backend nccl");

  ASSERT_TRUE(ChooseBackend(Env({{"PETNAME_BACKEND", "gloo"}}), "", "cuda", &b, &source).ok());
  EXPECT_EQ(b, Backend::kGloo);
  EXPECT_EQ(source, "PETNAME_BACKEND=gloo");
  ASSERT_TRUE(ChooseBackend(Env({{"PETNAME_BACKEND", "nccl"}}), "", "cpu", &b, &source).ok());
  EXPECT_EQ(b, Backend::kNccl);
  EXPECT_EQ(source, "PETNAME_BACKEND=nccl");

  ASSERT_TRUE(ChooseBackend(Env({{"PETNAME_BACKEND", "nccl"}}), "gloo", "cuda", &b, &source).ok());
  EXPECT_EQ(b, Backend::kGloo);
  EXPECT_EQ(source, "--backend gloo");

  ASSERT_TRUE(ChooseBackend(Env({{"PETNAME_BACKEND", ""}}), "", "cuda", &b, &source).ok());
  EXPECT_EQ(b, Backend::kNccl) << "an empty PETNAME_BACKEND is unset";
}

TEST(ChooseBackendTest, AnotherNameIsAUsageErrorNamingWhereItCameFrom) {
  Backend b = Backend::kGloo;
  std::string source;
  Status st = ChooseBackend(Env({{"PETNAME_BACKEND", "mpi"}}), "", "cpu", &b, &source);
  EXPECT_EQ(st.code(), Status::Code::kInvalidArgument);
  EXPECT_NE(st.message().find("PETNAME_BACKEND='mpi' is not a backend: gloo or nccl"),
            std::string::npos)
      << st.message();
  st = ChooseBackend(Env({}), "ucc", "cpu", &b, &source);
  EXPECT_EQ(st.code(), Status::Code::kInvalidArgument);
  EXPECT_NE(st.message().find("--backend must be gloo or nccl, not 'ucc'"), std::string::npos)
      << st.message();
}

TEST(RendezvousSecretTest, ARankTheOperatorStartedNeedsOne) {
  std::string secret = "stale";
  ASSERT_TRUE(RendezvousSecret(Env({}), &secret).ok());
  EXPECT_EQ(secret, "") << "by hand, without a secret: unauthenticated, as before";
  ASSERT_TRUE(RendezvousSecret(Env({{"PETNAME_RENDEZVOUS_SECRET", "ab12"}}), &secret).ok());
  EXPECT_EQ(secret, "ab12");
  ASSERT_TRUE(RendezvousSecret(
                  Env({{"PETNAME_JOB_UID", "u1"}, {"PETNAME_RENDEZVOUS_SECRET", "ab12"}}), &secret)
                  .ok());
  EXPECT_EQ(secret, "ab12");
  for (const auto& env : std::vector<std::map<std::string, std::string>>{
           {{"PETNAME_JOB_UID", "u1"}},
           {{"PETNAME_JOB_UID", "u1"}, {"PETNAME_RENDEZVOUS_SECRET", ""}},
           {{"PETNAME_JOB_UID", ""}, {"PETNAME_RENDEZVOUS_SECRET", ""}}}) {
    const Status st = RendezvousSecret(Env(env), &secret);
    EXPECT_EQ(st.code(), Status::Code::kInvalidArgument);
    EXPECT_EQ(st.message().rfind("PETNAME_RENDEZVOUS_SECRET is empty or unset, but "
                                 "PETNAME_JOB_UID says the operator started this rank",
                                 0),
              0U)
        << st.message();
  }
}

}  // namespace
}  // namespace petname::dist
