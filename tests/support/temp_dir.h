// TempDir: a fresh, empty directory under the system temporary directory (mkdtemp, so
// concurrent test processes never share one), removed with everything in it by the
// destructor. path() is empty if the directory could not be created.
#pragma once

#include <filesystem>
#include <string>

namespace petname::testing {

class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }
  std::filesystem::path fs_path() const { return path_; }
  std::string Join(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

}  // namespace petname::testing
