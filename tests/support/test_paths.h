// The paths the tests need, fixed when CMake generates the build: tests/support/CMakeLists.txt
// writes them into one generated source in the build tree. A definition on the compiler's command
// line would put the clone's absolute path into every source of a test binary, so a fresh clone
// would compile them all again instead of reusing ccache's objects; only this one file changes.
#pragma once

#include <string>
#include <string_view>

namespace petname::testing {

const char* PetnameBin();   // the build's petname binary; "" in a build without LibTorch
const char* DistProbe();    // tests/trainer/distributed's dist_probe; "" without LibTorch
const char* TestData();     // the Seattle table (-DPETNAME_TEST_DATA)
const char* TorchPython();  // Python with Debian's torch (-DPETNAME_TORCH_PYTHON)

// `relative` under the repository's root, e.g. SourcePath("examples/cpu-job.yaml").
std::string SourcePath(std::string_view relative);

// The corpus of hostile request heads every server built on HttpServer is tried with.
inline std::string HostileRequests() { return SourcePath("tests/common/http/hostile_requests.py"); }
// The two CRDs.
inline std::string JobCrd() { return SourcePath("crds/petname.dev_petnametrainingjobs.yaml"); }
inline std::string SweepCrd() { return SourcePath("crds/petname.dev_petnametrainingsweeps.yaml"); }

}  // namespace petname::testing
