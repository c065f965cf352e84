# The Debian package (scripts/package.sh): the program in /usr/bin, the capture agent in
# /usr/lib/bubblescope/ (where the program looks: ../lib/bubblescope/ beside itself), the README
# and docs/ in /usr/share/doc/bubblescope/. Built by CPack from this build tree.
install(FILES README.md DESTINATION share/doc/bubblescope)
install(DIRECTORY docs/ DESTINATION share/doc/bubblescope/docs
  FILES_MATCHING PATTERN "*.md" PATTERN "*.png")

# Installing packs what scripts/package.sh built (the demo's programs); it must not wait for the
# tests to build first.
set(CMAKE_SKIP_INSTALL_ALL_DEPENDENCY TRUE)

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME bubblescope)
set(CPACK_PACKAGE_VENDOR bubblescope)
set(CPACK_PACKAGE_CONTACT "bubblescope maintainers")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "profiler and debugger for pipeline-parallel training")
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION "profiler and debugger for pipeline-parallel training
Records every rank of a pipeline-parallel job (an LD_PRELOAD agent: NVTX, CUPTI,
NCCL), rebuilds the pipeline, tells which kind of bubble each idle interval is,
what caused it and what a schedule change would buy; reports and a desktop
timeline viewer.")
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # bubblescope_<version>_<arch>.deb
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
# Depends: dpkg-shlibdeps reads the libraries the program and the agent link (SQLite, simdjson,
# zlib, zstd, RE2, GLFW, OpenGL, stb, libstdc++). `view --screenshot` on a machine without a display
# runs under xvfb-run.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "xvfb, xauth")
include(CPack)
