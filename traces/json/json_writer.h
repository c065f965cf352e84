#pragma once
// A JSON writer that puts each value on the stream as it is given: every JSON bubblescope writes
// (reports, hang reports, simulations, the engine's truth) without a document in memory. Its
// bytes are nlohmann::json::dump(indent)'s for the same document.
#include <array>
#include <concepts>
#include <cstddef>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace bubblescope::traces {

class JsonWriter {
 public:
  // `indent` as dump's: -1 writes one line; 0 or more, a line per member with that many spaces a
  // level.
  explicit JsonWriter(std::ostream& out, int indent = -1);
  ~JsonWriter();  // flushes what is buffered
  JsonWriter(const JsonWriter&) = delete;
  JsonWriter& operator=(const JsonWriter&) = delete;

  void beginObject();
  void endObject();
  void beginArray();
  void endArray();
  // An object's member's name; its value follows. Members are written in the order given: for
  // nlohmann::json's bytes, ascending byte order of their names (its std::map's, which the tests
  // check by parsing and dumping); a file of fixed order (saved hang answers) is ordered_json's.
  JsonWriter& key(std::string_view name);

  void null();
  void value(bool b);
  // Strings are UTF-8, written as they are but for quotes, backslashes and control characters;
  // anything else throws std::runtime_error, as dump() does.
  void value(std::string_view s);
  void value(const char* s) { value(std::string_view(s)); }
  void value(const std::string& s) { value(std::string_view(s)); }
  template <std::integral T>
  requires(!std::same_as<T, bool>) void value(T v) {
    if constexpr (std::is_signed_v<T>) {
      integer(static_cast<long long>(v));
    } else {
      unsignedInteger(static_cast<unsigned long long>(v));
    }
  }
  // The shortest text that reads back as `v` (nlohmann's Grisu2: "1.0", "0.25", "1e-05"); NaN and
  // infinities are null.
  void value(double v);
  template <class T>
  void value(const std::optional<T>& v) {
    if (v) {
      value(*v);
    } else {
      null();
    }
  }
  template <class T>
  void value(const std::vector<T>& items) {
    beginArray();
    for (const T& item : items) value(item);
    endArray();
  }
  template <class T, size_t N>
  void value(const std::array<T, N>& items) {
    beginArray();
    for (const T& item : items) value(item);
    endArray();
  }

  // key(name) then value(v).
  template <class T>
  void field(std::string_view name, const T& v) {
    key(name);
    value(v);
  }

  void flush();

 private:
  void beforeValue();  // the separator and indent the value's place needs
  void open(char bracket);
  void close(char bracket);
  void newline(size_t depth);
  void quoted(std::string_view s);  // escaped, between quotes
  void integer(long long v);
  void unsignedInteger(unsigned long long v);
  void put(std::string_view s) {
    buffer_.append(s);
    if (buffer_.size() >= kFlushAt) flush();
  }
  void put(char c) {
    buffer_.push_back(c);
    if (buffer_.size() >= kFlushAt) flush();
  }

  static constexpr size_t kFlushAt = 64 * 1024;
  std::ostream& out_;
  int indent_;
  std::string buffer_;
  // Per open container: whether it has a member yet.
  std::vector<bool> filled_;
  bool afterKey_ = false;
};

}  // namespace bubblescope::traces
