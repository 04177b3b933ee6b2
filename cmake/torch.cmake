# LibTorch for the trainer, found once for the whole tree (imported targets are global).
#
# - Default: find_package(Torch): Debian's libtorch-dev (1.13, CPU), or the LibTorch inside a
#   PyTorch wheel on a machine with the CUDA toolkit (CMAKE_PREFIX_PATH =
#   torch.utils.cmake_prefix_path; CUDA and NCCL).
# - PETNAME_TORCH_WHEEL=DIR, DIR the torch/ folder of an unpacked PyTorch wheel
#   (scripts/torch-wheel): its LibTorch 2.x without a CUDA toolkit. The wheel's CMake config
#   insists on the whole toolkit, so the project names the libraries itself: the CPU ones
#   (libtorch_cpu needs only libcudart and libcupti besides, from PETNAME_CUDA_LIBS), and with
#   PETNAME_TORCH_WHEEL_CUDA=ON also libtorch_cuda, compiled against the CUDA runtime and NCCL
#   headers in PETNAME_CUDA_INCLUDES and linked without the CUDA libraries that only a GPU
#   machine has; they start on a machine without a GPU when PETNAME_CUDA_RUNTIME names the
#   folder of scripts/cuda-libs, which holds them.
#
# Sets TORCH_LIBRARIES, TORCH_INCLUDE_DIRS, for CUDA builds TORCH_CUDA_LIBRARIES, and
# PETNAME_HAVE_GLOO when gloo headers for this LibTorch are found: its own (Debian's) or, for the
# wheel, which has the backend in its library but ships no gloo headers, those of
# PETNAME_GLOO_HEADERS (scripts/gloo-headers: the Gloo commit the wheel was built with). The Torch target's USE_C10D_* definitions say
# how LibTorch was built, not which headers it ships, so the project uses names of its own.
option(PETNAME_TORCH_WHEEL_CUDA "With PETNAME_TORCH_WHEEL: also compile and link the CUDA path" OFF)
set(PETNAME_TORCH_WHEEL "" CACHE PATH "torch/ folder of an unpacked PyTorch wheel (see above)")
set(PETNAME_CUDA_LIBS "" CACHE PATH "Folder with libcudart.so.13 and libcupti.so.13 (wheel builds)")
set(PETNAME_CUDA_INCLUDES "" CACHE STRING "CUDA runtime and NCCL include folders (wheel CUDA builds)")
set(PETNAME_CUDA_RUNTIME "" CACHE PATH
    "Folder of scripts/cuda-libs (wheel CUDA builds): its nvidia/*/lib folders join the search path")

# petname_torch_pch(TARGET...): the targets read <torch/torch.h> precompiled, made once for the
# tree by petname_torch_pch (GCC keeps using the header itself for a source whose flags do not
# match), instead of parsing its ~1,000 headers in every source. PETNAME_TORCH_PCH=OFF turns it
# off (e.g. for clang-tidy, which cannot read GCC's .gch).
option(PETNAME_TORCH_PCH "Precompile <torch/torch.h> once for the LibTorch targets" ON)
function(petname_torch_pch)
  if(NOT PETNAME_TORCH_PCH)
    return()
  endif()
  if(NOT TARGET petname_torch_pch)
    add_library(petname_torch_pch OBJECT ${PROJECT_SOURCE_DIR}/cmake/torch_pch.cc)
    target_link_libraries(petname_torch_pch PRIVATE ${TORCH_LIBRARIES})
    target_precompile_headers(petname_torch_pch PRIVATE <torch/torch.h>)
  endif()
  foreach(_target ${ARGN})
    target_precompile_headers(${_target} REUSE_FROM petname_torch_pch)
  endforeach()
endfunction()

set(PETNAME_GLOO_HEADERS "" CACHE PATH
    "Wheel builds: the gloo headers of the Gloo commit the wheel's LibTorch was built with (scripts/gloo-headers)")
function(petname_detect_gloo)
  unset(PETNAME_GLOO_INCLUDE_DIR CACHE)  # searched again at each configure: the headers may go
  find_path(PETNAME_GLOO_INCLUDE_DIR gloo/algorithm.h PATHS ${TORCH_INCLUDE_DIRS} ${PETNAME_GLOO_HEADERS}
            NO_DEFAULT_PATH)
  if(PETNAME_GLOO_INCLUDE_DIR)
    set(PETNAME_HAVE_GLOO ON PARENT_SCOPE)
  endif()
