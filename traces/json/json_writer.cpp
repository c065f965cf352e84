#include "traces/json/json_writer.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <stdexcept>

// Its number formatting only: nlohmann's Grisu2, so a double reads as every report wrote it.
#include <nlohmann/json.hpp>

namespace bubblescope::traces {
namespace {

std::string hexByte(unsigned char b) {
  char s[3];
  std::snprintf(s, sizeof s, "%02X", b);
  return s;
}

[[noreturn]] void notUtf8(std::string_view s, size_t at) {
  throw std::runtime_error("a text in the JSON output is not UTF-8: byte " + std::to_string(at) +
                           " of \"" + std::string(s.substr(0, 60)) + "\" is 0x" +
                           hexByte(static_cast<unsigned char>(s[at])));
}

bool inRange(unsigned char b, unsigned char lo, unsigned char hi) {
  return b >= lo && b <= hi;
}

// Length of the well-formed UTF-8 sequence that starts at s[i] (2-4); throws naming the first
// byte that breaks it, as dump() does (overlong forms, surrogates and values past U+10FFFF too).
size_t sequenceLength(std::string_view s, size_t i) {
  const auto b = static_cast<unsigned char>(s[i]);
  unsigned char lo = 0x80, hi = 0xBF;  // the range of the second byte
  size_t n = 0;
  if (inRange(b, 0xC2, 0xDF)) {
    n = 2;
  } else if (inRange(b, 0xE0, 0xEF)) {
    n = 3;
    if (b == 0xE0) lo = 0xA0;
    if (b == 0xED) hi = 0x9F;
  } else if (inRange(b, 0xF0, 0xF4)) {
    n = 4;
    if (b == 0xF0) lo = 0x90;
    if (b == 0xF4) hi = 0x8F;
  } else {
    notUtf8(s, i);
  }
  for (size_t k = 1; k < n; ++k) {
    if (i + k >= s.size()) notUtf8(s, s.size() - 1);  // cut short
    const auto c = static_cast<unsigned char>(s[i + k]);
    if (!inRange(c, k == 1 ? lo : 0x80, k == 1 ? hi : 0xBF)) notUtf8(s, i + k);
  }
  return n;
}

}  // namespace

JsonWriter::JsonWriter(std::ostream& out, int indent) : out_(out), indent_(indent) {
  buffer_.reserve(kFlushAt + 256);
}

JsonWriter::~JsonWriter() {
  flush();
}

void JsonWriter::flush() {
  out_.write(buffer_.data(), static_cast<std::streamsize>(buffer_.size()));
  buffer_.clear();
}

void JsonWriter::newline(size_t depth) {
  if (indent_ < 0) return;
  put('\n');
  buffer_.append(depth * static_cast<size_t>(indent_), ' ');
}

void JsonWriter::beforeValue() {
  if (afterKey_) {
    afterKey_ = false;
    return;
  }
  if (filled_.empty()) return;  // the document itself
  if (filled_.back()) put(',');
  filled_.back() = true;
  newline(filled_.size());
}

JsonWriter& JsonWriter::key(std::string_view name) {
  if (filled_.back()) put(',');
  filled_.back() = true;
  newline(filled_.size());
  quoted(name);
  put(indent_ < 0 ? ":" : ": ");
  afterKey_ = true;
  return *this;
}

void JsonWriter::open(char bracket) {
  beforeValue();
  put(bracket);
  filled_.push_back(false);
}

void JsonWriter::close(char bracket) {
  const bool filled = filled_.back();
  filled_.pop_back();
  if (filled) newline(filled_.size());
  put(bracket);
}

void JsonWriter::beginObject() {
  open('{');
}
void JsonWriter::endObject() {
  close('}');
}
void JsonWriter::beginArray() {
  open('[');
}
void JsonWriter::endArray() {
  close(']');
}

void JsonWriter::null() {
  beforeValue();
  put("null");
}

void JsonWriter::value(bool b) {
  beforeValue();
  put(b ? "true" : "false");
}

void JsonWriter::integer(long long v) {
  beforeValue();
  char s[24];
  put(std::string_view(s, std::to_chars(s, s + sizeof s, v).ptr - s));
}

void JsonWriter::unsignedInteger(unsigned long long v) {
  beforeValue();
  char s[24];
  put(std::string_view(s, std::to_chars(s, s + sizeof s, v).ptr - s));
}

void JsonWriter::value(double v) {
  if (!std::isfinite(v)) return null();
  beforeValue();
  std::array<char, 64> s{};
  const char* end = nlohmann::detail::to_chars(s.data(), s.data() + s.size(), v);
  put(std::string_view(s.data(), static_cast<size_t>(end - s.data())));
}

void JsonWriter::value(std::string_view s) {
  beforeValue();
  quoted(s);
}

void JsonWriter::quoted(std::string_view s) {
  put('"');
  size_t run = 0;  // start of the bytes not yet written
  for (size_t i = 0; i < s.size();) {
    const auto b = static_cast<unsigned char>(s[i]);
    if (b >= 0x80) {
      i += sequenceLength(s, i);
      continue;
    }
    if (b >= 0x20 && b != '"' && b != '\\') {
      ++i;
      continue;
    }
    put(s.substr(run, i - run));
    switch (b) {
      case '"':
        put("\\\"");
        break;
      case '\\':
        put("\\\\");
        break;
      case '\b':
        put("\\b");
        break;
      case '\t':
        put("\\t");
        break;
      case '\n':
        put("\\n");
        break;
      case '\f':
        put("\\f");
        break;
      case '\r':
        put("\\r");
        break;
      default: {
        char u[7];
        std::snprintf(u, sizeof u, "\\u%04x", b);
        put(std::string_view(u, 6));
      }
    }
    run = ++i;
  }
  put(s.substr(run));
  put('"');
}

}  // namespace bubblescope::traces
