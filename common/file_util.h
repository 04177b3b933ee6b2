// File helpers that never leave a half-written file behind.
#pragma once

#include <sys/types.h>

#include <string>
#include <string_view>

#include "common/status.h"

namespace petname {

// Reads the whole file at `path` into `*out`: for files this process wrote or the kernel's
// (/proc, /sys). Any other file is read through untrusted_file.h.
Status ReadFile(const std::string& path, std::string* out);

// Creates (or truncates) `path` and writes `contents`, without fsync or rename: for files of a
// directory that is published as a whole. On failure the file is removed. I/O errors carry
// the errno (Status::os_error) here and in every function below.
Status WriteFile(const std::string& path, std::string_view contents);

// Creates the new file `path` with mode 0600 (whatever the umask) and writes `contents`, without
// fsync or rename: for the files of a private directory that is published as a whole. An
// existing file or symlink at `path` is not touched (IoError EEXIST). On failure the file is
// removed.
Status WritePrivateFile(const std::string& path, std::string_view contents);

// Writes `contents` to `path` atomically: a temporary file in the same directory is given
// `mode` (whatever the umask; fchmod on its descriptor, before anything is written), written,
// fsync'ed and renamed over `path` (a symlink there is replaced, not followed), then the
// directory is fsync'ed. Readers see either the old file or the new one, never a mix; on
// failure the temporary is removed.
Status WriteFileAtomically(const std::string& path, std::string_view contents, mode_t mode = 0600);

// fsync()s a directory so that renames inside it are durable.
Status FsyncDirectory(const std::string& dir);

// fsync()s an existing regular file.
Status FsyncFile(const std::string& path);

}  // namespace petname
