# libFuzzer targets: bubblescope_fuzzer(NAME SOURCES a.cpp ... [LINK -lfoo ...] [DICT file]
# CORPUS dir [MAX_LEN n]) builds NAME with clang++ directly (libFuzzer comes with clang, whatever
# compiler builds the rest; scripts/install-deps.sh --tests installs clang and libclang-rt-dev),
# under ASan and UBSan, and adds the ctest fuzz_seeds_NAME that runs it once over every seed and
# past finding (fast: a regression test, not fuzzing). scripts/fuzz.sh fuzzes them for a fixed
# time (.ci/run: 25 s each; longer by hand). Skipped, with one message, where clang has no
# libFuzzer.
include_guard(GLOBAL)

find_program(BUBBLESCOPE_CLANGXX NAMES clang++ clang++-16 clang++-15 clang++-14)
set(BUBBLESCOPE_HAVE_LIBFUZZER OFF)
if(BUBBLESCOPE_CLANGXX)
  set(probe ${CMAKE_BINARY_DIR}/libfuzzer_probe.cpp)
  file(WRITE ${probe}
    "#include <cstddef>\n#include <cstdint>\n"
    "extern \"C\" int LLVMFuzzerTestOneInput(const uint8_t*, size_t) { return 0; }\n")
  execute_process(
    COMMAND ${BUBBLESCOPE_CLANGXX} -fsanitize=fuzzer,address ${probe} -o ${probe}.bin
    RESULT_VARIABLE probe_result OUTPUT_QUIET ERROR_QUIET)
  if(probe_result EQUAL 0)
    set(BUBBLESCOPE_HAVE_LIBFUZZER ON)
  endif()
endif()
if(BUBBLESCOPE_HAVE_LIBFUZZER)
  message(STATUS "bubblescope: fuzz targets with ${BUBBLESCOPE_CLANGXX} (ctest -L fuzz, scripts/fuzz.sh)")
else()
  message(STATUS "bubblescope: no clang++ with libFuzzer: the fuzz targets are skipped")
endif()
# Where scripts/fuzz.sh finds the targets: one line per target, "name binary seeds dict max_len".
set(BUBBLESCOPE_FUZZ_LIST ${CMAKE_BINARY_DIR}/fuzz-targets.txt)
file(WRITE ${BUBBLESCOPE_FUZZ_LIST} "")

function(bubblescope_fuzzer name)
  if(NOT BUBBLESCOPE_HAVE_LIBFUZZER)
    return()
  endif()
  cmake_parse_arguments(F "" "DICT;CORPUS;MAX_LEN" "SOURCES;LINK" ${ARGN})
  if(NOT F_MAX_LEN)
    set(F_MAX_LEN 65536)
  endif()
  set(sources)
  foreach(s IN LISTS F_SOURCES)
    get_filename_component(abs ${s} ABSOLUTE BASE_DIR ${CMAKE_CURRENT_SOURCE_DIR})
    list(APPEND sources ${abs})
  endforeach()
  file(GLOB_RECURSE headers CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/traces/*.h
    ${PROJECT_SOURCE_DIR}/analyzer/*.h ${PROJECT_SOURCE_DIR}/agent/*.h)
  set(binary ${CMAKE_CURRENT_BINARY_DIR}/${name}er)  # the target owns the name itself
  add_custom_command(
    OUTPUT ${binary}
    COMMAND ${BUBBLESCOPE_CLANGXX} -std=c++20 -O1 -g -fno-omit-frame-pointer
      -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
      -I${PROJECT_SOURCE_DIR} ${sources} -o ${binary} ${F_LINK}
    DEPENDS ${sources} ${headers}
    COMMENT "Building the fuzz target ${name} with ${BUBBLESCOPE_CLANGXX}"
    VERBATIM)
  add_custom_target(${name} ALL DEPENDS ${binary})

  get_filename_component(corpus ${F_CORPUS} ABSOLUTE BASE_DIR ${CMAKE_CURRENT_SOURCE_DIR})
  set(dict "-")
  if(F_DICT)
    get_filename_component(dict ${F_DICT} ABSOLUTE BASE_DIR ${CMAKE_CURRENT_SOURCE_DIR})
  endif()
  file(APPEND ${BUBBLESCOPE_FUZZ_LIST} "${name} ${binary} ${corpus} ${dict} ${F_MAX_LEN}\n")
  # Every seed and past finding, each run once: what the fuzzer once broke stays fixed.
  file(GLOB seeds CONFIGURE_DEPENDS ${corpus}/*)
  add_test(NAME fuzz_seeds_${name} COMMAND ${binary} -rss_limit_mb=2048 -timeout=20 ${seeds})
  set_tests_properties(fuzz_seeds_${name} PROPERTIES TIMEOUT 120 LABELS fuzz)
endfunction()
