#include "traces/import/nsys/torch_nvtx_names.h"

namespace bubblescope::traces::import {
namespace {

// Consumes ", <key> = <digits>" at the front of `s`.
bool number(std::string_view& s, std::string_view key) {
  std::string_view t = s;
  if (!t.starts_with(", ")) return false;
  t.remove_prefix(2);
  if (!t.starts_with(key) || !t.substr(key.size()).starts_with(" = ")) return false;
  t.remove_prefix(key.size() + 3);
  size_t digits = 0;
  if (!t.empty() && t[0] == '-') ++digits;  // seq = -1 is not written, but tolerate it
  while (digits < t.size() && t[digits] >= '0' && t[digits] <= '9') ++digits;
  if (digits == 0 || (digits == 1 && t[0] == '-')) return false;
  s = t.substr(digits);
  return true;
}

// Consumes ", <key> = [...]" (brackets nested, as shapes are) at the front of `s`.
bool list(std::string_view& s, std::string_view key) {
  std::string_view t = s;
  if (!t.starts_with(", ")) return false;
  t.remove_prefix(2);
  if (!t.starts_with(key) || !t.substr(key.size()).starts_with(" = [")) return false;
  t.remove_prefix(key.size() + 3);
  int depth = 0;
  for (size_t i = 0; i < t.size(); ++i) {
    if (t[i] == '[') ++depth;
    if (t[i] == ']' && --depth == 0) {
      s = t.substr(i + 1);
      return true;
    }
  }
  return false;
}

}  // namespace

std::string_view withoutEmitNvtxSuffix(std::string_view name) {
  // The suffix starts at the first ", seq = " or ", op_id = " that the whole grammar accepts
  // through to the end of the name.
  for (size_t at = name.find(", "); at != std::string_view::npos; at = name.find(", ", at + 1)) {
    std::string_view rest = name.substr(at);
    const bool seq = number(rest, "seq");
    const bool opId = number(rest, "op_id");
    if (!seq && !opId) continue;
    list(rest, "sizes");
    list(rest, "input_op_ids");
    if (rest.empty() && at > 0) return name.substr(0, at);
  }
  return name;
}

}  // namespace bubblescope::traces::import
