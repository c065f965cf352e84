// JsonWriter writes what nlohmann::json::dump writes for the same document: layout at each
// indent, numbers (Grisu2 doubles, integers at their limits), escaping, and it refuses text that
// is not UTF-8 as dump() does.
#include "traces/json/json_writer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <stdexcept>

namespace bubblescope::traces {
namespace {

using nlohmann::json;

std::string written(int indent, const std::function<void(JsonWriter&)>& write) {
  std::ostringstream s;
  {
    JsonWriter w(s, indent);
    write(w);
  }
  return s.str();
}

std::string doubleText(double v) {
  return written(-1, [&](JsonWriter& w) { w.value(v); });
}

TEST(JsonWriter, LayoutMatchesDumpAtEveryIndent) {
  const json doc = {{"a", json::array()},
                    {"b", json::object()},
                    {"c", {1, json::array({2, json::object()}), {{"d", nullptr}}}},
                    {"e", {{"f", true}, {"g", false}}},
                    {"h", "x"}};
  for (int indent : {-1, 0, 1, 2, 4}) {
    const std::string s = written(indent, [](JsonWriter& w) {
      w.beginObject();
      w.key("a").beginArray();
      w.endArray();
      w.key("b").beginObject();
      w.endObject();
      w.key("c").beginArray();
      w.value(1);
      w.beginArray();
      w.value(2);
      w.beginObject();
      w.endObject();
      w.endArray();
      w.beginObject();
      w.key("d").null();
      w.endObject();
      w.endArray();
      w.key("e").beginObject();
      w.field("f", true);
      w.field("g", false);
      w.endObject();
      w.field("h", "x");
      w.endObject();
    });
    EXPECT_EQ(s, doc.dump(indent)) << indent;
  }
  EXPECT_EQ(written(2, [](JsonWriter& w) { w.value(std::vector<int>{}); }), "[]");
  EXPECT_EQ(written(2, [](JsonWriter& w) { w.value("top"); }), "\"top\"");
}

TEST(JsonWriter, IntegersAtTheirLimitsAsDumpWritesThem) {
  for (int64_t v : {int64_t{0}, int64_t{-1}, int64_t{42}, std::numeric_limits<int64_t>::min(),
                    std::numeric_limits<int64_t>::max()}) {
    EXPECT_EQ(written(-1, [&](JsonWriter& w) { w.value(v); }), json(v).dump());
  }
  const uint64_t big = std::numeric_limits<uint64_t>::max();
  EXPECT_EQ(written(-1, [&](JsonWriter& w) { w.value(big); }), json(big).dump());
  EXPECT_EQ(written(-1, [&](JsonWriter& w) { w.value(size_t{7}); }), "7");
  EXPECT_EQ(written(-1, [&](JsonWriter& w) { w.value(int32_t{-7}); }), "-7");
}

TEST(JsonWriter, DoublesAsDumpWritesThem) {
  for (double v : {0.0,
                   -0.0,
                   1.0,
                   -1.0,
                   0.1,
                   0.25,
                   1.0 / 3,
                   2.0 / 3,
                   1e-4,
                   1e-5,
                   1.5e-7,
                   1e15,
                   1e16,
                   1e17,
                   123456789012345678.0,
                   1e21,
                   1e300,
                   1.7976931348623157e308,
                   std::numeric_limits<double>::denorm_min(),
                   std::numeric_limits<double>::min(),
                   9007199254740993.0,
                   0.30000000000000004,
                   100.0,
                   12345.678}) {
    EXPECT_EQ(doubleText(v), json(v).dump()) << v;
  }
  for (double v : {std::nan(""), std::numeric_limits<double>::infinity(),
                   -std::numeric_limits<double>::infinity()}) {
    EXPECT_EQ(doubleText(v), "null");
    EXPECT_EQ(json(v).dump(), "null");
  }
  std::mt19937_64 rng(29);
  for (int i = 0; i < 100'000; ++i) {
    uint64_t bits = rng();
    double v;
    std::memcpy(&v, &bits, sizeof v);
    if (i % 2) v = std::ldexp(static_cast<double>(rng() % 1'000'000'000), -(int(rng() % 40)));
    ASSERT_EQ(doubleText(v), json(v).dump()) << bits;
  }
}

TEST(JsonWriter, StringsEscapedAsDumpEscapesThem) {
  std::string all;
  for (int c = 1; c < 0x80; ++c) all.push_back(static_cast<char>(c));
  all += std::string("\0 nul", 5);
  for (const std::string& s :
       {all, std::string("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 \xf4\x8f\xbf\xbf"),
        std::string(""), std::string("\"quoted\" \\back\\ /slash/")}) {
    EXPECT_EQ(written(-1, [&](JsonWriter& w) { w.value(s); }), json(s).dump());
    EXPECT_EQ(written(2,
                      [&](JsonWriter& w) {
                        w.beginObject();
                        w.field(s, s);
                        w.endObject();
                      }),
              json({{s, s}}).dump(2));
  }
}

TEST(JsonWriter, TextThatIsNotUtf8IsRefusedAsDumpRefusesIt) {
  for (const std::string& s :
       {std::string("a\xff"), std::string("\x80"), std::string("\xc0\xaf"), std::string("\xc3"),
        std::string("\xe0\x80\x80"), std::string("\xed\xa0\x80"), std::string("\xf4\x90\x80\x80"),
        std::string("\xf5\x80\x80\x80"), std::string("\xe2\x82"), std::string("\xe2\x41\x41")}) {
    EXPECT_THROW(json(s).dump(), json::type_error);
    EXPECT_THROW(written(-1, [&](JsonWriter& w) { w.value(s); }), std::runtime_error);
  }
}

TEST(JsonWriter, OptionalsAndArraysAreNullOrTheirValues) {
  EXPECT_EQ(written(-1,
                    [](JsonWriter& w) {
                      w.beginArray();
                      w.value(std::optional<int64_t>());
                      w.value(std::optional<int64_t>(5));
                      w.value(std::array<int64_t, 2>{1, 2});
                      w.value(std::vector<std::string>{"a", "b"});
                      w.endArray();
                    }),
            R"([null,5,[1,2],["a","b"]])");
}

}  // namespace
}  // namespace bubblescope::traces
