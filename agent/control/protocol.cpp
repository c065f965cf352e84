#include "agent/control/protocol.h"

#include <charconv>
#include <cmath>
#include <cstdio>

#include "agent/core/words.h"

namespace bubblescope::control {
namespace {

using agent::nextWord;
using agent::parseCount;

constexpr int64_t kMaxSeconds = int64_t{366} * 86400;

// "S" or "S.F" in nanoseconds, exactly (a double has too few digits for ns beyond ~100 days, so
// a duration sent and parsed back differed; found by control_protocol_fuzz). False if not that.
bool exactDecimalSeconds(std::string_view text, int64_t* ns) {
  const size_t dot = text.find('.');
  const std::string_view whole = text.substr(0, dot);
  const std::string_view fraction = dot == std::string_view::npos ? "" : text.substr(dot + 1);
  auto digits = [](std::string_view d) {
    for (char c : d) {
      if (c < '0' || c > '9') return false;
    }
    return true;
  };
  if (whole.empty() || whole.size() > 12 || !digits(whole) || !digits(fraction) ||
      (dot != std::string_view::npos && fraction.empty())) {
    return false;
  }
  int64_t seconds = 0;
  for (char c : whole) seconds = seconds * 10 + (c - '0');
  int64_t nanos = 0;
  for (size_t i = 0; i < 9; ++i) nanos = nanos * 10 + (i < fraction.size() ? fraction[i] - '0' : 0);
  if (fraction.size() > 9 && fraction[9] >= '5') ++nanos;  // rounded, as llround would
  if (seconds > kMaxSeconds) return false;
  *ns = seconds * 1'000'000'000 + nanos;
  return true;
}

// Seconds, a positive finite decimal up to a year (beyond that it is a typo).
bool parseSeconds(std::string_view text, int64_t* ns) {
  if (exactDecimalSeconds(text, ns)) return *ns > 0 && *ns <= kMaxSeconds * 1'000'000'000;
  double seconds = 0;  // other spellings: 1e3, 2.5E-1
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), seconds);
  if (ec != std::errc() || ptr != text.data() + text.size() || !std::isfinite(seconds) ||
      !(seconds > 0) || seconds > static_cast<double>(kMaxSeconds)) {
    return false;
  }
  *ns = static_cast<int64_t>(std::llround(seconds * 1e9));
  return *ns > 0;
}

std::string_view trimLine(std::string_view line) {
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.remove_suffix(1);
  return line;
}

int hexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

