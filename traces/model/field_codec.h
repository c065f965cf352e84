#pragma once
// Structs as bytes through one list of their fields for both directions: a struct that is not
// trivially copyable names its fields once, in a `fields(f, s)` found beside it (argument-dependent
// lookup), and FieldWriter / FieldReader walk that list. Plain values travel as their bytes,
// strings as texts, vectors of plain values as columns; vectors, maps, optionals and pairs of
// anything else entry by entry. Pure: no I/O. A reader that runs past the end throws.
#include <concepts>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "traces/model/byte_codec.h"

namespace bubblescope::traces {

// For a `fields` that serves both directions: `template <typename F, FieldsOf<Gap> S> void
// fields(F& f, S& g)` takes a const Gap to write and a Gap to read.
template <typename S, typename T>
concept FieldsOf = std::same_as<std::remove_const_t<S>, T>;

namespace field_codec {
template <typename T>
struct Kind {
  static constexpr bool vector = false, map = false, optional = false, pair = false;
};
template <typename T>
struct Kind<std::vector<T>> : Kind<void> {
  static constexpr bool vector = true;
};
template <typename K, typename V>
struct Kind<std::map<K, V>> : Kind<void> {
  static constexpr bool map = true;
};
template <typename T>
struct Kind<std::optional<T>> : Kind<void> {
  static constexpr bool optional = true;
};
template <typename A, typename B>
struct Kind<std::pair<A, B>> : Kind<void> {
  static constexpr bool pair = true;
};
}  // namespace field_codec

class FieldWriter {
 public:
  explicit FieldWriter(ByteWriter& out) : out_(out) {}

  template <typename T>
  void operator()(const T& v) {
    using K = field_codec::Kind<T>;
    if constexpr (std::is_same_v<T, std::string>) {
      out_.text(v);
    } else if constexpr (K::vector) {
      if constexpr (std::is_trivially_copyable_v<typename T::value_type>) {
        out_.column(v);
      } else {
        out_.value<uint64_t>(v.size());
        for (const auto& item : v) (*this)(item);
      }
    } else if constexpr (K::map) {
      out_.value<uint64_t>(v.size());
      for (const auto& [key, value] : v) (*this)(key), (*this)(value);
    } else if constexpr (K::optional) {
      out_.value(v.has_value());
      if (v) (*this)(*v);
    } else if constexpr (K::pair) {
      (*this)(v.first), (*this)(v.second);
    } else if constexpr (std::is_trivially_copyable_v<T>) {
      out_.value(v);
    } else {
      fields(*this, v);
    }
  }

 private:
  ByteWriter& out_;
};

class FieldReader {
 public:
  explicit FieldReader(ByteReader& in) : in_(in) {}

  template <typename T>
  void operator()(T& v) {
    using K = field_codec::Kind<T>;
    if constexpr (std::is_same_v<T, std::string>) {
      v = in_.text();
    } else if constexpr (K::vector) {
      if constexpr (std::is_trivially_copyable_v<typename T::value_type>) {
        in_.column(v);
      } else {
        // Grown entry by entry: a damaged count runs out of bytes before it sizes much.
        for (size_t n = in_.count(1); n > 0; --n) (*this)(v.emplace_back());
      }
    } else if constexpr (K::map) {
      for (size_t n = in_.count(1); n > 0; --n) {
        typename T::key_type key{};
        (*this)(key);
        (*this)(v[key]);
      }
    } else if constexpr (K::optional) {
      if (in_.value<bool>()) (*this)(v.emplace());
    } else if constexpr (K::pair) {
      (*this)(v.first), (*this)(v.second);
    } else if constexpr (std::is_trivially_copyable_v<T>) {
      v = in_.value<T>();
    } else {
      fields(*this, v);
    }
  }

 private:
  ByteReader& in_;
};

// `s` as bytes, and back.
template <typename T>
void writeFields(const T& s, ByteWriter& out) {
  FieldWriter w(out);
  w(s);
}
template <typename T>
T readFields(ByteReader& in) {
  T s{};
  FieldReader r(in);
  r(s);
  return s;
}

}  // namespace bubblescope::traces
