#include "common/fingerprint.h"

#include "common/sha256.h"

namespace petname {

std::string FingerprintText(const Fingerprint& f) {
  std::string out;
  for (const auto& [name, value] : f) out += name + "=" + value + "\n";
  return out;
}

Status ParseFingerprintText(const std::string& text, Fingerprint* out) {
  Fingerprint f;
  size_t begin = 0;
  while (begin < text.size()) {
    size_t end = text.find('\n', begin);
    if (end == std::string::npos) end = text.size();
    const std::string line = text.substr(begin, end - begin);
    const size_t eq = line.find('=');
    if (eq == std::string::npos || eq == 0) {
      return Status::Corruption("fingerprint line without name=value: \"" + line.substr(0, 64) +
                                "\"");
    }
    const std::string name = line.substr(0, eq);
    if (!f.empty() && name <= f.rbegin()->first) {
      return Status::Corruption("fingerprint names out of order at \"" + name.substr(0, 64) + "\"");
    }
    f.emplace(name, line.substr(eq + 1));
    begin = end + 1;
  }
  *out = std::move(f);
  return Status::Ok();
}

std::string FingerprintDigest(const Fingerprint& f) { return Sha256Hex(FingerprintText(f)); }

std::string FirstDifference(const Fingerprint& a, const Fingerprint& b,
                            const std::set<std::string>& ignore) {
  auto ia = a.begin();
  auto ib = b.begin();
  while (ia != a.end() || ib != b.end()) {
    std::string name;
    if (ib == b.end() || (ia != a.end() && ia->first < ib->first)) {
      name = (ia++)->first;
    } else if (ia == a.end() || ib->first < ia->first) {
      name = (ib++)->first;
    } else {
      const bool same = ia->second == ib->second;
      name = ia->first;
      ++ia;
      ++ib;
      if (same) continue;
    }
    if (!ignore.count(name)) return name;
  }
  return "";
}

std::string DescribeSetting(const Fingerprint& f, const std::string& name) {
  auto it = f.find(name);
  return it == f.end() ? "no " + name : name + "=" + it->second;
}

}  // namespace petname
