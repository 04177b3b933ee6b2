#include "trainer/distributed/peer_check.h"

#include <gtest/gtest.h>

#include <set>
#include <tuple>

namespace petname::dist {
namespace {

const Fingerprint kSettings = {{"data", "ab12"}, {"lr", "0.001"}, {"seed", "42"}};
const std::vector<std::string> kNonces = {"n0", "n1"};

void ExpectNotSigned(const Status& st, const std::string& why) {
  EXPECT_EQ(st.code(), Status::Code::kFailedPrecondition) << why;
  EXPECT_NE(st.message().find("is not signed with this job's rendezvous secret"), std::string::npos)
      << why << ": " << st.message();
}

TEST(PeerCheckTest, TheSameSettingsUnderTheSameSecretPass) {
  const std::string entry = EncodeIdentity(kSettings, 1, "s3cret", kNonces);
  EXPECT_TRUE(CheckPeer(entry, 1, 0, kSettings, "s3cret", kNonces).ok());
}

TEST(PeerCheckTest, ADifferentSettingIsNamedWithBothValues) {
  Fingerprint other = kSettings;
  other["lr"] = "0.002";
  Status st = CheckPeer(EncodeIdentity(other, 1, "s", kNonces), 1, 0, kSettings, "s", kNonces);
  EXPECT_EQ(st.code(), Status::Code::kFailedPrecondition);
  EXPECT_EQ(st.message(),
            "rendezvous: rank 0: rank 1 runs with lr=0.002, this rank with lr=0.001; every rank "
            "of a job must train the same settings");
  other.erase("lr");
  st = CheckPeer(EncodeIdentity(other, 1, "s", kNonces), 1, 0, kSettings, "s", kNonces);
  EXPECT_NE(st.message().find("runs with no lr, this rank with lr=0.001"), std::string::npos)
      << st.message();
}

TEST(PeerCheckTest, AnotherSecretARenamedRankOrTamperingFailTheMac) {
  const std::string entry = EncodeIdentity(kSettings, 1, "s", {"n0", "n1", "n2"});
  std::string tampered = entry;
  tampered.replace(tampered.find("lr=0.001"), 8, "lr=0.002");
  for (const auto& [value, peer, why] :
       {std::tuple{EncodeIdentity(kSettings, 1, "other", {"n0", "n1", "n2"}), 1, "wrong secret"},
        std::tuple{entry, 2, "rank 1's entry replayed as rank 2's"},
        std::tuple{tampered, 1, "tampered settings"}, std::tuple{std::string("junk"), 1, "junk"},
        std::tuple{std::string(""), 1, "empty"}}) {
    ExpectNotSigned(CheckPeer(value, peer, 0, kSettings, "s", {"n0", "n1", "n2"}), why);
  }
}

// A recorded store entry of an earlier attempt (same secret, same settings, same rank) does not
// verify now: the checking rank's own nonce is fresh, and whatever nonces the store shows for
// the others, the MAC covers this rank's.
TEST(PeerCheckTest, AnEntryReplayedFromAnEarlierAttemptIsRefused) {
  const std::vector<std::string> earlier = {"a0", "a1"};
  const std::string recorded = EncodeIdentity(kSettings, 0, "s", earlier);
  ASSERT_TRUE(CheckPeer(recorded, 0, 1, kSettings, "s", earlier).ok());
  // This attempt: rank 1 made "b1"; a replayer fed rank 0's old nonce into the store.
  ExpectNotSigned(CheckPeer(recorded, 0, 1, kSettings, "s", {"a0", "b1"}), "replayed entry");
  ExpectNotSigned(CheckPeer(recorded, 0, 1, kSettings, "s", {"b0", "b1"}), "replayed entry");
}

TEST(PeerCheckTest, NoncesAreLengthPrefixedSoBoundariesCannotShift) {
  const std::string entry = EncodeIdentity(kSettings, 1, "s", {"ab;", "c"});
  ExpectNotSigned(CheckPeer(entry, 1, 0, kSettings, "s", {"ab", ";c"}), "shifted boundary");
  ExpectNotSigned(CheckPeer(entry, 1, 0, kSettings, "s", {"ab;", "c", ""}), "another world");
}

TEST(PeerCheckTest, FreshNoncesAreRandomHexAndDiffer) {
  std::set<std::string> seen;
  for (int i = 0; i < 100; ++i) {
    std::string nonce;
    ASSERT_TRUE(NewNonce(&nonce).ok());
    EXPECT_EQ(nonce.size(), 32U) << nonce;
    EXPECT_EQ(nonce.find_first_not_of("0123456789abcdef"), std::string::npos) << nonce;
    seen.insert(nonce);
  }
  EXPECT_EQ(seen.size(), 100U);
}

TEST(PeerCheckTest, WithoutASecretSettingsAreStillCompared) {
  Fingerprint other = kSettings;
  other["seed"] = "7";
  EXPECT_TRUE(
      CheckPeer(EncodeIdentity(kSettings, 1, "", kNonces), 1, 0, kSettings, "", kNonces).ok());
  EXPECT_NE(CheckPeer(EncodeIdentity(other, 1, "", kNonces), 1, 0, kSettings, "", kNonces)
                .message()
                .find("seed=7"),
            std::string::npos);
}

}  // namespace
}  // namespace petname::dist