bool parseCommand(std::string_view line, Command* out, std::string* error) {
  static constexpr const char* kUsage =
      "start [steps=N | duration=SECONDS] [from=S], stop, status, hang, watch [keep=SECONDS], "
      "snapshot";
  line = trimLine(line);
  std::string_view rest = line;
  const std::string_view verb = nextWord(rest);
  Command c;
  if (verb == "status") {
    c.verb = Command::Verb::Status;
  } else if (verb == "start") {
    c.verb = Command::Verb::Start;
  } else if (verb == "stop") {
    c.verb = Command::Verb::Stop;
  } else if (verb == "hang") {
    c.verb = Command::Verb::Hang;
  } else if (verb == "watch") {
    c.verb = Command::Verb::Watch;
  } else if (verb == "snapshot") {
    c.verb = Command::Verb::Snapshot;
  } else {
    *error = "unknown request '" + escapeValue(verb.substr(0, 32)) + "' (" + kUsage + ")";
    return false;
  }
  for (std::string_view word = nextWord(rest); !word.empty(); word = nextWord(rest)) {
    const size_t eq = word.find('=');
    const std::string_view key = word.substr(0, eq);
    const std::string_view value = eq == std::string_view::npos ? "" : word.substr(eq + 1);
    const bool start = c.verb == Command::Verb::Start && eq != std::string_view::npos;
    const bool watch = c.verb == Command::Verb::Watch && eq != std::string_view::npos;
    bool good = start;
    if (watch && key == "keep") {
      good = parseSeconds(value, &c.keepNs) && c.keepNs <= kMaxKeepNs;
      if (!good) {
        *error = "bad argument '" + escapeValue(word.substr(0, 32)) +
                 "' (keep=SECONDS, more than 0 and at most " +
                 std::to_string(kMaxKeepNs / 1'000'000'000) + ")";
        return false;
      }
    } else if (good && key == "steps") {
      good = parseCount(value, &c.steps) && c.steps > 0;
    } else if (good && key == "from") {
      good = parseCount(value, &c.fromStep);
    } else if (good && key == "duration") {
      good = parseSeconds(value, &c.durationNs);
    } else {
      good = false;
    }
    if (!good) {
      *error = "bad argument '" + escapeValue(word.substr(0, 32)) + "' (" + kUsage + ")";
      return false;
    }
  }
  if (c.steps > 0 && c.durationNs > 0) {
    *error = "start takes steps=N or duration=SECONDS, not both";
    return false;
  }
  if (c.fromStep >= 0 && c.steps == 0 && c.durationNs == 0) {
    *error = "from=S needs steps=N or duration=SECONDS";
    return false;
  }
  *out = c;
  return true;
}

// Exact to the nanosecond, trailing zeros dropped: "1.5", "92.378564444".
std::string formatSeconds(int64_t ns) {
  char seconds[48];
  std::snprintf(seconds, sizeof seconds, "%lld.%09lld", static_cast<long long>(ns / 1'000'000'000),
                static_cast<long long>(ns % 1'000'000'000));
  std::string text = seconds;
  while (text.back() == '0') text.pop_back();
  if (text.back() == '.') text.pop_back();
  return text;
}

std::string formatCommand(const Command& c) {
  switch (c.verb) {
    case Command::Verb::Status:
      return "status\n";
    case Command::Verb::Stop:
      return "stop\n";
    case Command::Verb::Hang:
      return "hang\n";
    case Command::Verb::Snapshot:
      return "snapshot\n";
    case Command::Verb::Watch:
      return c.keepNs > 0 ? "watch keep=" + formatSeconds(c.keepNs) + "\n" : "watch\n";
    case Command::Verb::Start:
      break;
  }
  std::string line = "start";
  if (c.steps > 0) line += " steps=" + std::to_string(c.steps);
  if (c.durationNs > 0) line += " duration=" + formatSeconds(c.durationNs);
  if (c.fromStep >= 0) line += " from=" + std::to_string(c.fromStep);
  return line + "\n";
}

const std::string* Reply::find(const std::string& key) const {
  const auto it = fields.find(key);
  return it == fields.end() ? nullptr : &it->second;
}

std::string Reply::text(const std::string& key) const {
  const std::string* v = find(key);
  return v == nullptr ? std::string() : *v;
}

int64_t Reply::integer(const std::string& key, int64_t missing) const {
  const std::string* v = find(key);
  if (v == nullptr || v->empty()) return missing;
  int64_t n = 0;
  const auto [ptr, ec] = std::from_chars(v->data(), v->data() + v->size(), n);
  return ec == std::errc() && ptr == v->data() + v->size() ? n : missing;
}

std::string formatReply(const Reply& reply) {
  std::string line = reply.ok ? "ok" : "err";
  for (const auto& [key, value] : reply.fields) line += " " + key + "=" + escapeValue(value);
  return line + "\n";
}

std::optional<Reply> parseReply(std::string_view line) {
  line = trimLine(line);
  std::string_view rest = line;
  const std::string_view status = nextWord(rest);
  Reply r;
  if (status == "ok") {
    r.ok = true;
  } else if (status != "err") {
    return std::nullopt;
  }
  for (std::string_view word = nextWord(rest); !word.empty(); word = nextWord(rest)) {
    const size_t eq = word.find('=');
    if (eq == 0 || eq == std::string_view::npos) return std::nullopt;
    r.fields[std::string(word.substr(0, eq))] = unescapeValue(word.substr(eq + 1));
  }
  return r;
}

std::string escapeValue(std::string_view value) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  out.reserve(value.size());
  for (const char ch : value) {
    const auto c = static_cast<unsigned char>(ch);
    if (c <= 0x20 || c >= 0x7f || c == '%' || c == '=') {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    } else {
      out += ch;
    }
  }
  return out;
}

std::string unescapeValue(std::string_view value) {
  std::string out;
  out.reserve(value.size());
  for (size_t i = 0; i < value.size(); ++i) {
    if (value[i] == '%' && i + 2 < value.size() && hexValue(value[i + 1]) >= 0 &&
        hexValue(value[i + 2]) >= 0) {
      out += static_cast<char>(hexValue(value[i + 1]) * 16 + hexValue(value[i + 2]));
      i += 2;
    } else {
      out += value[i];
    }
  }
  return out;
}

}  // namespace bubblescope::control
