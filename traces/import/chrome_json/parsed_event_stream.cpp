#include "traces/import/chrome_json/parsed_event_stream.h"

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <optional>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#include "traces/import/chrome_json/trace_event_stream.h"

namespace bubblescope::traces::import {
namespace {

// A batch goes over at whichever comes first: enough events that the handover (a lock) costs
// nothing beside their parse, few enough bytes that the batches in flight stay a few MB.
constexpr size_t kBatchEvents = 2048;
constexpr size_t kBatchBytes = size_t{512} << 10;
// Filled batches not yet taken: how far the parse may run ahead of the sink.
constexpr size_t kBatchesAhead = 2;

// Where a text sits in its batch's bytes, which move while the batch fills. Under 4 GiB: a
// batch holds at most kBatchBytes and one more event or top-level value (64 MiB at most).
struct Span {
  uint32_t offset = 0, size = 0;
};

struct Item {
  enum class Kind : uint8_t { Event, TopLevel, Malformed };
  Kind kind = Kind::Event;
  TraceEvent event;  // without its texts, which are in the spans until the batch is delivered
  Span catName, name, pidText, tidText, args;
  Span json;  // a metadata event's own text, or a top-level value
  Span key;   // a top-level key
};

// Parsed events with copies of their texts: the parser's strings and the scanner's window are
// both reused by the next event.
struct Batch {
  std::vector<char> bytes;
  std::vector<Item> items;

  Span keep(std::string_view s, bool padded) {
    const Span span{static_cast<uint32_t>(bytes.size()), static_cast<uint32_t>(s.size())};
    if (s.empty()) return {};
    bytes.insert(bytes.end(), s.begin(), s.end());
    if (padded) bytes.insert(bytes.end(), kJsonPadding, ' ');
    return span;
  }
  std::string_view text(Span s) const {
    return s.size == 0 ? std::string_view() : std::string_view(bytes.data() + s.offset, s.size);
  }
  bool full() const { return items.size() >= kBatchEvents || bytes.size() >= kBatchBytes; }
  void clear() {
    bytes.clear();
    items.clear();
  }
};

// Hands a batch's items to the sink in order, their texts pointing into the batch's bytes.
void deliver(Batch& b, ParsedEventSink& sink) {
  for (Item& it : b.items) {
    switch (it.kind) {
      case Item::Kind::Malformed:
        sink.malformedEvent();
        break;
      case Item::Kind::TopLevel:
        sink.topLevel(b.text(it.key), b.text(it.json), it.json.size + kJsonPadding);
        break;
      case Item::Kind::Event: {
        TraceEvent& e = it.event;
        e.catName = b.text(it.catName);
        e.name = b.text(it.name);
        e.pidText = b.text(it.pidText);
        e.tidText = b.text(it.tidText);
        e.args = b.text(it.args);
        e.argsCapacity = e.args.empty() ? 0 : it.args.size + kJsonPadding;
        const std::string_view json = b.text(it.json);
        sink.event(e, json, json.empty() ? 0 : json.size() + kJsonPadding);
        break;
      }
    }
  }
}

// The stream's sink on the parsing side: parses each event as the scanner hands it out and files
// it in the batch being filled; `handOver` takes each full batch and leaves an empty one.
class BatchingSink : public TraceEventSink {
 public:
  BatchingSink(std::function<void(Batch&)> handOver, std::function<bool()> stopped)
      : handOver_(std::move(handOver)), stopped_(std::move(stopped)) {}

  void topLevel(std::string_view key, std::string_view json, size_t) override {
    Item it;
    it.kind = Item::Kind::TopLevel;
    it.key = batch_.keep(key, false);
    it.json = batch_.keep(json, true);
    add(std::move(it));
  }
  void eventsBegin(bool) override {}
  void event(std::string_view json, size_t capacity) override {
    Item it;
    TraceEvent& e = it.event;
    if (!parser_.parse(json, capacity, e)) {
      it.kind = Item::Kind::Malformed;
    } else {
      it.catName = batch_.keep(std::exchange(e.catName, {}), false);
      it.name = batch_.keep(std::exchange(e.name, {}), false);
      it.pidText = batch_.keep(std::exchange(e.pidText, {}), false);
      it.tidText = batch_.keep(std::exchange(e.tidText, {}), false);
      it.args = batch_.keep(std::exchange(e.args, {}), true);
      if (e.ph == 'M') it.json = batch_.keep(json, true);
    }
    add(std::move(it));
  }
  bool satisfied() const override { return stopped_(); }

  // The batch still filling, handed over at the end of the stream.
  void flush() {
    if (!batch_.items.empty()) handOver_(batch_);
  }

