#pragma once
// The agent's SQLite opens its trace files on descriptor numbers far above the job's. A job may
// close every descriptor (close_range(3, ~0U, 0), a daemonising loop) and open files of its own:
// they take the lowest free numbers. Before each transaction the writer checks that its numbers
// are still its own (trace_handles.h), but between that check and SQLite's write the job can
// close them and open its own file on one: at load 8 the agent wrote a WAL frame into the job's
// file that way (issue 28). Up high, a job would have to open hundreds of files in that moment.
namespace bubblescope::agent {

// The first number the agent's SQLite files take: half the soft descriptor limit, at most 1024
// (a higher one would grow the descriptor table every fork of the job copies), at least 3.
int highDescriptorFloor();

// From now on the agent's SQLite opens its files at highDescriptorFloor() or above, through the
// unix VFS's own system-call hook. Only where the agent has SQLite to itself (linked statically,
// its symbols hidden): with the shared library the job's own SQLite would move too. Idempotent.
void openSqliteFilesHigh();

}  // namespace bubblescope::agent
