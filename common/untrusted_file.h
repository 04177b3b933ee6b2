// The one way to read a file that this process did not write: the training data, a sweep
// file, every file of a checkpoint (manifests, tensors, names.txt), metrics.jsonl, a sweep's
// status. Such a file may be anything: a FIFO (open() and read() would wait for a writer for
// ever), a device such as /dev/zero (never ends), a symlink planted to lead elsewhere, or far
// larger than any honest file. So a file is read only when it is a regular file of at most a
// given size, opened with O_NONBLOCK | O_CLOEXEC and checked again with fstat() after the
// open (a path swapped between the checks is caught there), and read to its end with the cap
// applied to what is actually read (the file may grow).
//
// Two kinds of paths:
//   ReadUntrustedFile    a path the user named (--data, --config): symlinks are followed, the
//                        target must be a regular file.
//   ReadUntrustedFileIn  a file inside a directory (a checkpoint directory, a sweep directory):
//                        the name is relative and made of plain components (no "..", ".", empty
//                        or absolute ones) and no symlink below the directory is followed, so
//                        the file read is inside it.
//
// Errors name the file as "<what> <path>" and say what it is: NotFound when it does not exist;
// InvalidArgument when it is a directory, not a regular file (a FIFO, device or socket), a
// symbolic link inside a directory, larger than the cap, or the name is not a plain relative
// path; IoError (with the errno) when the OS refuses the open or read.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "common/status.h"

namespace petname {

struct UntrustedFileRules {
  int64_t max_bytes = 0;      // larger files are refused
  std::string what = "file";  // how messages name the file: "<what> <path> ..."
  std::string limit;          // how messages name max_bytes ("--max-data-bytes"), or empty
};

// Why a file of type `mode` (st_mode) and `size` bytes at `path` cannot be read under
// `rules`, or Ok. Pure.
Status CheckUntrustedKind(const std::string& path, mode_t mode, int64_t size,
                          const UntrustedFileRules& rules);

// Whether `name` is a relative path of one or more plain components separated by single '/'
// ("manifest.json", "epoch-000003/manifest.json"; not "", "/x", "a/../b", "./a", "a//b"). Pure.
bool IsPlainRelativePath(const std::string& name);

// Reads the whole regular file at `path` (symlinks followed) into `*out`.
Status ReadUntrustedFile(const std::string& path, const UntrustedFileRules& rules,
                         std::string* out);

// Reads the whole regular file `name` inside the directory `root` into `*out`; no symlink
// below `root` is followed (`root` itself may be one). Messages name the file root/name.
Status ReadUntrustedFileIn(const std::string& root, const std::string& name,
                           const UntrustedFileRules& rules, std::string* out);

// ReadUntrustedFileIn, but the bytes are given to `chunk` as they are read (64 KiB at a time)
// instead of being kept, e.g. to checksum a file without holding it in memory.
Status StreamUntrustedFileIn(const std::string& root, const std::string& name,
                             const UntrustedFileRules& rules,
                             const std::function<void(std::string_view)>& chunk);

}  // namespace petname