 private:
  void add(Item&& it) {
    batch_.items.push_back(std::move(it));
    if (batch_.full()) handOver_(batch_);
  }

  std::function<void(Batch&)> handOver_;
  std::function<bool()> stopped_;
  TraceEventParser parser_;
  Batch batch_;
};

// The batches between the parsing thread and the sink's: filled ones in file order, emptied ones
// back for reuse, and how the parse ended.
class Handoff {
 public:
  // Parsing side: queues `b` (waiting while kBatchesAhead are queued) and leaves an empty batch
  // in its place; drops it once the sink's side has stopped.
  void put(Batch& b) {
    std::unique_lock<std::mutex> lock(mutex_);
    roomFreed_.wait(lock, [&] { return stopped_.load() || filled_.size() < kBatchesAhead; });
    if (stopped_.load()) {
      b.clear();
      return;
    }
    Batch next;
    if (!emptied_.empty()) {
      next = std::move(emptied_.back());
      emptied_.pop_back();
    }
    filled_.push_back(std::move(b));
    b = std::move(next);
    lock.unlock();
    filledOne_.notify_one();
  }
  // Parsing side, last: the parse is over, with `error` if it failed. Allocates nothing, so it
  // also reports a failure to allocate.
  void end(std::exception_ptr error) noexcept {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      ended_ = true;
      error_ = std::move(error);
    }
    filledOne_.notify_one();
  }

  // Sink side: the next filled batch, or none once the parse is over and every batch taken.
  std::optional<Batch> take() {
    std::unique_lock<std::mutex> lock(mutex_);
    filledOne_.wait(lock, [&] { return ended_ || !filled_.empty(); });
    if (filled_.empty()) return std::nullopt;
    std::optional<Batch> b(std::move(filled_.front()));
    filled_.pop_front();
    lock.unlock();
    roomFreed_.notify_one();
    return b;
  }
  void giveBack(Batch&& b) {
    b.clear();
    std::lock_guard<std::mutex> lock(mutex_);
    emptied_.push_back(std::move(b));
  }
  // Sink side: it failed, so the parse stops at its next event.
  void stop() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopped_ = true;
    }
    roomFreed_.notify_all();
  }
  bool stopped() const { return stopped_.load(std::memory_order_relaxed); }
  std::exception_ptr error() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return error_;
  }

 private:
  mutable std::mutex mutex_;
  std::condition_variable filledOne_, roomFreed_;
  std::deque<Batch> filled_;
  std::vector<Batch> emptied_;
  bool ended_ = false;
  std::exception_ptr error_;
  std::atomic<bool> stopped_{false};  // read after every event, so without the lock
};

// One thread: each event parsed as the scanner hands it out and heard at once, its texts in the
// parser and the scanner's window.
class ParsingSink : public TraceEventSink {
 public:
  explicit ParsingSink(ParsedEventSink& sink) : sink_(sink) {}
  void topLevel(std::string_view key, std::string_view json, size_t capacity) override {
    sink_.topLevel(key, json, capacity);
  }
  void eventsBegin(bool) override {}
  void event(std::string_view json, size_t capacity) override {
    TraceEvent e;
    if (!parser_.parse(json, capacity, e)) return sink_.malformedEvent();
    const bool metadata = e.ph == 'M';
    sink_.event(e, metadata ? json : std::string_view(), metadata ? capacity : 0);
  }

 private:
  ParsedEventSink& sink_;
  TraceEventParser parser_;
};

void streamInLine(ByteSource& source, ParsedEventSink& sink) {
  ParsingSink parse(sink);
  streamTraceEvents(source, parse);
}

}  // namespace

void streamParsedEvents(ByteSource& source, ParsedEventSink& sink, bool sideThread) {
  if (!sideThread) return streamInLine(source, sink);
  Handoff handoff;
  std::thread parsing;
  try {
    parsing = std::thread([&] {
      std::exception_ptr error;
      try {
        BatchingSink parse([&](Batch& b) { handoff.put(b); }, [&] { return handoff.stopped(); });
        streamTraceEvents(source, parse);
        parse.flush();
      } catch (...) {
        error = std::current_exception();
      }
      handoff.end(std::move(error));
    });
  } catch (const std::system_error&) {
    return streamInLine(source, sink);  // no thread to be had (a process at its limit)
  }
  std::exception_ptr failure;
  try {
    while (std::optional<Batch> b = handoff.take()) {
      deliver(*b, sink);
      handoff.giveBack(std::move(*b));
    }
    failure = handoff.error();
  } catch (...) {
    failure = std::current_exception();
    handoff.stop();
  }
  parsing.join();
  if (failure) std::rethrow_exception(failure);
}

}  // namespace bubblescope::traces::import
