// Which launcher variables make `hang --all` one process of several (cli/mpi_launcher.h).
#include "cli/mpi_launcher.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

namespace bubblescope::cli {
namespace {

LauncherWorld worldOf(const std::map<std::string, std::string>& env) {
  return launcherWorld([&env](const char* name) -> const char* {
    const auto it = env.find(name);
    return it == env.end() ? nullptr : it->second.c_str();
  });
}

TEST(MpiLauncher, EachLaunchersCountIsReadAndNamed) {
  struct Case {
    std::map<std::string, std::string> env;
    int size;
    std::string variable;
  };
  const Case cases[] = {
      {{}, 1, ""},
      {{{"OMPI_COMM_WORLD_SIZE", "4"}}, 4, "OMPI_COMM_WORLD_SIZE=4"},
      {{{"PMI_SIZE", "2"}}, 2, "PMI_SIZE=2"},
      {{{"SLURM_STEP_NUM_TASKS", "16"}}, 16, "SLURM_STEP_NUM_TASKS=16"},
      // Open MPI's own count comes first where srun started mpirun's daemons.
      {{{"SLURM_STEP_NUM_TASKS", "2"}, {"OMPI_COMM_WORLD_SIZE", "8"}}, 8, "OMPI_COMM_WORLD_SIZE=8"},
      // A batch script (SLURM_NTASKS, SLURM_PROCID, no step) is no MPI process.
      {{{"SLURM_NTASKS", "64"}, {"SLURM_PROCID", "0"}}, 1, ""},
      // A value that is no count says nothing; the next variable may.
      {{{"OMPI_COMM_WORLD_SIZE", "4x"}, {"PMI_SIZE", "3"}}, 3, "PMI_SIZE=3"},
      {{{"OMPI_COMM_WORLD_SIZE", ""}}, 1, ""},
      {{{"OMPI_COMM_WORLD_SIZE", "0"}}, 1, ""},
      {{{"OMPI_COMM_WORLD_SIZE", "-2"}}, 1, ""},
      {{{"OMPI_COMM_WORLD_SIZE", "99999999999"}}, 1, ""},
      // Turned off: this node alone under any launcher.
      {{{"OMPI_COMM_WORLD_SIZE", "4"}, {"BUBBLESCOPE_MPI", "0"}}, 1, ""},
      {{{"OMPI_COMM_WORLD_SIZE", "4"}, {"BUBBLESCOPE_MPI", "off"}}, 1, ""},
      {{{"OMPI_COMM_WORLD_SIZE", "4"}, {"BUBBLESCOPE_MPI", "1"}}, 4, "OMPI_COMM_WORLD_SIZE=4"},
  };
  for (const Case& c : cases) {
    const LauncherWorld w = worldOf(c.env);
    std::string env;
    for (const auto& [k, v] : c.env) env += k + "=" + v + " ";
    EXPECT_EQ(w.size, c.size) << env;
    EXPECT_EQ(w.variable, c.variable) << env;
  }
}

}  // namespace
}  // namespace bubblescope::cli
