#pragma once
// Bytes in, bytes out for what one process hands another (a distributed analysis' shards): plain
// values, strings and columns of trivially copyable values, in this machine's layout. Both sides
// are the same program on the same kind of machine; a reader that runs past the end throws.
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace bubblescope::traces {

class ByteWriter {
 public:
  explicit ByteWriter(std::string& out) : out_(out) {}

  template <typename T>
  void value(const T& v) {
    static_assert(std::is_trivially_copyable_v<T>);
    out_.append(reinterpret_cast<const char*>(&v), sizeof v);
  }
  void text(std::string_view s) {
    value<uint64_t>(s.size());
    out_.append(s);
  }
  template <typename T>
  void column(const std::vector<T>& c) {
    static_assert(std::is_trivially_copyable_v<T>);
    value<uint64_t>(c.size());
    out_.append(reinterpret_cast<const char*>(c.data()), c.size() * sizeof(T));
  }

 private:
  std::string& out_;
};

class ByteReader {
 public:
  explicit ByteReader(std::string_view in) : in_(in) {}

  template <typename T>
  T value() {
    static_assert(std::is_trivially_copyable_v<T>);
    T v;
    std::memcpy(&v, take(sizeof v), sizeof v);
    return v;
  }
  std::string text() { return std::string(textView()); }
  // The text in place: valid while the bytes read are.
  std::string_view textView() {
    const auto n = value<uint64_t>();
    return {take(n), static_cast<size_t>(n)};
  }
  template <typename T>
  void column(std::vector<T>& c) {
    static_assert(std::is_trivially_copyable_v<T>);
    const auto n = value<uint64_t>();
    if (n > left() / (sizeof(T) ? sizeof(T) : 1)) truncated();
    c.resize(n);
    std::memcpy(c.data(), take(n * sizeof(T)), n * sizeof(T));
  }
  // A count of entries that take at least `least` bytes each: one the bytes left cannot hold
  // throws before it sizes anything.
  size_t count(size_t least) {
    const auto n = value<uint64_t>();
    if (n > left() / (least ? least : 1)) truncated();
    return static_cast<size_t>(n);
  }
  size_t left() const { return in_.size() - at_; }
  bool done() const { return at_ == in_.size(); }

 private:
  const char* take(size_t n) {
    if (n > left()) truncated();
    const char* p = in_.data() + at_;
    at_ += n;
    return p;
  }
  [[noreturn]] static void truncated() {
    throw std::runtime_error("a shard's bytes end before what they hold does");
  }

  std::string_view in_;
  size_t at_ = 0;
};

}  // namespace bubblescope::traces
