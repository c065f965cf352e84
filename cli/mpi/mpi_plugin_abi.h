#pragma once
/* The MPI transport of `bubblescope hang --all` and `analyze` across processes, as a C interface: the plugin
 * (libbubblescope-mpi.so, the only part of bubblescope linked with libmpi) exports one versioned
 * symbol returning this table, so neither the program nor the agent carries an MPI dependency. */
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define BUBBLESCOPE_MPI_ABI_VERSION 3
#define BUBBLESCOPE_MPI_ENTRY "bubblescope_mpi_plugin_v3"

/* gather: called on rank 0 once per rank, in rank order, with what that rank sent (rank 0's own
 * too). broadcast: called on every rank but 0, once, with what rank 0 sent (rank 0 as 0).
 * exchange: called on every rank once per rank, in rank order, with what that rank sent this one
 * (its own included; empty where it sent nothing). */
typedef void (*bubblescope_mpi_receive_fn)(void* context, int rank, const char* data, int64_t size);

typedef struct bubblescope_mpi_plugin {
  int abi_version; /* BUBBLESCOPE_MPI_ABI_VERSION */
  /* Each returns 0 on success, else writes one sentence (NUL-terminated) to `error`. */
  int (*init)(char* error, size_t error_size);
  int (*rank)(void);
  int (*size)(void);
  /* Every rank's `size` bytes to rank 0. A rank that has not sent within `timeout_s` of rank 0
   * being ready (a node that died under a launcher that does not end the job) is an error, not
   * a wait for ever. */
  int (*gather)(const char* data, int64_t size, double timeout_s,
                bubblescope_mpi_receive_fn receive, void* context, char* error, size_t error_size);
  /* Rank 0's `size` bytes to every other rank (their `data` and `size` are ignored), timed out as
   * gather is. */
  int (*broadcast)(const char* data, int64_t size, double timeout_s,
                   bubblescope_mpi_receive_fn receive, void* context, char* error,
                   size_t error_size);
  /* Every rank's bytes to every rank: `sizes[r]` bytes at `data[r]` for rank r (size() entries
   * each). What moves between two processes is what one has for the other (a replica's ranks to
   * its owner), not every process's bytes to all. `receive` is called once every send is done:
   * the caller may free what it sent from the first call on. Timed out as gather is. */
  int (*exchange)(const char* const* data, const int64_t* sizes, double timeout_s,
                  bubblescope_mpi_receive_fn receive, void* context, char* error,
                  size_t error_size);
  /* Ends every process of the job with `code` (after an error a peer may still wait on). */
  void (*abort)(int code);
  int (*finalize)(char* error, size_t error_size);
} bubblescope_mpi_plugin;

typedef const bubblescope_mpi_plugin* (*bubblescope_mpi_entry_fn)(void);

#ifdef __cplusplus
}
#endif
