#include "analyzer/report/markup.h"

#include <algorithm>
#include <cstdint>

namespace bubblescope::analysis {
namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

// Length of the well-formed UTF-8 sequence at s[i] (1-4), or 0 if it is not one.
size_t utf8Length(std::string_view s, size_t i) {
  const auto byte = [&](size_t k) { return static_cast<uint8_t>(s[k]); };
  const uint8_t c = byte(i);
  if (c < 0x80) return 1;
  size_t n = 0;
  uint32_t cp = 0;
  if ((c & 0xE0) == 0xC0) {
    n = 2;
    cp = c & 0x1F;
  } else if ((c & 0xF0) == 0xE0) {
    n = 3;
    cp = c & 0x0F;
  } else if ((c & 0xF8) == 0xF0) {
    n = 4;
    cp = c & 0x07;
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (byte(i + k) & 0x3F);
  }
  // Overlong forms, surrogates, beyond U+10FFFF, and U+FFFE/FFFF are not allowed in XML.
  static constexpr uint32_t kMin[5] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < kMin[n] || (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF || cp == 0xFFFE ||
      cp == 0xFFFF) {
    return 0;
  }
  return n;
}

}  // namespace

std::string escapeXml(std::string_view s) {
  std::string out;
  out.reserve(s.size() + s.size() / 8);
  for (size_t i = 0; i < s.size();) {
    const char c = s[i];
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default: {
        const size_t n = utf8Length(s, i);
        const auto u = static_cast<uint8_t>(c);
        if (n == 0 || (u < 0x20 && c != '\t' && c != '\n' && c != '\r')) {
          out += kReplacement;
          i += 1;
          continue;
        }
        out.append(s.substr(i, n));
        i += n;
        continue;
      }
    }
    ++i;
  }
  return out;
}

std::string escapeMarkdownCell(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 8);
  for (const char c : s) {
    switch (c) {
      case '|':
        out += "\\|";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '\n':
      case '\r':
        out += ' ';
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string markdownCode(std::string_view s) {
  if (s.empty()) return "";
  size_t longest = 0, run = 0;
  for (const char c : s) {
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  const std::string fence(longest + 1, '`');
  // A leading or trailing backtick needs a space between it and the fence.
  const bool pad = s.front() == '`' || s.back() == '`';
  // Inside code spans only the table's pipe needs escaping; entities and backslashes are literal.
  std::string body;
  for (const char c : s) {
    if (c == '|') {
      body += "\\|";
    } else {
      body += (c == '\n' || c == '\r') ? ' ' : c;
    }
  }
  return fence + (pad ? " " : "") + body + (pad ? " " : "") + fence;
}

}  // namespace bubblescope::analysis
