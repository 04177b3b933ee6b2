#include "common/status.h"

#include <gtest/gtest.h>

namespace petname {
namespace {

TEST(StatusTest, DefaultIsOk) {
  Status st;
  EXPECT_TRUE(st.ok());
  EXPECT_EQ(st.ToString(), "OK");
  EXPECT_EQ(st.ExitCode(), 0);
}

TEST(StatusTest, UsageErrorsExitTwoOthersOne) {
  EXPECT_EQ(Status::InvalidArgument("bad --epochs").ExitCode(), 2);
  EXPECT_EQ(Status::IoError("disk").ExitCode(), 1);
  EXPECT_EQ(Status::Corruption("sum").ExitCode(), 1);
  EXPECT_EQ(Status::NotFound("x").ToString(), "not found: x");
}

Status FailsThenNeverReached(bool* reached) {
  PETNAME_RETURN_IF_ERROR(Status::Unavailable("peer"));
  *reached = true;
  return Status::Ok();
}

TEST(StatusTest, ReturnIfErrorPropagates) {
  bool reached = false;
  Status st = FailsThenNeverReached(&reached);
  EXPECT_EQ(st.code(), Status::Code::kUnavailable);
  EXPECT_FALSE(reached);
}

}  // namespace
}  // namespace petname
