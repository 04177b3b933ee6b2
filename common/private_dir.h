// Creating a directory that only its owner may read (checkpoints hold the model and the names
// it was trained on) at a path someone else could have prepared, e.g. a job's directory on a
// claim that several jobs share: a symlink planted there must not redirect what is written.
#pragma once

#include <string>

#include "common/status.h"

namespace petname {

// Makes sure the directory `path` exists. The directories of `path` that already exist are
// used as they are (symlinks among them are followed: they are the user's or the volume's),
// except `path` itself, which must not be a symbolic link. Each directory created here (`path`
// and missing parents) is made with mkdirat() beneath its parent's descriptor, opened with
// O_NOFOLLOW, checked to belong to this process's user and given mode 0700 whatever the umask.
// FailedPrecondition naming the path when a symbolic link (or a non-directory) is found where a
// directory is to be used or was just created, or the one just created is another user's;
// IoError (with the errno) when the OS refuses. `what` names `path` in messages ("checkpoint
// directory").
Status CreatePrivateDirectory(const std::string& path, const std::string& what);

}  // namespace petname
