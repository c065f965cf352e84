#pragma once
// Space-separated words with key=value options: the grammar of the agent's control marks
// (`start steps=2`) and of its control socket's requests. Header-only: the attach client links
// no agent code.
#include <charconv>
#include <cstdint>
#include <string_view>

namespace bubblescope::agent {

// The next word of `rest` (spaces skipped), which then starts after it; "" at the end.
inline std::string_view nextWord(std::string_view& rest) {
  while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
  const size_t end = rest.find(' ');
  const std::string_view word = rest.substr(0, end);
  rest = end == std::string_view::npos ? std::string_view() : rest.substr(end);
  return word;
}

// A whole non-negative decimal number, nothing else.
inline bool parseCount(std::string_view text, int64_t* out) {
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), *out);
  return ec == std::errc() && ptr == text.data() + text.size() && *out >= 0;
}

}  // namespace bubblescope::agent
