#include "trainer/checkpoint/layout.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <filesystem>

#include "common/untrusted_file.h"
#include "trainer/checkpoint/owner.h"

namespace petname::checkpoint {

namespace {

namespace fs = std::filesystem;

}  // namespace

Status ReadCheckpointFile(const std::string& dir, const std::string& name, int64_t max_bytes,
                          std::string* out) {
  UntrustedFileRules rules;
  rules.max_bytes = max_bytes;
  rules.what = "checkpoint file";
  Status st = ReadUntrustedFileIn(dir, name, rules, out);
  // A checkpoint file that is not a regular one of a sane size is damage, not a usage error.
  if (st.code() == Status::Code::kInvalidArgument) return Status::Corruption(st.message());
  return st;
}

std::string EpochDirName(int64_t epoch) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "epoch-%06lld", static_cast<long long>(epoch));
  return buf;
}

bool ParseEpochDirName(const std::string& name, int64_t* epoch) {
  constexpr size_t kPrefix = 6;  // "epoch-"
  if (name.size() < kPrefix + 6 || name.compare(0, kPrefix, "epoch-") != 0) return false;
  if (!std::all_of(name.begin() + kPrefix, name.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return false;
  int64_t value = 0;
  const char* end = name.data() + name.size();
  const auto [at, error] = std::from_chars(name.data() + kPrefix, end, value);
  if (error != std::errc() || at != end || EpochDirName(value) != name) return false;
  *epoch = value;
  return true;
}

std::vector<std::string> DirsBeyondKeep(const std::vector<std::string>& oldest_first, int keep) {
  size_t k = keep < 0 ? 0 : static_cast<size_t>(keep);
  if (oldest_first.size() <= k) return {};
  return {oldest_first.begin(), oldest_first.end() - static_cast<std::ptrdiff_t>(k)};
}

std::vector<std::string> ListCheckpoints(const std::string& root) {
  std::vector<std::pair<int64_t, std::string>> found;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(root, ec)) {
    int64_t epoch = 0;
    std::string name = entry.path().filename().string();
    if (entry.symlink_status(ec).type() == fs::file_type::directory &&
        ParseEpochDirName(name, &epoch)) {
      found.emplace_back(epoch, name);
    }
  }
  std::sort(found.begin(), found.end());
  std::vector<std::string> names;
  for (auto& f : found) names.push_back(std::move(f.second));
  return names;
}

bool ReadOwner(const std::string& root, const std::string& name, const std::string& key,
               Owner* owner) {
  std::string text;
  Manifest m;
  if (!ReadCheckpointFile(root, name + "/" + kManifest, kMaxManifestBytes, &text).ok() ||
      !ParseManifest(text, key, &m).ok()) {
    return false;
  }
  *owner = m.owner;
  return true;
}

std::vector<std::string> ListOwnedCheckpoints(const std::string& root, const Owner& owner,
                                              const std::string& key) {
  std::vector<std::string> owned;
  for (std::string& name : ListCheckpoints(root)) {
    Owner have;
    if (ReadOwner(root, name, key, &have) && BelongsTo(have, owner)) {
      owned.push_back(std::move(name));
    }
  }
  return owned;
}

bool ClaimedOwner(const std::string& root, Owner* owner) {
  const std::vector<std::string> names = ListCheckpoints(root);
  return !names.empty() && ReadOwner(root, names.back(), /*key=*/"", owner);
}

}  // namespace petname::checkpoint
