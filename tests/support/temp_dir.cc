#include "tests/support/temp_dir.h"

#include <stdlib.h>

#include <system_error>

namespace petname::testing {

TempDir::TempDir() {
  std::string tmpl = (std::filesystem::temp_directory_path() / "petname-test-XXXXXX").string();
  path_ = ::mkdtemp(tmpl.data()) != nullptr ? tmpl : "";
}

TempDir::~TempDir() {
  std::error_code ec;
  if (!path_.empty()) std::filesystem::remove_all(path_, ec);
}

}  // namespace petname::testing
