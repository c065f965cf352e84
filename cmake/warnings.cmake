# Warnings on for every target of ours; clean builds are expected (CI builds with -Werror).
add_library(bubblescope_warnings INTERFACE)
target_compile_options(bubblescope_warnings INTERFACE
  -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Wcast-align -Wunused
  -Woverloaded-virtual -Wimplicit-fallthrough)
if(BUBBLESCOPE_WERROR)
  target_compile_options(bubblescope_warnings INTERFACE -Werror)
endif()

# Includes are written from the repository root: #include "traces/model/trace.h".
add_library(bubblescope_root INTERFACE)
target_include_directories(bubblescope_root INTERFACE ${PROJECT_SOURCE_DIR})
