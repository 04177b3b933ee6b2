// The on-disk layout of checkpoints under a root directory DIR:
//
//   DIR/epoch-000003/{manifest.json, model.safetensors, ...}   one per saved epoch (checkpoint.h)
//   DIR/latest                                                 "epoch-000003\n"
//
// A checkpoint is written into a staging directory DIR/.staging-epoch-000003-TAG-XXXXXX (TAG:
// its owner's, owner.h); every
// file and the directory are fsync'ed, the manifest (with the sha256 of every other file, and
// signed with the job's key where there is one, manifest_mac.h) is written last, the directory
// is renamed into place and DIR is fsync'ed. Only then is
// `latest` replaced (atomically) and checkpoints beyond the newest `keep` removed. Readers
// therefore never see a partial checkpoint; a crash leaves at most a staging directory,
// which the owner's next writer removes. A writer removes, replaces and prunes only what its
// owner owns (owner.h): another run's staging directories and checkpoints in the same DIR are
// left alone. Replacing an existing epoch directory moves it aside as
// DIR/.staging-epoch-000003-…-XXXXXX.replaced before the new one is renamed in; a writer killed
// between those two renames leaves no epoch-000003, and the next writer renames the moved-aside
// copy back instead of removing it. No LibTorch here: callers write the tensor files.
//
// Everything read back is untrusted: directory names that are not exactly EpochDirName's, and
// symlinks named like them, are ignored; every file is read through ReadCheckpointFile (a
// regular file inside its directory, never a symlink, FIFO or device, of at most a cap), and
// manifests are checked field by field (manifest_check.h) before use. With a key, a manifest
// whose MAC does not verify is damaged like one whose checksums do not match: skipped for an
// older checkpoint when the newest valid one is looked for, refused when named, and nobody's
// (never pruned, never counted as the owner's).
//
// Checkpoints are private: DIR must be this process's user's and writable by no one else
// (common/private_dir.h; created 0700 when missing); staging and epoch directories are 0700,
// every file 0600, whatever the umask. A symlink at DIR's own path is refused, never written
// through.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"
#include "trainer/checkpoint/layout.h"
#include "trainer/checkpoint/manifest.h"

namespace petname::checkpoint {

// Stages one checkpoint. Destroying a writer that was not committed removes its staging
// directory, so a failed save leaves nothing behind.
class CheckpointWriter {
 public:
  // Creates `root` (with parents; CreatePrivateDirectory: FailedPrecondition when `root` is a
  // symlink, another user's or writable by others) and a fresh staging directory for `epoch`
  // of `owner` inside it, after removing the owner's stale ones. Commit signs the manifest
  // with `key` (manifest_mac.h; empty: unsigned), which also decides whose epoch directories
  // these are.
  static Status Begin(const std::string& root, int64_t epoch, CheckpointWriter* out,
                      const Owner& owner, const std::string& key);

  CheckpointWriter() = default;
  ~CheckpointWriter();
  CheckpointWriter(const CheckpointWriter&) = delete;
  CheckpointWriter& operator=(const CheckpointWriter&) = delete;
  CheckpointWriter(CheckpointWriter&& other) noexcept;
  CheckpointWriter& operator=(CheckpointWriter&& other) noexcept;

  // Where the caller writes the file `name` of the checkpoint.
  std::string FilePath(const std::string& name) const;

  // Checksums and fsyncs every staged file, fills `manifest.files`, writes manifest.json,
  // publishes the directory as root/epoch-N (replacing an older one of the same epoch),
  // updates `latest`, and removes the owner's checkpoints beyond its newest `keep`. An epoch
  // directory of another owner is not replaced (FailedPrecondition). A failure before
  // `latest` is replaced (e.g. ENOSPC while writing the manifest or `latest`) leaves the
  // store as it was: no staging directory, no new epoch directory, `latest` unchanged.
  Status Commit(Manifest manifest, int keep);

 private:
  std::string root_;
  std::string staging_;
  int64_t epoch_ = 0;
  Owner owner_;
  std::string key_;
};

// Whether a checkpoint can be staged under `root` now: creates root (with parents) and a
// staging directory of `owner`, then removes it (and any the owner's crashed writer left,
// see above). The IoError names the directory and carries the errno; FailedPrecondition for a
// root that is a symlink, another user's or writable by others.
Status CheckWritable(const std::string& root, const Owner& owner = Owner{});

// Verifies the sha256 of every file `manifest` lists in the directory `dir`, streaming each
// (nothing is kept in memory). Corruption/NotFound naming the first that is missing, not a
// regular file, over kMaxCheckpointFileBytes or of another checksum.
Status VerifyFiles(const std::string& dir, const Manifest& manifest);

// Reads manifest.json of the checkpoint directory `dir`, checks its MAC with `key`
// (manifest_mac.h) and verifies the sha256 of every file it lists. Corruption/NotFound for a
// damaged checkpoint (a file that is not a regular one included, ReadCheckpointFile; with a
// key, a manifest that is not signed with it); FailedPrecondition for another format version,
// naming `petname convert-checkpoints` for format 1 (legacy.h).
Status VerifyCheckpoint(const std::string& dir, Manifest* manifest, const std::string& key);

// The newest checkpoint under `root` that verifies with `key`. Damaged newer ones (a hostile
// file among them: a FIFO or symlink as manifest or tensor; with a key, one not signed with
// it) are skipped and described in `*skipped`. NotFound when root has no checkpoint;
// Corruption when none verifies; FailedPrecondition (no fallback) when the newest is from
// another format version.
Status FindNewestValid(const std::string& root, std::vector<std::string>* skipped, std::string* dir,
                       Manifest* manifest, const std::string& key);

// `path` may be a checkpoint directory, a file inside one (e.g. model.safetensors), or a root
// holding epoch directories (its newest valid one is used). Sets `*dir` and `*manifest`.
Status ResolveCheckpoint(const std::string& path, std::vector<std::string>* skipped,
                         std::string* dir, Manifest* manifest, const std::string& key);

}  // namespace petname::checkpoint
