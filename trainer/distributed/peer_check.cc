#include "trainer/distributed/peer_check.h"

#include "common/sha256.h"

namespace petname::dist {
namespace {

constexpr const char* kMacPrefix = "mac=";
constexpr size_t kNonceBytes = 16;

// What the MAC covers. Every nonce is length-prefixed, so that no two lists of nonces (whatever
// a peer published) give the same text.
std::string Mac(const std::string& settings_text, int rank, const std::string& secret,
                const std::vector<std::string>& nonces) {
  std::string signed_text = "nonces=";
  for (const std::string& n : nonces) signed_text += std::to_string(n.size()) + ":" + n + ";";
  signed_text += "\nrank=" + std::to_string(rank) + "\n" + settings_text;
  return HmacSha256Hex(secret, signed_text);
}

}  // namespace

Status NewNonce(std::string* nonce) { return RandomHex(kNonceBytes, nonce); }

std::string EncodeIdentity(const Fingerprint& settings, int rank, const std::string& secret,
                           const std::vector<std::string>& nonces) {
  const std::string text = FingerprintText(settings);
  return kMacPrefix + Mac(text, rank, secret, nonces) + "\n" + text;
}

Status CheckPeer(const std::string& entry, int peer, int self, const Fingerprint& mine,
                 const std::string& secret, const std::vector<std::string>& nonces) {
  const std::string who = "rendezvous: rank " + std::to_string(self) + ": ";
  const size_t eol = entry.find('\n');
  const size_t prefix = std::string(kMacPrefix).size();
  const bool framed = entry.rfind(kMacPrefix, 0) == 0 && eol != std::string::npos;
  const std::string text = framed ? entry.substr(eol + 1) : "";
  const std::string mac = framed ? entry.substr(prefix, eol - prefix) : "";
  Fingerprint theirs;
  if (!framed || !EqualInConstantTime(mac, Mac(text, peer, secret, nonces)) ||
      !ParseFingerprintText(text, &theirs).ok()) {
    return Status::FailedPrecondition(
        who + "the entry of rank " + std::to_string(peer) +
        " is not signed with this job's rendezvous secret for this attempt "
        "(PETNAME_RENDEZVOUS_SECRET differs, a process outside the job connected to MASTER_PORT, "
        "or an entry of an earlier attempt was replayed); refusing to form the group");
  }
  const std::string field = FirstDifference(mine, theirs);
  if (field.empty()) return Status::Ok();
  return Status::FailedPrecondition(who + "rank " + std::to_string(peer) + " runs with " +
                                    DescribeSetting(theirs, field) + ", this rank with " +
                                    DescribeSetting(mine, field) +
                                    "; every rank of a job must train the same settings");
}

}  // namespace petname::dist
