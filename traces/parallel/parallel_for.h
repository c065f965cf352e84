#pragma once
// The one thread pool every stage of loading and analysis uses: files read, ranks recognised and
// inferred in parallel, each item independent of the others.
#include <cstddef>
#include <functional>

namespace bubblescope::traces {

// Runs work(i) for every i in [0, n) on up to `threads` threads (0: one per core; never more
// than n), the caller's among them. Items are handed out one at a time, so a slow one holds back
// no other. `progress(done)` is called after each item, one call at a time. The first exception
// an item throws stops the handing out and is rethrown here once every thread has finished.
void parallelFor(size_t n, unsigned threads, const std::function<void(size_t i)>& work,
                 const std::function<void(size_t done)>& progress = {});

// The threads a `threads` setting stands for: 0 is one per core; at least one.
unsigned threadCount(unsigned threads);
// The threads each of `n` items run side by side on `threads` may use inside: what fewer items
// than threads leave over (one item: all of them); at least one.
unsigned threadsEach(size_t n, unsigned threads);

}  // namespace bubblescope::traces
