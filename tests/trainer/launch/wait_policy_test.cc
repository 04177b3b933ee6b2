#include "trainer/launch/wait_policy.h"

#include <gtest/gtest.h>

namespace petname::launch {
namespace {

TEST(WaitPolicyTest, NeitherVariableMeansTheRuntimeDefaultAndAReexec) {
  for (const char* marker : {static_cast<const char*>(nullptr), "1"}) {
    const WaitPolicy w = ChooseWaitPolicy(nullptr, nullptr, marker);
    EXPECT_EQ(w.origin, WaitPolicyOrigin::kUnset);
    EXPECT_EQ(w.policy, "runtime default");
    EXPECT_EQ(w.source, "none");
    EXPECT_EQ(w.Describe(),
              "OpenMP wait policy runtime default (OMP_WAIT_POLICY and GOMP_SPINCOUNT unset)");
  }
}

TEST(WaitPolicyTest, EmptyValuesCountAsUnset) {
  EXPECT_EQ(ChooseWaitPolicy("", " ", nullptr).origin, WaitPolicyOrigin::kUnset);
  EXPECT_EQ(ChooseWaitPolicy("", nullptr, "").origin, WaitPolicyOrigin::kUnset);
}

TEST(WaitPolicyTest, WhatPetnameSetIsThePetnameDefault) {
  const WaitPolicy w = ChooseWaitPolicy(kPetnameWaitPolicy, nullptr, "1");
  EXPECT_EQ(w.origin, WaitPolicyOrigin::kPetname);
  EXPECT_EQ(w.policy, "passive");
  EXPECT_EQ(w.source, "petname default");
  EXPECT_EQ(w.Describe(), "OpenMP wait policy passive (petname default)");
  EXPECT_EQ(ChooseWaitPolicy(kPetnameWaitPolicy, "", "1").origin, WaitPolicyOrigin::kPetname);
}

TEST(WaitPolicyTest, TheUsersOmpWaitPolicyIsKept) {
  const WaitPolicy w = ChooseWaitPolicy("ACTIVE", nullptr, nullptr);
  EXPECT_EQ(w.origin, WaitPolicyOrigin::kUser);
  EXPECT_EQ(w.policy, "active");
  EXPECT_EQ(w.source, "OMP_WAIT_POLICY");
  EXPECT_EQ(w.Describe(), "OpenMP wait policy active (OMP_WAIT_POLICY=ACTIVE)");
  // PASSIVE without the marker is the user's too.
  const WaitPolicy passive = ChooseWaitPolicy(" passive ", nullptr, nullptr);
  EXPECT_EQ(passive.origin, WaitPolicyOrigin::kUser);
  EXPECT_EQ(passive.Describe(), "OpenMP wait policy passive (OMP_WAIT_POLICY=passive)");
}

TEST(WaitPolicyTest, TheUsersGompSpincountIsKept) {
  const WaitPolicy w = ChooseWaitPolicy(nullptr, "10000", nullptr);
  EXPECT_EQ(w.origin, WaitPolicyOrigin::kUser);
  EXPECT_EQ(w.policy, "spin 10000");
  EXPECT_EQ(w.source, "GOMP_SPINCOUNT");
  EXPECT_EQ(w.Describe(), "OpenMP wait policy spin 10000 (GOMP_SPINCOUNT=10000)");
}

TEST(WaitPolicyTest, BothUserVariablesAreNamed) {
  const WaitPolicy w = ChooseWaitPolicy("active", "infinite", nullptr);
  EXPECT_EQ(w.origin, WaitPolicyOrigin::kUser);
  EXPECT_EQ(w.policy, "active, spin infinite");
  EXPECT_EQ(w.source, "OMP_WAIT_POLICY, GOMP_SPINCOUNT");
  EXPECT_EQ(w.Describe(),
            "OpenMP wait policy active, spin infinite (OMP_WAIT_POLICY=active, "
            "GOMP_SPINCOUNT=infinite)");
}

// A rank inherits the marker; a user who changes either variable there gets that setting.
TEST(WaitPolicyTest, TheMarkerDoesNotHideAUserChange) {
  EXPECT_EQ(ChooseWaitPolicy("ACTIVE", nullptr, "1").origin, WaitPolicyOrigin::kUser);
  const WaitPolicy spin = ChooseWaitPolicy(kPetnameWaitPolicy, "10000", "1");
  EXPECT_EQ(spin.origin, WaitPolicyOrigin::kUser);
  EXPECT_EQ(spin.source, "OMP_WAIT_POLICY, GOMP_SPINCOUNT");
  EXPECT_EQ(ChooseWaitPolicy(nullptr, "10000", "1").origin, WaitPolicyOrigin::kUser);
}

}  // namespace
}  // namespace petname::launch
