/* libbubblescope-mpi.so: the MPI transport behind cli/mpi_job.h, the one piece of bubblescope
 * linked with libmpi. C, so that it brings no C++ runtime of its own into the program; it
 * exports only its entry point (the rest is hidden). */
#include <limits.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "cli/mpi/mpi_plugin_abi.h"

enum { kDataTag = 1, kExchangeTag = 2 };

/* "what: MPI's own words for code". */
static int fail(char* error, size_t error_size, const char* what, int code) {
  char text[MPI_MAX_ERROR_STRING] = {0};
  int length = 0;
  if (MPI_Error_string(code, text, &length) != MPI_SUCCESS)
    snprintf(text, sizeof text, "error %d", code);
  snprintf(error, error_size, "%s: %s", what, text);
  return -1;
}

/* Polls rather than blocks, so that a peer that never sends ends in an error after `deadline`
 * (MPI_Wtime) instead of a wait for ever. 0: all done; 1: timed out; else an MPI error code. */
static int waitUntil(int count, MPI_Request* requests, double deadline) {
  const struct timespec pause = {0, 1000000}; /* 1 ms: the gather is a few messages, once */
  for (;;) {
    int done = 0;
    const int rc = MPI_Testall(count, requests, &done, MPI_STATUSES_IGNORE);
    if (rc != MPI_SUCCESS) return rc;
    if (done) return 0;
    if (MPI_Wtime() > deadline) return 1;
    nanosleep(&pause, NULL);
  }
}

static int init(char* error, size_t error_size) {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) {
    int provided = 0;
    const int rc = MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &provided);
    if (rc != MPI_SUCCESS) return fail(error, error_size, "MPI_Init_thread failed", rc);
  }
  /* Errors come back as codes, to be said in one sentence, not as MPI's abort banner. */
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  return 0;
}

