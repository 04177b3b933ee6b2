#include "common/url.h"

#include <gtest/gtest.h>

namespace petname {
namespace {

TEST(ParseDownloadUrl, AcceptsHttpAndHttpsWithPortPathAndQuery) {
  DownloadUrl url;
  ASSERT_TRUE(
      ParseDownloadUrl("https://data.example.org:8443/pets/seattle.csv?x=1#top", &url).ok());
  EXPECT_EQ(url.scheme, "https");
  EXPECT_EQ(url.authority, "data.example.org:8443");
  EXPECT_EQ(url.path, "/pets/seattle.csv");
  ASSERT_TRUE(ParseDownloadUrl("HTTP://host", &url).ok());
  EXPECT_EQ(url.scheme, "http");
  EXPECT_EQ(url.path, "");
}

TEST(ParseDownloadUrl, RefusesOtherSchemesAndHostlessUrls) {
  DownloadUrl url;
  for (const char* bad : {"file:///etc/passwd", "ftp://host/x", "host/x.csv", "", "https://",
                          "https://:443/x", "https://user:pw@/x", "https://host/a b"}) {
    Status st = ParseDownloadUrl(bad, &url);
    EXPECT_EQ(st.code(), Status::Code::kInvalidArgument) << bad;
  }
}

TEST(ParseDownloadUrl, MessageNeverShowsCredentials) {
  DownloadUrl url;
  Status st = ParseDownloadUrl("ftp://alice:s3cret@host/x?token=abc", &url);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.message().find("s3cret"), std::string::npos) << st.message();
  EXPECT_EQ(st.message().find("token"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("ftp://host/x"), std::string::npos) << st.message();
}

TEST(RedactUrl, DropsUserinfoQueryAndFragment) {
  EXPECT_EQ(RedactUrl("https://alice:s3cret@host:8443/a/b.csv?sig=xyz#f"),
            "https://host:8443/a/b.csv");
  EXPECT_EQ(RedactUrl("http://host"), "http://host");
  EXPECT_EQ(RedactUrl("http://host?token=1"), "http://host");
}

TEST(RedactUrl, UserinfoWithUnencodedDelimitersIsStillDropped) {
  EXPECT_EQ(RedactUrl("https://bob:p?ss#w@host/x"), "https://host/x");
  EXPECT_EQ(RedactUrl("https://a@b@host/x"), "https://host/x");
}

TEST(RedactUrl, UnparsableInputShowsNoContent) {
  EXPECT_EQ(RedactUrl("alice:s3cret"), "...");
  EXPECT_EQ(RedactUrl("https://host/a\nb"), "https://...");
}

TEST(UrlFileName, LastPlainPathSegmentElseData) {
  EXPECT_EQ(UrlFileName("https://host/pets/seattle_pet_licenses.csv?sig=1"),
            "seattle_pet_licenses.csv");
  EXPECT_EQ(UrlFileName("https://host/pets/"), "data");
  EXPECT_EQ(UrlFileName("https://host"), "data");
  EXPECT_EQ(UrlFileName("https://host/.."), "data");
  EXPECT_EQ(UrlFileName("https://host/a%20b.csv"), "data");
  EXPECT_EQ(UrlFileName("not a url"), "data");
}

}  // namespace
}  // namespace petname
