// File helpers that never leave a half-written file behind.
#pragma once

#include <string>
#include <string_view>

#include "common/status.h"

namespace petname {

// Reads the whole file at `path` into `*out`.
Status ReadFile(const std::string& path, std::string* out);

// Creates (or truncates) `path` and writes `contents`, without fsync or rename: for files of a
// directory that is published as a whole. On failure the file is removed. I/O errors carry
// the errno (Status::os_error) here and in every function below.
Status WriteFile(const std::string& path, std::string_view contents);

// Writes `contents` to `path` atomically: a temporary file in the same directory is
// written, fsync'ed and renamed over `path`, then the directory is fsync'ed. Readers see
// either the old file or the new one, never a mix; on failure the temporary is removed.
Status WriteFileAtomically(const std::string& path, std::string_view contents);

// fsync()s a directory so that renames inside it are durable.
Status FsyncDirectory(const std::string& dir);

// fsync()s an existing regular file.
Status FsyncFile(const std::string& path);

}  // namespace petname