static int rank(void) {
  int r = -1;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

static int size(void) {
  int n = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  return n;
}

static int timedOut(char* error, size_t error_size, const char* what, double timeout_s) {
  snprintf(error, error_size, "%s within %g s (a process of the job died or hangs)", what,
           timeout_s);
  return -1;
}

/* Rank 0's side: every rank's size, then each rank's bytes in rank order, one rank at a time, each
 * handed on and freed before the next is received: rank 0 never holds more than one rank's bytes
 * of its own making (a distributed analysis' shards are most of a run). */
static int gatherAtRoot(const char* data, int64_t bytes, double deadline, double timeout_s,
                        bubblescope_mpi_receive_fn receive, void* context, char* error,
                        size_t error_size, int n, MPI_Request* sizeRequest, int64_t* sizes) {
  int rc = waitUntil(1, sizeRequest, deadline);
  if (rc == 1)
    return timedOut(error, error_size, "not every process reported its answers' size", timeout_s);
  if (rc != 0) return fail(error, error_size, "gathering the answers' sizes failed", rc);
  for (int r = 1; r < n; ++r) {
    if (sizes[r] < 0) {
      snprintf(error, error_size, "MPI rank %d's answers are larger than one message can carry", r);
      return -1;
    }
  }
  receive(context, 0, data, bytes);
  for (int r = 1; r < n; ++r) {
    if (sizes[r] == 0) {
      receive(context, r, "", 0);
      continue;
    }
    char* buffer = malloc((size_t)sizes[r]);
    if (!buffer) {
      snprintf(error, error_size, "out of memory for MPI rank %d's answers", r);
      return -1;
    }
    MPI_Request request = MPI_REQUEST_NULL;
    rc = MPI_Irecv(buffer, (int)sizes[r], MPI_CHAR, r, kDataTag, MPI_COMM_WORLD, &request);
    if (rc != MPI_SUCCESS) return fail(error, error_size, "receiving the answers failed", rc);
    rc = waitUntil(1, &request, deadline);
    /* On failure the receive may still be pending into the buffer: it is not freed (the job ends). */
    if (rc == 1) return timedOut(error, error_size, "not every process sent its answers", timeout_s);
    if (rc != 0) return fail(error, error_size, "receiving the answers failed", rc);
    receive(context, r, buffer, sizes[r]);
    free(buffer);
  }
  return 0;
}

static int gather(const char* data, int64_t bytes, double timeout_s,
                  bubblescope_mpi_receive_fn receive, void* context, char* error,
                  size_t error_size) {
  const int me = rank();
  const int n = size();
  const double deadline = MPI_Wtime() + timeout_s;
  /* -1: more than one message's count (an int) can carry; rank 0 then names this rank. */
  int64_t mine = bytes > INT_MAX ? -1 : bytes;
  int64_t* sizes = NULL;
  if (me == 0) {
    sizes = calloc((size_t)n, sizeof *sizes);
    if (!sizes) {
      snprintf(error, error_size, "out of memory for %d processes' answers", n);
      return -1;
    }
  }
  MPI_Request sizeRequest = MPI_REQUEST_NULL;
  int rc =
      MPI_Igather(&mine, 1, MPI_INT64_T, sizes, 1, MPI_INT64_T, 0, MPI_COMM_WORLD, &sizeRequest);
  if (rc != MPI_SUCCESS) {
    free(sizes);
    return fail(error, error_size, "gathering the answers' sizes failed", rc);
  }
  if (me == 0) {
    const int status = gatherAtRoot(data, bytes, deadline, timeout_s, receive, context, error,
                                    error_size, n, &sizeRequest, sizes);
    free(sizes);
    return status;
  }
  MPI_Request requests[2] = {sizeRequest, MPI_REQUEST_NULL};
  if (mine > 0) {
    rc = MPI_Isend(data, (int)mine, MPI_CHAR, 0, kDataTag, MPI_COMM_WORLD, &requests[1]);
    if (rc != MPI_SUCCESS) return fail(error, error_size, "sending the answers failed", rc);
  }
  rc = waitUntil(2, requests, deadline);
  if (rc == 1) return timedOut(error, error_size, "MPI rank 0 did not take the answers", timeout_s);
  if (rc != 0) return fail(error, error_size, "sending the answers failed", rc);
  return 0;
}

static int broadcast(const char* data, int64_t bytes, double timeout_s,
                     bubblescope_mpi_receive_fn receive, void* context, char* error,
                     size_t error_size) {
  const int me = rank();
  const double deadline = MPI_Wtime() + timeout_s;
  int64_t size = me == 0 ? (bytes > INT_MAX ? -1 : bytes) : 0;
  MPI_Request request = MPI_REQUEST_NULL;
  int rc = MPI_Ibcast(&size, 1, MPI_INT64_T, 0, MPI_COMM_WORLD, &request);
  if (rc == MPI_SUCCESS) rc = waitUntil(1, &request, deadline);
  if (rc == 1) return timedOut(error, error_size, "not every process took the broadcast", timeout_s);
  if (rc != 0) return fail(error, error_size, "broadcasting failed", rc);
  if (size < 0) {
    snprintf(error, error_size, "MPI rank 0's broadcast is larger than one message can carry");
    return -1;
  }
  char* buffer = me == 0 ? (char*)data : malloc(size > 0 ? (size_t)size : 1);
  if (!buffer) {
    snprintf(error, error_size, "out of memory for a broadcast of %lld bytes", (long long)size);
    return -1;
  }
  rc = MPI_Ibcast(buffer, (int)size, MPI_CHAR, 0, MPI_COMM_WORLD, &request);
  if (rc == MPI_SUCCESS) rc = waitUntil(1, &request, deadline);
  if (rc == 1) return timedOut(error, error_size, "not every process took the broadcast", timeout_s);
  if (rc != 0) return fail(error, error_size, "broadcasting failed", rc);
  if (me != 0) {
    receive(context, 0, buffer, size);
    free(buffer);
  }
  return 0;
}

/* Every rank's sizes for every rank first (one all-to-all of counts), then the bytes themselves,
 * each pair's at once, point to point. -1 for a size larger than one message carries: both sides
 * then say so. */
static int exchange(const char* const* data, const int64_t* sizes, double timeout_s,
                    bubblescope_mpi_receive_fn receive, void* context, char* error,
                    size_t error_size) {
  const int me = rank();
  const int n = size();
  const double deadline = MPI_Wtime() + timeout_s;
  int64_t* mine = calloc((size_t)n, sizeof *mine);
  int64_t* theirs = calloc((size_t)n, sizeof *theirs);
  char** buffers = calloc((size_t)n, sizeof *buffers);
  MPI_Request* requests = malloc(2 * (size_t)n * sizeof *requests);
  int status = -1;
  if (!mine || !theirs || !buffers || !requests) {
    snprintf(error, error_size, "out of memory for an exchange among %d processes", n);
    goto done;
  }
  for (int r = 0; r < n; ++r) mine[r] = sizes[r] > INT_MAX ? -1 : sizes[r];
  MPI_Request request = MPI_REQUEST_NULL;
  int rc = MPI_Ialltoall(mine, 1, MPI_INT64_T, theirs, 1, MPI_INT64_T, MPI_COMM_WORLD, &request);
  if (rc == MPI_SUCCESS) rc = waitUntil(1, &request, deadline);
  if (rc == 1) {
    timedOut(error, error_size, "not every process took part in the exchange", timeout_s);
    goto done;
  }
  if (rc != 0) {
    fail(error, error_size, "exchanging the sizes failed", rc);
    goto done;
  }
  for (int r = 0; r < n; ++r) {
    if (mine[r] < 0 || theirs[r] < 0) {
      snprintf(error, error_size,
               "MPI rank %d's bytes for rank %d are larger than one message "
               "can carry",
               mine[r] < 0 ? me : r, mine[r] < 0 ? r : me);
      goto done;
    }
  }
  int count = 0;
  for (int r = 0; r < n; ++r) {
    if (r == me || theirs[r] == 0) continue;
    buffers[r] = malloc((size_t)theirs[r]);
    if (!buffers[r]) {
      snprintf(error, error_size, "out of memory for MPI rank %d's bytes", r);
      goto done;
    }
    rc = MPI_Irecv(buffers[r], (int)theirs[r], MPI_CHAR, r, kExchangeTag, MPI_COMM_WORLD,
                   &requests[count++]);
    if (rc != MPI_SUCCESS) {
      fail(error, error_size, "receiving in the exchange failed", rc);
      goto done;
    }
  }
  for (int r = 0; r < n; ++r) {
    if (r == me || mine[r] == 0) continue;
    rc = MPI_Isend(data[r], (int)mine[r], MPI_CHAR, r, kExchangeTag, MPI_COMM_WORLD,
                   &requests[count++]);
    if (rc != MPI_SUCCESS) {
      fail(error, error_size, "sending in the exchange failed", rc);
      goto done;
    }
  }
  rc = waitUntil(count, requests, deadline);
  /* On failure a receive may still be pending into its buffer: those are not freed (the job
   * ends). */
  if (rc == 1) {
    timedOut(error, error_size, "not every process sent its part of the exchange", timeout_s);
    free(mine), free(theirs), free(requests);
    return -1;
  }
  if (rc != 0) {
    fail(error, error_size, "the exchange failed", rc);
    free(mine), free(theirs), free(requests);
    return -1;
  }
  for (int r = 0; r < n; ++r) {
    if (r == me) {
      receive(context, r, data[r], mine[r]);
    } else {
      receive(context, r, buffers[r] ? buffers[r] : "", theirs[r]);
    }
    free(buffers[r]);
    buffers[r] = NULL;
  }
  status = 0;
done:
  if (buffers) {
    for (int r = 0; r < n; ++r) free(buffers[r]);
  }
  free(buffers), free(mine), free(theirs), free(requests);
  return status;
}

static void abortJob(int code) {
  MPI_Abort(MPI_COMM_WORLD, code);
}

static int finalize(char* error, size_t error_size) {
  const int rc = MPI_Finalize();
  return rc == MPI_SUCCESS ? 0 : fail(error, error_size, "MPI_Finalize failed", rc);
}

__attribute__((visibility("default"))) const bubblescope_mpi_plugin* bubblescope_mpi_plugin_v3(
    void) {
  static const bubblescope_mpi_plugin kPlugin = {BUBBLESCOPE_MPI_ABI_VERSION,
                                                 init,
                                                 rank,
                                                 size,
                                                 gather,
                                                 broadcast,
                                                 exchange,
                                                 abortJob,
                                                 finalize};
  return &kPlugin;
}
