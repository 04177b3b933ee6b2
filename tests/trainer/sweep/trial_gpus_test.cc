// Which GPUs `petname sweep`'s concurrent GPU trials get (trainer/sweep/trial_gpus.h).
#include "trainer/sweep/trial_gpus.h"

#include <gtest/gtest.h>

namespace petname::sweep {
namespace {

using Gpus = std::vector<std::string>;

TEST(TrialGpusTest, VisibleGpusAreCudasIndicesOrTheFirstEntriesOfCudaVisibleDevices) {
  EXPECT_EQ(VisibleGpus(std::nullopt, 0), Gpus{});
  EXPECT_EQ(VisibleGpus(std::nullopt, 3), (Gpus{"0", "1", "2"}));
  EXPECT_EQ(VisibleGpus(std::string("2,5,7"), 3), (Gpus{"2", "5", "7"}));
  // CUDA stops at the first entry it cannot use: its count says how many entries hold.
  EXPECT_EQ(VisibleGpus(std::string("3,1,99"), 2), (Gpus{"3", "1"}));
  EXPECT_EQ(VisibleGpus(std::string("GPU-5fd4e2a0,MIG-7ac1b9d3"), 2),
            (Gpus{"GPU-5fd4e2a0", "MIG-7ac1b9d3"}));
  EXPECT_EQ(VisibleGpus(std::string(""), 0), Gpus{});
}

TEST(TrialGpusTest, EachSlotGetsGpusOfItsOwn) {
  const Gpus four = {"0", "1", "2", "3"};
  EXPECT_EQ(SlotGpus(four, 0, 1), "0");
  EXPECT_EQ(SlotGpus(four, 3, 1), "3");
  EXPECT_EQ(SlotGpus(four, 0, 2), "0,1");
  EXPECT_EQ(SlotGpus(four, 1, 2), "2,3");
  EXPECT_EQ(SlotGpus({"4", "6", "7"}, 1, 1), "6");
}

TEST(TrialGpusTest, ARunningTrialTakesTheLowestFreeSlot) {
  EXPECT_EQ(LowestFreeSlot({}, 2), 0);
  EXPECT_EQ(LowestFreeSlot({0}, 2), 1);
  EXPECT_EQ(LowestFreeSlot({1}, 2), 0);  // slot 0's trial ended
  EXPECT_EQ(LowestFreeSlot({1, 0}, 2), -1);
  EXPECT_EQ(LowestFreeSlot({2, 0}, 4), 1);
}

TEST(TrialGpusTest, WithoutParallelTheGpusCapTheTrialsAtOnce) {
  int parallel = 0;
  ASSERT_TRUE(GpuParallel(0, 4, 1, 2, &parallel).ok());
  EXPECT_EQ(parallel, 2);
  ASSERT_TRUE(GpuParallel(0, 1, 1, 8, &parallel).ok());
  EXPECT_EQ(parallel, 1);
  ASSERT_TRUE(GpuParallel(0, 4, 2, 5, &parallel).ok());  // 2 trials of 2 GPUs; one left idle
  EXPECT_EQ(parallel, 2);
  ASSERT_TRUE(GpuParallel(3, 3, 1, 4, &parallel).ok());
  EXPECT_EQ(parallel, 3);
  ASSERT_TRUE(GpuParallel(2, 2, 2, 4, &parallel).ok());
  EXPECT_EQ(parallel, 2);
}

TEST(TrialGpusTest, MoreGpuTrialsThanGpusAreUsageErrors) {
  int parallel = 7;
  Status st = GpuParallel(3, 3, 1, 2, &parallel);
  EXPECT_EQ(st.ExitCode(), 2);
  EXPECT_EQ(st.message(),
            "--parallel 3: more GPU trials at once than the GPUs hold (1 GPU per trial, 2 "
            "visible; at most --parallel 2)");
  st = GpuParallel(2, 2, 2, 3, &parallel);
  EXPECT_EQ(st.ExitCode(), 2);
  EXPECT_NE(st.message().find("(2 GPUs per trial, 3 visible; at most --parallel 1)"),
            std::string::npos)
      << st.message();
  st = GpuParallel(0, 2, 1, 0, &parallel);
  EXPECT_EQ(st.ExitCode(), 2);
  EXPECT_EQ(st.message(),
            "sweep: the trials need GPUs but no GPU is visible (1 GPU per trial, 0 visible)");
  st = GpuParallel(0, 2, 4, 2, &parallel);
  EXPECT_EQ(st.ExitCode(), 2);
  EXPECT_EQ(st.message(),
            "sweep: the trials need GPUs but the visible GPUs hold no trial (4 GPUs per trial, 2 "
            "visible)");
  EXPECT_EQ(parallel, 7);  // untouched on error
}

}  // namespace
}  // namespace petname::sweep
