#include "trainer/distributed/peer_check.h"

#include <gtest/gtest.h>

namespace petname::dist {
namespace {

const Fingerprint kSettings = {{"data", "ab12"}, {"lr", "0.001"}, {"seed", "42"}};

TEST(PeerCheckTest, TheSameSettingsUnderTheSameSecretPass) {
  const std::string entry = EncodeIdentity(kSettings, 1, "s3cret", "n1");
  EXPECT_TRUE(CheckPeer(entry, 1, 0, kSettings, "s3cret", "n1").ok());
}

TEST(PeerCheckTest, ADifferentSettingIsNamedWithBothValues) {
  Fingerprint other = kSettings;
  other["lr"] = "0.002";
  Status st = CheckPeer(EncodeIdentity(other, 1, "s", "n"), 1, 0, kSettings, "s", "n");
  EXPECT_EQ(st.code(), Status::Code::kFailedPrecondition);
  EXPECT_EQ(st.message(),
            "rendezvous: rank 0: rank 1 runs with lr=0.002, this rank with lr=0.001; every rank "
            "of a job must train the same settings");
  other.erase("lr");
  st = CheckPeer(EncodeIdentity(other, 1, "s", "n"), 1, 0, kSettings, "s", "n");
  EXPECT_NE(st.message().find("runs with no lr, this rank with lr=0.001"), std::string::npos)
      << st.message();
}

TEST(PeerCheckTest, AnotherSecretARenamedRankAnotherNonceOrTamperingFailTheMac) {
  const std::string entry = EncodeIdentity(kSettings, 1, "s", "n");
  std::string tampered = entry;
  tampered.replace(tampered.find("lr=0.001"), 8, "lr=0.002");
  for (const auto& [value, peer, secret, nonce] :
       {std::tuple{EncodeIdentity(kSettings, 1, "other", "n"), 1, "s", "n"},
        std::tuple{entry, 2, "s", "n"},   // rank 1's entry replayed as rank 2's
        std::tuple{entry, 1, "s", "n2"},  // from another rendezvous
        std::tuple{tampered, 1, "s", "n"}, std::tuple{std::string("junk"), 1, "s", "n"},
        std::tuple{std::string(""), 1, "s", "n"}}) {
    Status st = CheckPeer(value, peer, 0, kSettings, secret, nonce);
    EXPECT_EQ(st.code(), Status::Code::kFailedPrecondition) << value;
    EXPECT_NE(st.message().find("is not signed with this job's rendezvous secret"),
              std::string::npos)
        << st.message();
  }
}

TEST(PeerCheckTest, WithoutASecretSettingsAreStillCompared) {
  Fingerprint other = kSettings;
  other["seed"] = "7";
  EXPECT_TRUE(CheckPeer(EncodeIdentity(kSettings, 1, "", "n"), 1, 0, kSettings, "", "n").ok());
  EXPECT_NE(CheckPeer(EncodeIdentity(other, 1, "", "n"), 1, 0, kSettings, "", "n")
                .message()
                .find("seed=7"),
            std::string::npos);
}

}  // namespace
}  // namespace petname::dist
