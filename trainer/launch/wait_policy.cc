#include "trainer/launch/wait_policy.h"

#include <cctype>
#include <cstdlib>

namespace petname::launch {
namespace {

// `value` without leading and trailing white space; "" for nullptr.
std::string Trimmed(const char* value) {
  std::string text = value != nullptr ? value : "";
  const size_t first = text.find_first_not_of(" \t\n\r\f\v");
  if (first == std::string::npos) return "";
  return text.substr(first, text.find_last_not_of(" \t\n\r\f\v") - first + 1);
}

std::string Lower(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

// `more` appended to `text`, joined by ", " when both are non-empty.
std::string Joined(const std::string& text, const std::string& more) {
  return text.empty() ? more : text + ", " + more;
}

}  // namespace

std::string WaitPolicy::Describe() const {
  return "OpenMP wait policy " + policy + " (" + why + ")";
}

WaitPolicy ChooseWaitPolicy(const char* omp_wait_policy, const char* gomp_spincount,
                            const char* marker) {
  const std::string wait = Trimmed(omp_wait_policy);
  const std::string spin = Trimmed(gomp_spincount);
  WaitPolicy out;
  if (wait.empty() && spin.empty()) {
    out.policy = "runtime default";
    out.source = "none";
    out.why = "OMP_WAIT_POLICY and GOMP_SPINCOUNT unset";
    return out;
  }
  if (!Trimmed(marker).empty() && wait == kPetnameWaitPolicy && spin.empty()) {
    out.origin = WaitPolicyOrigin::kPetname;
    out.policy = "passive";
    out.source = "petname default";
    out.why = out.source;
    return out;
  }
  out.origin = WaitPolicyOrigin::kUser;
  if (!wait.empty()) {
    out.policy = Lower(wait);
    out.source = "OMP_WAIT_POLICY";
    out.why = "OMP_WAIT_POLICY=" + wait;
  }
  if (!spin.empty()) {
    out.policy = Joined(out.policy, "spin " + spin);
    out.source = Joined(out.source, "GOMP_SPINCOUNT");
    out.why = Joined(out.why, "GOMP_SPINCOUNT=" + spin);
  }
  return out;
}

WaitPolicy ProcessWaitPolicy() {
  return ChooseWaitPolicy(std::getenv("OMP_WAIT_POLICY"), std::getenv("GOMP_SPINCOUNT"),
                          std::getenv(kWaitPolicyMarker));
}

}  // namespace petname::launch
