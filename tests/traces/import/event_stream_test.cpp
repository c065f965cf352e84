// The streaming scanner hands out each trace event whole, wherever the read chunks split it, and
// says clearly when the JSON is not a trace or ends early.
#include <gtest/gtest.h>

#include <simdjson.h>
#include <map>

#include "traces/errors.h"
#include "traces/import/chrome_json/trace_event_stream.h"

namespace bubblescope::traces::import {
namespace {

struct Collect : TraceEventSink {
  std::map<std::string, std::string> top;
  std::vector<std::string> events;
  bool bare = false;
  void topLevel(std::string_view key, std::string_view json, size_t capacity) override {
    EXPECT_GE(capacity, json.size() + simdjson::SIMDJSON_PADDING);
    top[std::string(key)] = json;
  }
  void eventsBegin(bool bareArray) override { bare = bareArray; }
  void event(std::string_view json, size_t capacity) override {
    EXPECT_GE(capacity, json.size() + simdjson::SIMDJSON_PADDING);
    events.emplace_back(json);
  }
};

Collect stream(const std::string& text) {
  ByteSource source(text, "t.json");
  Collect c;
  streamTraceEvents(source, c);
  return c;
}

std::string errorOf(const std::string& text) {
  try {
    stream(text);
  } catch (const TraceError& e) {
    return e.what();
  }
  return "";
}

TEST(TraceEventStream, EventsAndTopLevelKeysComeOutWhole) {
  const Collect c = stream(
      "{\"schemaVersion\": 1, \"deviceProperties\": [{\"id\": 0}],\n \"traceEvents\": [\n"
      "  {\"ph\": \"X\", \"name\": \"a \\\"quoted\\\" {brace}\"},\n"
      "  {\"ph\": \"i\", \"name\": \"]\"}\n ],\n \"baseTimeNanoseconds\": 1711964646000000000}");
  ASSERT_EQ(c.events.size(), 2u);
  EXPECT_EQ(c.events[0], "{\"ph\": \"X\", \"name\": \"a \\\"quoted\\\" {brace}\"}");
  EXPECT_EQ(c.events[1], "{\"ph\": \"i\", \"name\": \"]\"}");
  EXPECT_EQ(c.top.at("schemaVersion"), "1");
  EXPECT_EQ(c.top.at("deviceProperties"), "[{\"id\": 0}]");
  EXPECT_EQ(c.top.at("baseTimeNanoseconds"), "1711964646000000000");
  EXPECT_FALSE(c.bare);
}

TEST(TraceEventStream, ABareArrayIsATraceToo) {
  const Collect c = stream("[{\"ph\": \"B\"}, {\"ph\": \"E\"},]");
  EXPECT_TRUE(c.bare);
  EXPECT_EQ(c.events.size(), 2u);
}

TEST(TraceEventStream, EventsSplitAcrossReadChunksComeOutWhole) {
  // More than the 4 MiB window: events straddle refills.
  std::string text = "{\"traceEvents\": [";
  const std::string name(1000, 'k');
  const int n = 9000;
  for (int i = 0; i < n; ++i) {
    text += (i ? "," : "") + std::string("{\"ph\": \"X\", \"name\": \"") + name +
            "\", \"ts\": " + std::to_string(i) + "}";
  }
  text += "]}";
  const Collect c = stream(text);
  ASSERT_EQ(c.events.size(), static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    ASSERT_TRUE(c.events[i].ends_with("\"ts\": " + std::to_string(i) + "}")) << i;
  }
}

TEST(TraceEventStream, JsonThatIsNotATraceIsRefusedInOneSentence) {
  EXPECT_EQ(errorOf("{\"name\": \"config\", \"layers\": 24}"),
            "t.json: JSON, but not a trace: it has no \"traceEvents\" array (is it a Kineto / "
            "PyTorch profiler or Chrome trace?)");
  EXPECT_EQ(errorOf("hello"),
            "t.json: not JSON (a Chrome/Kineto trace starts with '{' or '['), so "
            "not a trace");
  EXPECT_EQ(errorOf(""), "t.json: empty file, not a trace");
  EXPECT_EQ(errorOf("{\"traceEvents\": 3}"), "t.json: \"traceEvents\" is not an array");
}

TEST(TraceEventStream, ATruncatedFileSaysSo) {
  const std::string err = errorOf("{\"traceEvents\": [{\"ph\": \"X\"}, {\"ph\": \"X\", \"na");
  EXPECT_NE(err.find("t.json: the JSON ends in the middle"), std::string::npos) << err;
  EXPECT_NE(err.find("truncated"), std::string::npos) << err;
}

// The metadata look-ahead stops reading once it knows enough: what follows is not read, so not
// even a truncation there is seen.
TEST(TraceEventStream, ASatisfiedSinkStopsTheReadingThere) {
  struct UntilSecond : Collect {
    bool satisfied() const override { return events.size() == 2; }
  } c;
  ByteSource source(std::string_view("{\"traceEvents\": [{\"ph\": \"X\"}, {\"ph\": \"M\"}, "
                                     "{\"ph\": \"X\"}, {\"ph\": \"X\", \"na"),
                    "t.json");
  const EventStreamStats stats = streamTraceEvents(source, c);
  EXPECT_TRUE(stats.stopped);
  EXPECT_EQ(stats.events, 2u);
  EXPECT_EQ(c.events.size(), 2u);
  EXPECT_EQ(c.events[1], "{\"ph\": \"M\"}");
}

// Found by kineto_json_fuzz (issue 19): a lone 0xEF was taken for a whole byte order mark and the
// scanner stepped past the end of its window (ASan: negative-size-param in memmove).
TEST(TraceEventStream, ByteOrderMarkCutShortIsNotJsonNotACrash) {
  EXPECT_EQ(errorOf("\xEF="),
            "t.json: not JSON (a Chrome/Kineto trace starts with '{' or '['), so not a trace");
  EXPECT_EQ(errorOf("\xEF\xBB"),
            "t.json: not JSON (a Chrome/Kineto trace starts with '{' or '['), so not a trace");
  EXPECT_EQ(stream("\xEF\xBB\xBF[{\"ph\": \"X\"}]").events.size(), 1u);
}

}  // namespace
}  // namespace bubblescope::traces::import
