#include "operator/logging/logging.h"

#include <gtest/gtest.h>
#include <spdlog/details/log_msg.h>
#include <nlohmann/json.hpp>

#include <set>
#include <thread>

namespace petname::logging {
namespace {

std::string Line(Format format, const std::string& text) {
  spdlog::details::log_msg msg("operator", spdlog::level::info, text);
  spdlog::memory_buf_t buf;
  MakeFormatter(format)->format(msg, buf);
  return std::string(buf.data(), buf.size());
}

TEST(LoggingTest, JsonLinesAreObjectsWithTheReconcileTags) {
  nlohmann::json plain = nlohmann::json::parse(Line(Format::kJson, "starting"));
  EXPECT_EQ(plain["level"], "info");
  EXPECT_EQ(plain["msg"], "starting");
  EXPECT_FALSE(plain.contains("job"));
  EXPECT_EQ(plain["ts"].get<std::string>().back(), 'Z');
  {
    ReconcileScope scope("ns/j", "id-1");
    std::string line = Line(Format::kJson, "quote \" and\nnewline");
    EXPECT_EQ(line.back(), '\n');
    EXPECT_EQ(line.find('\n'), line.size() - 1);  // one line per record
    nlohmann::json j = nlohmann::json::parse(line);
    EXPECT_EQ(j["msg"], "quote \" and\nnewline");
    EXPECT_EQ(j["job"], "ns/j");
    EXPECT_EQ(j["reconcileID"], "id-1");
  }
  EXPECT_FALSE(nlohmann::json::parse(Line(Format::kJson, "after"))
                   .contains("reconcileID"));  // the scope ended
}

TEST(LoggingTest, HelperThreadsTakeOverTheTags) {
  ReconcileScope scope("ns/j", "id-3");
  std::string line;
  std::thread([&line, tags = ReconcileScope::Current()] {
    ReconcileScope helper(tags);
    line = Line(Format::kText, "from a helper");
  }).join();
  EXPECT_NE(line.find("job=ns/j reconcileID=id-3"), std::string::npos) << line;
}

TEST(LoggingTest, TextLinesCarryTheTagsAsKeyValues) {
  ReconcileScope scope("ns/j", "id-2");
  std::string line = Line(Format::kText, "created pod j-rank-0");
  EXPECT_NE(line.find(" info created pod j-rank-0 job=ns/j reconcileID=id-2\n"), std::string::npos)
      << line;
}

TEST(LoggingTest, ParsesFormats) {
  Format f;
  EXPECT_TRUE(ParseFormat("json", &f).ok());
  EXPECT_EQ(f, Format::kJson);
  EXPECT_TRUE(ParseFormat("text", &f).ok());
  EXPECT_EQ(f, Format::kText);
  EXPECT_FALSE(ParseFormat("xml", &f).ok());
}

TEST(LoggingTest, UuidsAreVersion4AndDistinct) {
  std::set<std::string> ids;
  for (int i = 0; i < 100; ++i) {
    std::string id = RandomUuid();
    ASSERT_EQ(id.size(), 36u);
    EXPECT_EQ(id[14], '4');
    ids.insert(id);
  }
  EXPECT_EQ(ids.size(), 100u);
}

}  // namespace
}  // namespace petname::logging
