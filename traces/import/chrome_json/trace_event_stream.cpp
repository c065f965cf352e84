#include "traces/import/chrome_json/trace_event_stream.h"

#include <cstring>
#include <string>

#include "traces/errors.h"
#include "traces/import/chrome_json/trace_event.h"

namespace bubblescope::traces::import {
namespace {

constexpr size_t kFirstChunk = size_t{64} << 10;  // small inputs stay small ...
constexpr size_t kChunk = size_t{4} << 20;        // ... large ones read 4 MiB per refill
constexpr size_t kMaxValue = size_t{64} << 20;    // larger top-level values are skipped
constexpr size_t npos = std::string_view::npos;

bool isSpace(char c) {
  return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

bool endsScalar(char c) {
  return c == ',' || c == '}' || c == ']' || isSpace(c);
}

// A window over the decompressed input. Values are scanned from their first byte each time the
// window grows: simple, and only the one value straddling a refill is scanned twice.
class Scanner {
 public:
  explicit Scanner(ByteSource& source) : src_(source), buf_(kFirstChunk + kJsonPadding) {}

  // The next non-space byte (not consumed), or -1 at the end of the input.
  int peek() {
    for (;;) {
      while (pos_ < end_ && isSpace(buf_[pos_])) ++pos_;
      if (pos_ < end_) return static_cast<unsigned char>(buf_[pos_]);
      if (eof_) return -1;
      refill();
    }
  }
  void advance() { ++pos_; }

  // Skips a UTF-8 byte order mark: all three bytes or none (a lone 0xEF ran the window past its
  // end; now it is left for the JSON parser to refuse).
  void skipByteOrderMark() {
    while (end_ - pos_ < 3 && !eof_) refill();
    if (end_ - pos_ >= 3 && std::memcmp(buf_.data() + pos_, "\xEF\xBB\xBF", 3) == 0) pos_ += 3;
  }

  // The next value's text, consumed. Values longer than `limit` are skipped and come out empty.
  std::string_view take(size_t limit) {
    for (;;) {
      const size_t e = scan(pos_);
      if (e != npos) {
        std::string_view v(buf_.data() + pos_, e - pos_);
        pos_ = e;
        return v;
      }
      if (eof_) truncated();
      if (end_ - pos_ >= limit) {
        skipLong();
        return {};
      }
      refill();
    }
  }

  // Bytes readable from `p` (inside the window) to the end of the allocation.
  size_t capacityFrom(const char* p) const {
    return static_cast<size_t>(buf_.data() + buf_.size() - p);
  }
  uint64_t offset() const { return discarded_ + pos_; }
  const std::filesystem::path& name() const { return src_.name(); }

  [[noreturn]] void truncated() const {
    throw TraceError(name(), "the JSON ends in the middle (after " + std::to_string(offset()) +
                                 " bytes): the file is truncated");
  }
  [[noreturn]] void malformed(const std::string& what) const {
    throw TraceError(name(), "malformed JSON at byte " + std::to_string(offset()) + ": " + what);
  }

 private:
  void refill() {
    if (pos_ > 0) {
      std::memmove(buf_.data(), buf_.data() + pos_, end_ - pos_);
      end_ -= pos_;
      discarded_ += pos_;
      pos_ = 0;
    }
    const size_t cap = buf_.size() - kJsonPadding;
    // The window doubles when a value fills it, and up to kChunk as the input goes on.
    if (end_ == cap || cap < kChunk) buf_.resize(2 * cap + kJsonPadding);
    const size_t k = src_.read(buf_.data() + end_, buf_.size() - kJsonPadding - end_);
    if (k == 0) eof_ = true;
    end_ += k;
  }

  // End of the value starting at `from`, or npos if the window ends first.
  size_t scan(size_t from) const {
    const char* b = buf_.data();
    const char c = b[from];
    if (c == '"') return skipString(from + 1);
    if (c == '{' || c == '[') {
      int depth = 0;
      for (size_t p = from; p < end_;) {
        const char ch = b[p];
        if (ch == '"') {
          p = skipString(p + 1);
          if (p == npos) return npos;
          continue;
        }
        if (ch == '{' || ch == '[') {
          ++depth;
        } else if (ch == '}' || ch == ']') {
          if (--depth == 0) return p + 1;
        }
        ++p;
      }
      return npos;
    }
    size_t p = from;
    while (p < end_ && !endsScalar(b[p])) ++p;
    return p == end_ && !eof_ ? npos : p;
  }

  // Past the closing quote of a string whose text starts at `p`, or npos.
  size_t skipString(size_t p) const {
    const char* b = buf_.data();
    const size_t first = p;
    for (;;) {
      const void* q = std::memchr(b + p, '"', end_ - p);
      if (!q) return npos;
      const size_t i = static_cast<size_t>(static_cast<const char*>(q) - b);
      size_t k = i;
      while (k > first && b[k - 1] == '\\') --k;
      if ((i - k) % 2 == 0) return i + 1;
      p = i + 1;
    }
  }

  // Drops a value too long to keep (byte by byte, remembering only nesting and string state).
  void skipLong() {
    int depth = 0;
    bool inString = false, escaped = false;
    for (;;) {
      for (; pos_ < end_; ++pos_) {
        const char c = buf_[pos_];
        if (inString) {
          if (escaped) {
            escaped = false;
          } else if (c == '\\') {
            escaped = true;
          } else if (c == '"') {
            inString = false;
            if (depth == 0) {
              ++pos_;
              return;
            }
          }
        } else if (c == '"') {
          inString = true;
        } else if (c == '{' || c == '[') {
          ++depth;
        } else if (c == '}' || c == ']') {
          if (--depth <= 0) {
            ++pos_;
            return;
          }
        } else if (depth == 0 && endsScalar(c)) {
          return;
        }
      }
      if (eof_) truncated();
      discarded_ += end_;
      pos_ = end_ = 0;
      refill();
    }
  }

  ByteSource& src_;
  std::vector<char> buf_;
  size_t pos_ = 0, end_ = 0;
  uint64_t discarded_ = 0;
  bool eof_ = false;
};

void streamEvents(Scanner& in, TraceEventSink& sink, EventStreamStats& stats) {
  for (bool first = true;; first = false) {
    int c = in.peek();
    if (c < 0) in.truncated();
    if (c == ']') {
      in.advance();
      return;
    }
    if (!first) {
      if (c != ',') in.malformed("expected ',' or ']' between trace events");
      in.advance();
      c = in.peek();
      if (c == ']') {  // a trailing comma, as some hand-written traces have
        in.advance();
        return;
      }
      if (c < 0) in.truncated();
    }
    const std::string_view v = in.take(kMaxValue);
    if (v.empty()) {
      throw TraceError(in.name(), "trace event " + std::to_string(stats.events) +
                                      " is larger than 64 MiB, so this is not a trace");
    }
    if (v.front() == '{') sink.event(v, in.capacityFrom(v.data()));
    ++stats.events;
    if (sink.satisfied()) {
      stats.stopped = true;
      return;
    }
  }
}

}  // namespace

EventStreamStats streamTraceEvents(ByteSource& source, TraceEventSink& sink) {
  Scanner in(source);
  EventStreamStats stats;
  int c = in.peek();
  if (c == 0xEF) {  // a UTF-8 byte order mark
    in.skipByteOrderMark();
    c = in.peek();
  }
  if (c < 0) throw TraceError(source.name(), "empty file, not a trace");
  if (c == '[') {
    in.advance();
    stats.sawEvents = true;
    sink.eventsBegin(true);
    streamEvents(in, sink, stats);
    return stats;
  }
  if (c != '{') {
    throw TraceError(source.name(),
                     "not JSON (a Chrome/Kineto trace starts with '{' or '['), so not a trace");
  }
  in.advance();
  for (bool first = true;; first = false) {
    c = in.peek();
    if (c < 0) in.truncated();
    if (c == '}') {
      sink.objectEnd();
      break;
    }
    if (!first) {
      if (c != ',') in.malformed("expected ',' or '}' after a top-level value");
      in.advance();
      c = in.peek();
    }
    if (c != '"') in.malformed("expected a key");
    const std::string_view quoted = in.take(kMaxValue);
    if (quoted.size() < 2) in.malformed("a key that does not end");
    const std::string key(quoted.substr(1, quoted.size() - 2));
    if (in.peek() != ':') in.malformed("expected ':' after \"" + key + "\"");
    in.advance();
    c = in.peek();
    if (c < 0) in.truncated();
    if (key == "traceEvents") {
      if (c != '[') throw TraceError(source.name(), "\"traceEvents\" is not an array");
      in.advance();
      stats.sawEvents = true;
      sink.eventsBegin(false);
      streamEvents(in, sink, stats);
      if (stats.stopped) return stats;
    } else {
      const std::string_view v = in.take(kMaxValue);
      if (!v.empty()) sink.topLevel(key, v, in.capacityFrom(v.data()));
    }
  }
  if (!stats.sawEvents) {
    throw TraceError(source.name(),
                     "JSON, but not a trace: it has no \"traceEvents\" array (is it a Kineto / "
                     "PyTorch profiler or Chrome trace?)");
  }
  return stats;
}

}  // namespace bubblescope::traces::import
