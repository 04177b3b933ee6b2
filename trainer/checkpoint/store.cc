#include "trainer/checkpoint/store.h"

#include <stdlib.h>

#include <algorithm>
#include <filesystem>

#include "common/file_util.h"
#include "common/private_dir.h"
#include "common/sha256.h"
#include "common/untrusted_file.h"
#include "trainer/checkpoint/manifest_mac.h"
#include "trainer/checkpoint/owner.h"

namespace petname::checkpoint {
namespace {

namespace fs = std::filesystem;

constexpr const char* kLatest = "latest";
constexpr const char* kStagingPrefix = ".staging-";

Status FsError(const std::string& what, const std::string& path, const std::error_code& ec) {
  return Status::IoError(what + " " + path + ": " + ec.message(), ec.value());
}

constexpr const char* kReplacedSuffix = ".replaced";

// The epoch directory that the staging entry `name` moved aside
// (".staging-epoch-000003-o<tag>-XXXXXX.replaced", or untagged as an older petname wrote it,
// -> "epoch-000003"), or "" when it is not one.
std::string ReplacedEpochDir(const std::string& name) {
  const std::string prefix = kStagingPrefix;
  const std::string suffix = kReplacedSuffix;
  if (name.size() <= prefix.size() + suffix.size() || name.rfind(prefix, 0) != 0 ||
      name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0) {
    return "";
  }
  const size_t dash = name.find('-', prefix.size() + std::string("epoch-").size());
  if (dash == std::string::npos) return "";
  const std::string dir = name.substr(prefix.size(), dash - prefix.size());
  int64_t epoch = 0;
  return ParseEpochDirName(dir, &epoch) ? dir : "";
}

// Cleans up after a crashed writer of `owner`: removes its staging directories. A published
// checkpoint that a writer had moved aside (".replaced") and not yet replaced is renamed back,
// whoever wrote it (that only restores a checkpoint; Commit never moves aside another owner's).
void RecoverStaging(const std::string& root, const Owner& owner) {
  std::error_code ec;
  const std::string tag = StagingTag(owner);
  std::vector<std::string> staged;
  for (const auto& entry : fs::directory_iterator(root, ec)) {
    std::string name = entry.path().filename().string();
    if (name.rfind(kStagingPrefix, 0) == 0) staged.push_back(std::move(name));
  }
  std::sort(staged.begin(), staged.end());
  for (const std::string& name : staged) {
    const fs::path path = fs::path(root) / name;
    const std::string epoch_dir = ReplacedEpochDir(name);
    if (!epoch_dir.empty() && !fs::exists(fs::path(root) / epoch_dir, ec)) {
      fs::rename(path, fs::path(root) / epoch_dir, ec);
      if (!ec) FsyncDirectory(root);
      continue;  // never removed: should the rename fail, the next writer tries again
    }
    if (StagingBelongsTo(name, tag)) fs::remove_all(path, ec);
  }
}

// The sha256 of the checkpoint file root/`name` (ReadCheckpointFile's rules), streamed.
Status HashFile(const std::string& root, const std::string& name, std::string* hex) {
  UntrustedFileRules rules;
  rules.max_bytes = kMaxCheckpointFileBytes;
  rules.what = "checkpoint file";
  Sha256 hash;
  Status read = StreamUntrustedFileIn(root, name, rules,
                                      [&hash](std::string_view chunk) { hash.Update(chunk); });
  if (read.code() == Status::Code::kInvalidArgument) return Status::Corruption(read.message());
  PETNAME_RETURN_IF_ERROR(read);
  *hex = hash.HexDigest();
  return Status::Ok();
}

// Streams the file root/`name` through SHA-256 and compares it with `want`.
Status CheckFile(const std::string& root, const std::string& name, const std::string& want,
                 const std::string& dir) {
  std::string got;
  Status read = HashFile(root, name, &got);
  if (read.code() == Status::Code::kNotFound) {
    return Status::NotFound(dir + ": " + name.substr(name.rfind('/') + 1) + " is missing");
  }
  PETNAME_RETURN_IF_ERROR(read);
  if (got != want) {
    return Status::Corruption(dir + ": checksum mismatch for " + name.substr(name.rfind('/') + 1));
  }
  return Status::Ok();
}

// VerifyFiles of the directory root/`prefix` ("" or "epoch-000003/"), reading every file
// beneath `root` without following a symlink.
Status VerifyFilesIn(const std::string& root, const std::string& prefix, const Manifest& manifest) {
  const std::string dir = prefix.empty() ? root : root + "/" + prefix.substr(0, prefix.size() - 1);
  for (const auto& [name, want] : manifest.files) {
    PETNAME_RETURN_IF_ERROR(CheckFile(root, prefix + name, want, dir));
  }
  return Status::Ok();
}

// VerifyCheckpoint of the directory root/`prefix` ("" or "epoch-000003/"), reading every file
// beneath `root` without following a symlink.
Status Verify(const std::string& root, const std::string& prefix, const std::string& key,
              Manifest* manifest) {
  const std::string dir = prefix.empty() ? root : root + "/" + prefix.substr(0, prefix.size() - 1);
  std::string text;
  Status read = ReadCheckpointFile(root, prefix + kManifest, kMaxManifestBytes, &text);
  if (read.code() == Status::Code::kNotFound) {
    return Status::NotFound(dir + " has no " + kManifest);
  }
  PETNAME_RETURN_IF_ERROR(read);
  Status st = ParseManifest(text, key, manifest);
  if (!st.ok()) {
    return st.code() == Status::Code::kCorruption
               ? Status::Corruption(dir + ": " + st.message())
               : Status::FailedPrecondition(dir + ": " + st.message());
  }
  return VerifyFilesIn(root, prefix, *manifest);
}

}  // namespace

Status CheckpointWriter::Begin(const std::string& root, int64_t epoch, CheckpointWriter* out,
                               const Owner& owner, const std::string& key) {
  PETNAME_RETURN_IF_ERROR(CreatePrivateDirectory(root, "checkpoint directory"));
  RecoverStaging(root, owner);
  std::string tmpl = (fs::path(root) /
                      (kStagingPrefix + EpochDirName(epoch) + "-" + StagingTag(owner) + "-XXXXXX"))
                         .string();
  if (::mkdtemp(tmpl.data()) == nullptr) {
    return FsError("cannot create a staging directory in", root,
                   std::error_code(errno, std::generic_category()));
  }
  CheckpointWriter w;
  w.root_ = root;
  w.staging_ = tmpl;
  w.epoch_ = epoch;
  w.owner_ = owner;
  w.key_ = key;
  *out = std::move(w);
  // mkdtemp's 0700 less the umask: 0700 again, through the directory's own descriptor.
  return SetPrivateDirectoryMode(out->staging_);
}

CheckpointWriter::~CheckpointWriter() {
  if (!staging_.empty()) {
    std::error_code ec;
    fs::remove_all(staging_, ec);
  }
}

CheckpointWriter::CheckpointWriter(CheckpointWriter&& other) noexcept { *this = std::move(other); }

CheckpointWriter& CheckpointWriter::operator=(CheckpointWriter&& other) noexcept {
  std::swap(root_, other.root_);
  std::swap(staging_, other.staging_);
  std::swap(epoch_, other.epoch_);
  std::swap(owner_, other.owner_);
  std::swap(key_, other.key_);
  return *this;
}

std::string CheckpointWriter::FilePath(const std::string& name) const {
  return (fs::path(staging_) / name).string();
}

Status CheckpointWriter::Commit(Manifest manifest, int keep) {
  std::error_code ec;
  manifest.files.clear();
  for (const auto& entry : fs::directory_iterator(staging_, ec)) {
    const std::string name = entry.path().filename().string();
    PETNAME_RETURN_IF_ERROR(HashFile(staging_, name, &manifest.files[name]));
    PETNAME_RETURN_IF_ERROR(FsyncFile(entry.path().string()));
  }
  if (ec) return FsError("cannot list", staging_, ec);
  PETNAME_RETURN_IF_ERROR(WriteFileAtomically(FilePath(kManifest), ManifestToJson(manifest, key_)));

  const std::string name = EpochDirName(epoch_);
  const fs::path target = fs::path(root_) / name;
  const fs::path replaced = fs::path(staging_ + kReplacedSuffix);
  const bool replacing = fs::exists(target, ec);
  Owner have;
  if (replacing && ReadOwner(root_, name, key_, &have) && !BelongsTo(have, owner_)) {
    return Status::FailedPrecondition(target.string() + " belongs to " + DescribeOwner(have) +
                                      ", not to " + DescribeOwner(owner_) + "; not replaced");
  }
  if (replacing) {
    fs::rename(target, replaced, ec);
    if (ec) return FsError("cannot move aside", target.string(), ec);
  }
  fs::rename(staging_, target, ec);
  if (ec) {
    Status st = FsError("cannot publish checkpoint", target.string(), ec);
    if (replacing) fs::rename(replaced, target, ec);
    return st;
  }
  staging_.clear();
  const std::string latest = (fs::path(root_) / kLatest).string();
  Status st = FsyncDirectory(root_);
  if (st.ok()) st = WriteFileAtomically(latest, name + "\n");
  if (!st.ok()) {  // unpublish, so that a failed commit leaves the store as it was
    fs::remove_all(target, ec);
    if (replacing) fs::rename(replaced, target, ec);
    return st;
  }
  fs::remove_all(replaced, ec);
  for (const std::string& old : DirsBeyondKeep(ListOwnedCheckpoints(root_, owner_, key_), keep)) {
    fs::remove_all(fs::path(root_) / old, ec);
  }
  return FsyncDirectory(root_);
}

Status CheckWritable(const std::string& root, const Owner& owner) {
  CheckpointWriter probe;
  return CheckpointWriter::Begin(root, 0, &probe, owner, /*key=*/"");
}

Status VerifyFiles(const std::string& dir, const Manifest& manifest) {
  return VerifyFilesIn(dir, "", manifest);
}

Status VerifyCheckpoint(const std::string& dir, Manifest* manifest, const std::string& key) {
  return Verify(dir, "", key, manifest);
}

Status FindNewestValid(const std::string& root, std::vector<std::string>* skipped, std::string* dir,
                       Manifest* manifest, const std::string& key) {
  std::vector<std::string> names = ListCheckpoints(root);
  if (names.empty()) return Status::NotFound("no checkpoint in " + root);
  for (auto it = names.rbegin(); it != names.rend(); ++it) {
    std::string candidate = (fs::path(root) / *it).string();
    Status st = Verify(root, *it + "/", key, manifest);
    if (st.ok()) {
      *dir = candidate;
      return st;
    }
    if (st.code() == Status::Code::kFailedPrecondition) return st;
    skipped->push_back(st.message());
  }
  return Status::Corruption("no valid checkpoint in " + root + " (" + std::to_string(names.size()) +
                            " damaged)");
}

Status ResolveCheckpoint(const std::string& path, std::vector<std::string>* skipped,
                         std::string* dir, Manifest* manifest, const std::string& key) {
  std::error_code ec;
  if (!fs::exists(path, ec)) return Status::NotFound("checkpoint " + path + " does not exist");
  fs::path p(path);
  if (!fs::is_directory(p, ec)) p = p.has_parent_path() ? p.parent_path() : fs::path(".");
  if (fs::exists(p / kManifest, ec)) {
    PETNAME_RETURN_IF_ERROR(VerifyCheckpoint(p.string(), manifest, key));
    *dir = p.string();
    return Status::Ok();
  }
  return FindNewestValid(p.string(), skipped, dir, manifest, key);
}

}  // namespace petname::checkpoint