endfunction()

if(NOT PETNAME_TORCH_WHEEL)
  set(CMAKE_FIND_PACKAGE_TARGETS_GLOBAL ON)
  find_package(Torch REQUIRED)
  set(CMAKE_FIND_PACKAGE_TARGETS_GLOBAL OFF)
  # The wheel's libtorch.so exports a copy of std::filesystem that crashes when called (seen
  # with torch 2.11: remove_all jumping to address 0); naming libstdc++ first binds programs
  # to the system's.
  execute_process(COMMAND ${CMAKE_CXX_COMPILER} -print-file-name=libstdc++.so
                  OUTPUT_VARIABLE _libstdcxx OUTPUT_STRIP_TRAILING_WHITESPACE)
  list(PREPEND TORCH_LIBRARIES ${_libstdcxx})
  petname_detect_gloo()
  return()
endif()

set(_lib ${PETNAME_TORCH_WHEEL}/lib)
foreach(_f ${_lib}/libtorch_cpu.so ${_lib}/libc10.so ${PETNAME_TORCH_WHEEL}/include/torch/csrc/api/include/torch/torch.h)
  if(NOT EXISTS ${_f})
    message(FATAL_ERROR "PETNAME_TORCH_WHEEL=${PETNAME_TORCH_WHEEL}: ${_f} is missing")
  endif()
endforeach()
set(TORCH_INCLUDE_DIRS ${PETNAME_TORCH_WHEEL}/include
                       ${PETNAME_TORCH_WHEEL}/include/torch/csrc/api/include)
add_library(petname_torch INTERFACE IMPORTED GLOBAL)
target_include_directories(petname_torch SYSTEM INTERFACE ${TORCH_INCLUDE_DIRS})
target_compile_definitions(petname_torch INTERFACE _GLIBCXX_USE_CXX11_ABI=1)
target_link_libraries(petname_torch INTERFACE ${_lib}/libtorch_cpu.so ${_lib}/libc10.so)
# DT_RPATH, not DT_RUNPATH: the wheel's libraries carry no search path of their own, and only
# DT_RPATH also serves libtorch_cpu's dependencies (libgomp, libcudart, libcupti).
target_link_options(petname_torch INTERFACE "LINKER:--disable-new-dtags" "LINKER:-rpath,${_lib}")
if(PETNAME_CUDA_LIBS)
  target_link_options(petname_torch INTERFACE "LINKER:-rpath,${PETNAME_CUDA_LIBS}")
endif()
if(PETNAME_TORCH_WHEEL_CUDA)
  target_include_directories(petname_torch SYSTEM INTERFACE ${PETNAME_CUDA_INCLUDES})
  target_link_libraries(petname_torch INTERFACE ${_lib}/libtorch_cuda.so ${_lib}/libc10_cuda.so
                                                ${PETNAME_CUDA_LIBS}/libcudart.so.13)
  # libtorch_cuda's own dependencies (cuBLAS, cuDNN, NCCL, ...) are not needed to link.
  target_link_options(petname_torch INTERFACE "LINKER:--allow-shlib-undefined")
  # With PETNAME_CUDA_RUNTIME they are found at run time too, so that the programs and tests of
  # a CUDA build start on a machine without a GPU and run their CPU paths (scripts/test). The
  # image's loader configuration finds them there instead (docker/Dockerfile.trainer-cuda).
  if(PETNAME_CUDA_RUNTIME)
    file(GLOB _cuda_runtime_dirs LIST_DIRECTORIES true ${PETNAME_CUDA_RUNTIME}/nvidia/*/lib)
    if(NOT _cuda_runtime_dirs)
      message(FATAL_ERROR "PETNAME_CUDA_RUNTIME=${PETNAME_CUDA_RUNTIME}: no nvidia/*/lib folder")
    endif()
    foreach(_dir ${_cuda_runtime_dirs})
      target_link_options(petname_torch INTERFACE "LINKER:-rpath,${_dir}")
    endforeach()
  endif()
  set(TORCH_CUDA_LIBRARIES ${_lib}/libtorch_cuda.so)
endif()
set(TORCH_LIBRARIES petname_torch)
petname_detect_gloo()
message(STATUS "petname: LibTorch from the wheel in ${PETNAME_TORCH_WHEEL}"
               " (CUDA path ${PETNAME_TORCH_WHEEL_CUDA})")
