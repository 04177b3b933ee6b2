#include "operator/endpoints.h"

#include <gtest/gtest.h>

namespace petname {
namespace {

BindAddress Parse(const std::string& bind) {
  BindAddress out;
  Status s = ParseBindAddress(bind, &out);
  EXPECT_TRUE(s.ok()) << bind << ": " << s.ToString();
  return out;
}

TEST(ParseBindAddressTest, ControllerRuntimeForms) {
  EXPECT_TRUE(Parse("0").disabled);
  BindAddress any = Parse(":8081");
  EXPECT_FALSE(any.disabled);
  EXPECT_EQ(any.host, "0.0.0.0");
  EXPECT_EQ(any.port, 8081);
  BindAddress loopback = Parse("127.0.0.1:8080");
  EXPECT_EQ(loopback.host, "127.0.0.1");
  EXPECT_EQ(loopback.port, 8080);
  BindAddress v6 = Parse("[::1]:9443");
  EXPECT_EQ(v6.host, "::1");
  EXPECT_EQ(v6.port, 9443);
  EXPECT_EQ(Parse("localhost:0").port, 0);
}

TEST(ParseBindAddressTest, MalformedAddressesNameThemselves) {
  for (const std::string bind : {"", "8081", "host:", ":80a", ":65536", ":1234567", "h:-1"}) {
    BindAddress out;
    Status s = ParseBindAddress(bind, &out);
    EXPECT_EQ(s.code(), Status::Code::kInvalidArgument) << bind;
    EXPECT_NE(s.message().find("'" + bind + "'"), std::string::npos) << s.message();
  }
}

TEST(ServeEndpointTest, ZeroStartsNothing) {
  std::unique_ptr<HttpServer> server;
  EXPECT_TRUE(ServeEndpoint("0", {}, &server).ok());
  EXPECT_EQ(server, nullptr);
}

}  // namespace
}  // namespace petname
