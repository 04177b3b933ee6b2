#include "tests/trainer/cli/expect_run.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "trainer/checkpoint/store.h"

namespace petname::testing {

void ExpectOneLineError(const RunResult& r, int exit_code, const std::string& needle,
                        bool only_line) {
  EXPECT_EQ(r.signal, 0);
  EXPECT_EQ(r.exit_code, exit_code) << r.err;
  size_t last = r.err.rfind('\n', r.err.size() - 2);
  std::string error_line = last == std::string::npos ? r.err : r.err.substr(last + 1);
  EXPECT_EQ(error_line.rfind("petname: error: ", 0), 0u) << r.err;
  EXPECT_EQ(r.err.find("error"), r.err.find("petname: error: ") + 9) << r.err;
  EXPECT_NE(error_line.find(needle), std::string::npos)
      << "wanted \"" << needle << "\" in " << r.err;
  if (only_line) {
    EXPECT_EQ(last, std::string::npos) << r.err;
  }
}

void ExpectCheckpoints(const std::string& root, const std::vector<std::string>& names) {
  EXPECT_EQ(checkpoint::ListCheckpoints(root), names);
  for (const std::string& n : names) {
    checkpoint::Manifest m;
    EXPECT_TRUE(checkpoint::VerifyCheckpoint(root + "/" + n, &m, "").ok()) << n;
  }
  for (const auto& e : std::filesystem::directory_iterator(root)) {
    EXPECT_EQ(e.path().filename().string().rfind(".staging", 0), std::string::npos);
  }
}

}  // namespace petname::testing
