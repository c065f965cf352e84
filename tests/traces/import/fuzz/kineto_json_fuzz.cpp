// libFuzzer target: any bytes through the Kineto / Chrome-trace JSON importer (gzip and zstd
// included, told by their magic). Bad input must end in a TraceError, never a crash, a sanitizer
// report or a hang.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "traces/errors.h"
#include "traces/import/chrome_json/chrome_trace_import.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace bubblescope::traces;
  import::ByteSource source(std::string_view(reinterpret_cast<const char*>(data), size),
                            "fuzz.json");
  try {
    const import::ImportedFile f = import::importChromeTrace(source);
    for (const RankTrace& t : f.ranks) {
      if (t.eventCount() > (size_t{1} << 40)) __builtin_trap();  // keep the result alive
    }
  } catch (const TraceError&) {
    // The one way bad input may end.
  }
  return 0;
}
