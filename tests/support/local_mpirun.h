#pragma once
// mpirun as the MPI tests start it on one machine: local only (shared memory and loopback TCP),
// quiet (-q: no banner when a process exits non-zero), unbound, as root where CI runs so.
#include <string>
#include <vector>

namespace bubblescope::testing {

inline std::vector<std::string> localMpirun(const std::string& mpirun) {
  return {mpirun,
          "-q",
          "--allow-run-as-root",
          "--oversubscribe",
          "--bind-to",
          "none",
          "--mca",
          "btl",
          "self,tcp",
          "--mca",
          "btl_tcp_if_include",
          "lo",
          "--mca",
          "oob_tcp_if_include",
          "lo"};
}

}  // namespace bubblescope::testing
