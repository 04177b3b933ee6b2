#include "trainer/distributed/peer_check.h"

#include "common/sha256.h"

namespace petname::dist {
namespace {

constexpr const char* kMacPrefix = "mac=";

std::string Mac(const std::string& settings_text, int rank, const std::string& secret,
                const std::string& nonce) {
  return HmacSha256Hex(secret,
                       "nonce=" + nonce + "\nrank=" + std::to_string(rank) + "\n" + settings_text);
}

}  // namespace

std::string EncodeIdentity(const Fingerprint& settings, int rank, const std::string& secret,
                           const std::string& nonce) {
  const std::string text = FingerprintText(settings);
  return kMacPrefix + Mac(text, rank, secret, nonce) + "\n" + text;
}

Status CheckPeer(const std::string& entry, int peer, int self, const Fingerprint& mine,
                 const std::string& secret, const std::string& nonce) {
  const std::string who = "rendezvous: rank " + std::to_string(self) + ": ";
  const size_t eol = entry.find('\n');
  const size_t prefix = std::string(kMacPrefix).size();
  const bool framed = entry.rfind(kMacPrefix, 0) == 0 && eol != std::string::npos;
  const std::string text = framed ? entry.substr(eol + 1) : "";
  const std::string mac = framed ? entry.substr(prefix, eol - prefix) : "";
  Fingerprint theirs;
  if (!framed || !EqualInConstantTime(mac, Mac(text, peer, secret, nonce)) ||
      !ParseFingerprintText(text, &theirs).ok()) {
    return Status::FailedPrecondition(
        who + "the entry of rank " + std::to_string(peer) +
        " is not signed with this job's rendezvous secret (PETNAME_RENDEZVOUS_SECRET differs, or "
        "a process outside the job connected to MASTER_PORT); refusing to form the group");
  }
  const std::string field = FirstDifference(mine, theirs);
  if (field.empty()) return Status::Ok();
  return Status::FailedPrecondition(who + "rank " + std::to_string(peer) + " runs with " +
                                    DescribeSetting(theirs, field) + ", this rank with " +
                                    DescribeSetting(mine, field) +
                                    "; every rank of a job must train the same settings");
}

}  // namespace petname::dist
