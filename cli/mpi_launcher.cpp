#include "cli/mpi_launcher.h"

#include <charconv>
#include <string_view>

namespace bubblescope::cli {

LauncherWorld launcherWorld(const std::function<const char*(const char*)>& getenv) {
  if (const char* v = getenv("BUBBLESCOPE_MPI")) {
    const std::string_view off = v;
    if (off == "0" || off == "off" || off == "no" || off == "false") return {};
  }
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_STEP_NUM_TASKS"}) {
    const char* v = getenv(name);
    if (v == nullptr) continue;
    const std::string_view text = v;
    int n = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
    // A value that is no count (empty, "4x") says nothing: the next variable may.
    if (ec != std::errc() || end != text.data() + text.size() || n < 1) continue;
    return {n, std::string(name) + "=" + std::string(text)};
  }
  return {};
}

}  // namespace bubblescope::cli
