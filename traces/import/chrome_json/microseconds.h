#pragma once
// Chrome-trace times are microseconds written as decimal numbers ("1712195495519689.047"); they
// become int64 nanoseconds exactly, from the digits, never through a double (a double holds only
// about 16 digits: epoch microseconds with a nanosecond fraction need 19).
#include <cstdint>
#include <optional>
#include <string_view>

namespace bubblescope::traces::import {

// `text` is a JSON number (or the same inside quotes). Digits past the nanosecond round half up;
// exponents are honoured. nullopt for text that is not a number or does not fit.
std::optional<int64_t> microsToNs(std::string_view text);

}  // namespace bubblescope::traces::import
