#pragma once
// Whether an MPI launcher started this process as one of several (mpirun, srun, mpiexec), read
// from the variables each sets, so that `hang --all` joins its peers on the other nodes only
// then and runs alone, without MPI, everywhere else. Pure: the caller passes the environment.
#include <functional>
#include <string>

namespace bubblescope::cli {

struct LauncherWorld {
  int size = 1;          // processes the launcher started (1: none, or only this one)
  std::string variable;  // "OMPI_COMM_WORLD_SIZE=4": what said so, for messages
};

// OMPI_COMM_WORLD_SIZE (Open MPI's mpirun), PMI_SIZE (MPICH's mpiexec, srun --mpi=pmi2),
// SLURM_STEP_NUM_TASKS (any srun step: set in its tasks, not in the batch script, which is no
// MPI process), the first that holds a whole number. BUBBLESCOPE_MPI=0 (off, no, false) keeps
// the process alone under any launcher.
LauncherWorld launcherWorld(const std::function<const char*(const char*)>& getenv);

}  // namespace bubblescope::cli
