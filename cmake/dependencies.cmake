# Third-party dependencies: Debian packages, plus the CUDA toolkit when present.
find_package(Threads REQUIRED)
find_package(SQLite3 REQUIRED)
find_package(nlohmann_json 3.10 REQUIRED)
find_package(CLI11 REQUIRED)
# Live metrics for `watch` (issue 30): the registry and text format (core), /metrics (pull).
find_package(prometheus-cpp REQUIRED)
# RE2 (libre2-dev) matches range names against rule sets: linear time, no recursion.
find_package(PkgConfig REQUIRED)
pkg_check_modules(RE2 REQUIRED IMPORTED_TARGET re2)

# CUDA is optional: the NVTX v3 headers (header-only) annotate the engine and are the agent's
# NVTX tool interface; CUPTI and NCCL are dlopen'ed by the agent, their headers used at build time.
set(BUBBLESCOPE_HAVE_CUDA OFF)
if(NOT DEFINED CUDAToolkit_ROOT AND EXISTS /usr/local/cuda)
  set(CUDAToolkit_ROOT /usr/local/cuda)
endif()
find_package(CUDAToolkit QUIET)
if(CUDAToolkit_FOUND AND TARGET CUDA::nvtx3)
  set(BUBBLESCOPE_HAVE_CUDA ON)
  message(STATUS "bubblescope: CUDA ${CUDAToolkit_VERSION} at ${CUDAToolkit_LIBRARY_ROOT}: NVTX, CUPTI and NCCL parts enabled")
else()
  message(STATUS "bubblescope: no CUDA toolkit found: NVTX annotation, CUPTI and NCCL capture are skipped")
endif()

# Open MPI is optional: only the plugin cli/mpi/ links it (`hang --all` across nodes, issue 31);
# the program dlopens the plugin when an MPI launcher starts it, and builds the same without it.
set(BUBBLESCOPE_HAVE_MPI OFF)
if(BUBBLESCOPE_BUILD_MPI)
  find_package(MPI COMPONENTS C QUIET)
  if(MPI_C_FOUND)
    set(BUBBLESCOPE_HAVE_MPI ON)
    message(STATUS "bubblescope: MPI ${MPI_C_VERSION}: the MPI plugin (hang across nodes) is built")
  else()
    message(STATUS "bubblescope: no MPI found: the MPI plugin (hang across nodes) is skipped")
  endif()
endif()
