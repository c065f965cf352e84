// libFuzzer target: any bytes as a --rules file. Bad input must end in one std::invalid_argument
// naming the file; a rule set that loads must then match names without crashing or stalling,
// whatever its patterns (RE2: linear time).
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

#include "analyzer/recognize/rule_set.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace bubblescope::analysis;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  RuleSet set;
  try {
    set = parseRuleSet(text, "fuzz.json", "fuzz");
  } catch (const std::invalid_argument& e) {
    if (std::string_view(e.what()).substr(0, 10) != "fuzz.json:") __builtin_trap();
    return 0;
  }
  // Names a trace might hold, and the file's own bytes as one.
  for (std::string_view name : {std::string_view("F mb=3"), std::string_view("SEND F mb=1 to=2"),
                                std::string_view("fwd mb4 ch1"), std::string_view("step 12"),
                                std::string_view(""), text.substr(0, 512)}) {
    if (auto m = set.match(name); m && m->mb && *m->mb < 0) __builtin_trap();
  }
  return 0;
}
