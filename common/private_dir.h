// Creating a directory that only its owner may read (checkpoints hold the model and the names
// it was trained on) at a path someone else could have prepared, e.g. a job's directory on a
// claim that several jobs share: a symlink planted there must not redirect what is written, and
// a directory someone else made (or may write) must not be written into, since whoever can
// write it can plant what the process later reads back.
#pragma once

#include <sys/stat.h>

#include <string>

#include "common/status.h"

namespace petname {

// Makes sure the directory `path` exists. The directories of `path` that already exist are
// used as they are (symlinks among them are followed: they are the user's or the volume's),
// except `path` itself, which must not be a symbolic link and, when it exists, must belong to
// this process's user and be writable by neither its group nor others (checked with fstat on
// the descriptor opened with O_NOFOLLOW, so a path swapped after the check is not used). Each
// directory created here (`path` and missing parents) is made with mkdirat() beneath its
// parent's descriptor, opened with O_NOFOLLOW, checked to belong to this process's user and
// given mode 0700 (fchmod on that descriptor) whatever the umask. FailedPrecondition naming
// the path when a symbolic link (or a non-directory) is found where a directory is to be used
// or was just created, or `path` (or one just created) is another user's or writable by
// others; IoError (with the errno) when the OS refuses. `what` names `path` in messages
// ("checkpoint directory").
Status CreatePrivateDirectory(const std::string& path, const std::string& what);

// Sets the directory `path` (not a symbolic link) to mode 0700 through its own descriptor.
// FailedPrecondition for a symlink or a non-directory; IoError when the OS refuses.
Status SetPrivateDirectoryMode(const std::string& path);

// Why the directory with `st` (fstat) cannot be used as a private directory by the user
// `euid`, or Ok: it must be that user's and writable by neither group nor others. Pure.
Status CheckPrivateDirectoryStat(const std::string& what, const std::string& path,
                                 const struct stat& st, uid_t euid);

}  // namespace petname
