// How `petname train` sets OpenMP's wait policy (launch/wait_policy.h), through the real binary:
// passive by default, chosen before the OpenMP runtime starts (petname re-executes itself); a
// user's OMP_WAIT_POLICY or GOMP_SPINCOUNT is kept; the ranks of --nproc inherit the policy.
// With OMP_DISPLAY_ENV=VERBOSE libgomp prints, as each process image loads it, the settings it
// took; where the OpenMP runtime is libgomp the tests also check those.
#include <gtest/gtest.h>

#include <map>
#include <sstream>

#include "tests/trainer/launch/subprocess.h"
#include "trainer/launch/wait_policy.h"

namespace petname::testing {
namespace {

constexpr char kSpinCount[] = "GOMP_SPINCOUNT = '";

// `petname train` on 200 names for one epoch, started by env(1) with OMP_WAIT_POLICY,
// GOMP_SPINCOUNT and petname's marker removed from the test's environment, then `set`
// ("NAME=VALUE") and OMP_DISPLAY_ENV=VERBOSE added; `extra` flags appended.
std::vector<std::string> Train(const std::vector<std::string>& set,
                               const std::vector<std::string>& extra = {}) {
  std::vector<std::string> argv = {
      "/usr/bin/env",   "-u", "OMP_WAIT_POLICY",         "-u",
      "GOMP_SPINCOUNT", "-u", launch::kWaitPolicyMarker, "OMP_DISPLAY_ENV=VERBOSE"};
  argv.insert(argv.end(), set.begin(), set.end());
  argv.insert(argv.end(), {PETNAME_BIN, "train", "--data", PETNAME_TEST_DATA, "--max-names", "200",
                           "--epochs", "1", "--batch-size", "128"});
  argv.insert(argv.end(), extra.begin(), extra.end());
  return argv;
}

// The first line of `out` that starts with `prefix` + "petname: threads: ", or "".
std::string ThreadLine(const std::string& out, const std::string& prefix = "") {
  std::istringstream lines(out);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.rfind(prefix + "petname: threads: ", 0) == 0) return line;
  }
  return "";
}

bool EndsWith(const std::string& text, const std::string& end) {
  return text.size() >= end.size() && text.compare(text.size() - end.size(), end.size(), end) == 0;
}

// The GOMP_SPINCOUNT values libgomp displayed, in order, per line prefix ("" for a process
// of its own, "[rank R] " for a rank of the launcher). Empty where the runtime is not libgomp.
std::map<std::string, std::vector<std::string>> SpinCounts(const std::string& out) {
  std::map<std::string, std::vector<std::string>> counts;
  std::istringstream lines(out);
  std::string line;
  while (std::getline(lines, line)) {
    const size_t at = line.find(kSpinCount);
    if (at == std::string::npos) continue;
    const std::string prefix =
        line.rfind("[rank ", 0) == 0 ? line.substr(0, line.find("] ") + 2) : std::string();
    const size_t value = at + sizeof(kSpinCount) - 1;
    counts[prefix].push_back(line.substr(value, line.find('\'', value) - value));
  }
  return counts;
}

TEST(WaitPolicyCliTest, PetnameChoosesPassiveBeforeOpenMpStarts) {
  std::string out;
  ASSERT_EQ(RunProcess(Train({}), {}, &out), 0) << out;
  EXPECT_TRUE(EndsWith(ThreadLine(out), "), OpenMP wait policy passive (petname default)")) << out;
  const auto counts = SpinCounts(out);
  if (!counts.empty()) {
    // Two images: the first, with the runtime's default, re-executed itself; the second's
    // libgomp took the passive policy (no spinning).
    ASSERT_EQ(counts.size(), 1u) << out;
    EXPECT_EQ(counts.at("").size(), 2u) << out;
    EXPECT_EQ(counts.at("").back(), "0") << out;
  }
}

TEST(WaitPolicyCliTest, TheUsersOmpWaitPolicyWins) {
  std::string out;
  ASSERT_EQ(RunProcess(Train({"OMP_WAIT_POLICY=ACTIVE"}), {}, &out), 0) << out;
  EXPECT_TRUE(EndsWith(ThreadLine(out), "), OpenMP wait policy active (OMP_WAIT_POLICY=ACTIVE)"))
      << out;
  EXPECT_EQ(out.find("petname default"), std::string::npos) << out;
  const auto counts = SpinCounts(out);
  if (!counts.empty()) {
    ASSERT_EQ(counts.at("").size(), 1u) << out;  // not re-executed
    EXPECT_NE(counts.at("").front(), "0") << out;
  }
}

TEST(WaitPolicyCliTest, TheUsersGompSpincountWins) {
  std::string out;
  ASSERT_EQ(RunProcess(Train({"GOMP_SPINCOUNT=10000"}), {}, &out), 0) << out;
  EXPECT_TRUE(EndsWith(ThreadLine(out), "), OpenMP wait policy spin 10000 (GOMP_SPINCOUNT=10000)"))
      << out;
  const auto counts = SpinCounts(out);
  if (!counts.empty()) {
    EXPECT_EQ(counts.at(""), std::vector<std::string>{"10000"}) << out;
  }
}

// Only rank 0 prints the thread line; libgomp's display shows what every rank took.
TEST(WaitPolicyCliTest, TheRanksOfTheLauncherInheritThePolicy) {
  std::string out;
  const int code = RunProcess(Train({}, {"--nproc", "2"}), {}, &out);
#ifdef PETNAME_TEST_HAVE_GLOO
  ASSERT_EQ(code, 0) << out;
  const std::string line = ThreadLine(out, "[rank 0] ");
  EXPECT_NE(line.find(" intra-op (OMP_NUM_THREADS="), std::string::npos) << out;
  EXPECT_TRUE(EndsWith(line, "), OpenMP wait policy passive (petname default)")) << out;
  const auto counts = SpinCounts(out);
  if (!counts.empty()) {
    for (const char* rank : {"[rank 0] ", "[rank 1] "}) {
      ASSERT_EQ(counts.count(rank), 1u) << rank << out;
      EXPECT_EQ(counts.at(rank), std::vector<std::string>{"0"}) << rank << out;
    }
  }
#else
  EXPECT_EQ(code, 2) << out;
#endif
}

}  // namespace
}  // namespace petname::testing
