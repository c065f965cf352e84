#include "traces/import/chrome_json/ndtimeline/ndtimeline_builder.h"

#include <malloc.h>

#include <algorithm>
#include <array>
#include <exception>
#include <numeric>
#include <optional>
#include <set>
#include <tuple>

#include "traces/errors.h"
#include "traces/format/field_range.h"
#include "traces/import/chrome_json/ndtimeline/ndtimeline_names.h"
#include "traces/import/rank_builder.h"
#include "traces/parallel/parallel_for.h"

namespace bubblescope::traces::import::ndtimeline {
namespace {

using Event = NdTimelineBuilder::Event;

std::string withThousands(uint64_t n) {
  std::string s = std::to_string(n);
  for (int i = static_cast<int>(s.size()) - 3; i > 0; i -= 3) s.insert(static_cast<size_t>(i), ",");
  return s;
}

struct Place {
  int dp = -1, pp = -1, tp = -1;
};

// A grid coordinate's largest value: the size it implies, one more, must fit an int.
constexpr int64_t kMaxCoordinate = INT32_MAX - 1;
// tid = rank * 5 + category, and the rank must fit an int (2^32 + 1 was read as rank 1).
constexpr int64_t kMaxTid = (int64_t{INT32_MAX} + 1) * kCategories - 1;

struct Sizes {
  int dp = 0, pp = 0, tp = 0, chunks = 1;
};

// A transfer's peer stage: virtual stages (chunk * p + stage) are looped over the ranks, and
// activations flow to the next virtual stage, gradients to the previous one.
int peerStage(const Sizes& n, int stage, int chunk, bool towardsLater) {
  const int64_t vs = int64_t{chunk} * n.pp + stage + (towardsLater ? 1 : -1);
  if (vs < 0 || vs >= int64_t{n.pp} * n.chunks) return -1;
  return static_cast<int>(vs % n.pp);
}

std::string opLabel(const char* kind, int mb, int chunk) {
  std::string s = std::string(kind) + " mb=" + std::to_string(mb);
  if (chunk > 0) s += " ch=" + std::to_string(chunk);
  return s;
}

std::string transferLabel(bool send, bool forward, int mb, int chunk, int peer) {
  std::string s = send ? "SEND " : "RECV ";
  s += opLabel(forward ? "F" : "B", mb, chunk);
  if (peer >= 0) s += (send ? " to=" : " from=") + std::to_string(peer);
  return s;
}

// How many events a rank lets go of before the freed memory goes back to the system: a trim
// walks the heap, and 20,000 small ranks trimmed once each took a fifth of their import.
constexpr size_t kTrimEvery = size_t{1} << 20;  // 32 MB of events

// A rank's events by start (the longer first where two start together), as positions into its
// buffer: 4 bytes an event where pointers took 8 (with the sort's buffer, 17 MB of PP2's import
// at 10^5 steps, issue 28).
class EventOrder {
 public:
  explicit EventOrder(std::deque<Event>& buffer) : buffer_(buffer), size_(buffer.size()) {
    auto before = [](const Event& x, const Event& y) {
      return x.start != y.start ? x.start < y.start : x.end > y.end;
    };
    // A timeline written in time order (a rank's events one after another) needs none.
    if (std::is_sorted(buffer.begin(), buffer.end(), before)) return;
    order_.resize(buffer.size());
    std::iota(order_.begin(), order_.end(), 0u);
    std::stable_sort(order_.begin(), order_.end(),
                     [&](uint32_t a, uint32_t b) { return before(buffer[a], buffer[b]); });
  }
  size_t size() const { return size_; }
  const Event& operator[](size_t i) const {
    return order_.empty() ? buffer_[i - dropped_] : buffer_[order_[i]];
  }
  // In the buffer's own order, the events before `i` are done with: their blocks go, and every
  // so often the freed memory goes back to the system, so that a rank's events and its ranges
  // are not both held whole (at 10^6 steps of PP2 they were the import's peak, issue 28).
  void doneBefore(size_t i) {
    if (!order_.empty()) return;
    for (; dropped_ < i; ++dropped_) buffer_.pop_front();
    if (dropped_ - trimmedAt_ >= kTrimEvery) {
      malloc_trim(0);
      trimmedAt_ = dropped_;
    }
  }

 private:
  std::deque<Event>& buffer_;
  size_t size_ = 0, dropped_ = 0, trimmedAt_ = 0;
  std::vector<uint32_t> order_;  // empty: the buffer's own order
};

// One rank's events (sorted by start) as the bubblescope convention names them; several labels
// for a fused send+receive. Pure: the caller adds them to the trace.
class RankLabeler {
 public:
  RankLabeler(const EventOrder& events, const std::vector<Meaning>& meanings,
              const std::vector<std::string>& names, const Place& place, const Sizes& sizes)
      : events_(events), meanings_(meanings), names_(names), place_(place), sizes_(sizes) {
    std::optional<std::pair<int, int>> lastF, lastB;
    for (size_t i = 0; i < events.size(); ++i) {
      const Event& e = events[i];
      const Meaning m = meanings[e.name];
      // What each interleaved batch sends, from the compute before it: labelling lets go of the
      // events behind it (EventOrder::doneBefore), so it is read here, while all are held.
      if (isBatch(m)) batchSends_.push_back({i, lastF, lastB});
      if (e.mb >= 0 && m == Meaning::Forward) lastF = std::pair(e.mb, e.chunk);
      if (e.mb >= 0 && m == Meaning::Backward) lastB = std::pair(e.mb, e.chunk);
      splitBackward_ = splitBackward_ || m == Meaning::WeightGrad;
      if ((m == Meaning::Forward || m == Meaning::Backward || m == Meaning::WeightGrad) &&
          e.mb < 0) {
        counted_ = true;
      }
    }
  }

  // Whether the compute events lack microbatch ids (they then keep Megatron's names, which the
  // analyzer's Megatron rule set counts in order).
  bool counted() const { return counted_; }

  // How many labels label(i) adds: two for a fused send and receive, else one.
  size_t labelCount(size_t i) const {
    const Event& e = events_[i];
    const Meaning m = meanings_[e.name];
    const bool fused = m == Meaning::SendFRecvB || m == Meaning::SendBRecvF;
    if (!counted_ && isBatch(m)) {
      size_t parts = 0;
      batchParts(i, m, [&](const std::string&) { ++parts; });
      return std::max<size_t>(parts, 1);
    }
    return !counted_ && fused && e.mb >= 0 ? 2 : 1;
  }

  template <class Add>
  void label(size_t i, Add add) const {
    const Event& e = events_[i];
    const Meaning m = meanings_[e.name];
    const std::string& name = names_[e.name];
    if (counted_) {
      add(name);
      return;
    }
    const int stage = place_.pp;
    switch (m) {
      case Meaning::Forward:
        return add(opLabel("F", e.mb, e.chunk));
      case Meaning::Backward:
        return add(opLabel(splitBackward_ ? "B" : "BW", e.mb, e.chunk));
      case Meaning::WeightGrad:
        return add(opLabel("W", e.mb, e.chunk));
      case Meaning::SendF:
      case Meaning::RecvF:
      case Meaning::SendB:
      case Meaning::RecvB: {
        if (e.mb < 0) return add(name);
        const bool send = m == Meaning::SendF || m == Meaning::SendB;
        const bool forward = m == Meaning::SendF || m == Meaning::RecvF;
        return add(transferLabel(send, forward, e.mb, e.chunk,
                                 peerStage(sizes_, stage, e.chunk, forward == send)));
      }
      case Meaning::SendFRecvB:
      case Meaning::SendBRecvF: {
        if (e.mb < 0) return add(name);
        // args name the microbatch sent; the one received is the next of its pass this rank
        // computes (Megatron receives exactly what its next op needs).
        const bool sendsF = m == Meaning::SendFRecvB;
        add(transferLabel(true, sendsF, e.mb, e.chunk, peerStage(sizes_, stage, e.chunk, sendsF)));
        const auto [mb, chunk] = nextOf(i, sendsF ? Meaning::Backward : Meaning::Forward)
                                     .value_or(std::pair(e.mb, e.chunk));
        return add(
            transferLabel(false, !sendsF, mb, chunk, peerStage(sizes_, stage, chunk, sendsF)));
      }
      case Meaning::SendFRecvF:
      case Meaning::SendBRecvB:
      case Meaning::SendFBRecvFB: {
        size_t parts = 0;
        batchParts(i, m, [&](const std::string& label) {
          ++parts;
          add(label);
        });
        if (parts == 0) add(name);
        return;
      }
      case Meaning::DpCollective:
        return add("grad_sync " + name);
      case Meaning::Optimizer:
        return add(name == "optimizer" ? name : "optimizer " + name);
      case Meaning::TpCollective:
      case Meaning::HostWork:
      case Meaning::Unknown:
        return add(name);
    }
  }

 private:
  static bool isBatch(Meaning m) {
    return m == Meaning::SendFRecvF || m == Meaning::SendBRecvB || m == Meaning::SendFBRecvFB;
  }

  // An interleaved batch's transfers, read off the compute around it: Megatron-LM sends the
  // output of the op of each pass it just ran (output_tensor, input_tensor_grad) and receives the
  // input of the next op of each pass (recv_prev, recv_next). The args' one microbatch cannot
  // name a batch of four. A part with no peer (the first or last virtual stage) is not there.
  template <class Add>
  void batchParts(size_t i, Meaning m, Add add) const {
    const bool forward = m == Meaning::SendFRecvF || m == Meaning::SendFBRecvFB;
    const bool backward = m == Meaning::SendBRecvB || m == Meaning::SendFBRecvFB;
    auto part = [&](bool send, bool activations, std::optional<std::pair<int, int>> op) {
      if (!op) return;
      const auto [mb, chunk] = *op;
      const int peer = peerStage(sizes_, place_.pp, chunk, activations == send);
      if (peer >= 0) add(transferLabel(send, activations, mb, chunk, peer));
    };
    const auto sends =
        std::lower_bound(batchSends_.begin(), batchSends_.end(), i,
                         [](const BatchSends& b, size_t at) { return b.event < at; });
    if (sends != batchSends_.end() && sends->event == i) {
      if (forward) part(true, true, sends->forward);
      if (backward) part(true, false, sends->backward);
    }
    if (forward) part(false, true, nextOf(i, Meaning::Forward));
    if (backward) part(false, false, nextOf(i, Meaning::Backward));
  }

  // The (microbatch, chunk) of the next compute of `kind` after event i.
  std::optional<std::pair<int, int>> nextOf(size_t i, Meaning kind) const {
    for (size_t j = i + 1; j < events_.size(); ++j) {
      const Event& n = events_[j];
      if (meanings_[n.name] == kind && n.mb >= 0) return std::pair(n.mb, n.chunk);
    }
    return std::nullopt;
  }

  // An interleaved batch's event, and the last forward and backward before it.
  struct BatchSends {
    size_t event = 0;
    std::optional<std::pair<int, int>> forward, backward;
  };
  std::vector<BatchSends> batchSends_;  // by event

  const EventOrder& events_;
  const std::vector<Meaning>& meanings_;
  const std::vector<std::string>& names_;
  Place place_;
  Sizes sizes_;
  bool splitBackward_ = false, counted_ = false;
};

// What a rank is built from that every rank shares.
struct RankInputs {
  const std::filesystem::path& file;
  const std::vector<std::string>& names;
  const std::vector<Meaning>& meanings;
  const ThreadNames& threadNames;
  const Sizes& sizes;
  int world;
};

// What building a rank counted, for the import summary.
struct RankCounts {
  bool counted = false;  // its microbatch ids counted by order
  // By category: an array, where a map's nodes were 2.9 MB of 20,000 ranks' import.
  std::array<uint64_t, kCategories> recognised{};
  std::map<std::string, uint64_t> unknown;
};

// One rank's trace from its buffered events, which it frees. Reads only `in` and the rank's own
// buffer: ranks are built side by side.
RankTrace buildRank(const RankInputs& in, int64_t rank, int32_t pid,
                    std::optional<std::deque<Event>>& buffered, const Place& place,
                    RankCounts& counts) {
  if (buffered->size() > UINT32_MAX) {
    throw TraceError(in.file, "rank " + std::to_string(rank) + " has more than " +
                                  std::to_string(UINT32_MAX) + " events");
  }
  const size_t eventCount = buffered->size();
  std::optional<EventOrder> events(std::in_place, *buffered);
  RankBuilder b;
  RankMeta& meta = b.meta();
  meta.source = "ndtimeline";
  meta.agentVersion.clear();
  meta.rank = static_cast<int>(rank);
  meta.worldSize = in.world;
  meta.pid = pid;
  meta.extra["BUBBLESCOPE_DP_RANK"] = std::to_string(place.dp);
  meta.extra["BUBBLESCOPE_PP_RANK"] = std::to_string(place.pp);
  meta.extra["BUBBLESCOPE_TP_RANK"] = std::to_string(place.tp);
  meta.extra["BUBBLESCOPE_DP_SIZE"] = std::to_string(in.sizes.dp);
  meta.extra["BUBBLESCOPE_PP_SIZE"] = std::to_string(in.sizes.pp);
  meta.extra["BUBBLESCOPE_TP_SIZE"] = std::to_string(in.sizes.tp);
  for (int c = 0; c < kCategories; ++c) {
    const int64_t tid = rank * kCategories + c;
    b.nameThread(static_cast<uint64_t>(tid),
                 in.threadNames.find(meta.pid, tid).value_or(categoryName(Category(c))));
  }
  const RankLabeler labeler(*events, in.meanings, in.names, place, in.sizes);
  counts.counted = labeler.counted();
  // Each step's span, from the events that name it. They come by start, so step by step: a run
  // of one step's events extends its last entry, and the entries are merged by step at the end
  // (a tree of up to 10^6 steps was 11 MB of PP2's import at 10^5 steps, issue 28).
  struct StepSpan {
    int32_t step;
    Interval span;
  };
  std::vector<StepSpan> steps;
  size_t labels = 0;
  for (size_t i = 0; i < events->size(); ++i) {
    const Event& e = (*events)[i];
    labels += labeler.labelCount(i);
    if (e.step == INT32_MIN) continue;
    if (steps.empty() || steps.back().step != e.step) steps.push_back({e.step, {e.start, e.end}});
    Interval& span = steps.back().span;
    span.start = std::min(span.start, e.start);
    span.end = std::max(span.end, e.end);
  }
  std::stable_sort(steps.begin(), steps.end(),
                   [](const StepSpan& x, const StepSpan& y) { return x.step < y.step; });
  size_t merged = 0;
  for (const StepSpan& x : steps) {
    if (merged > 0 && steps[merged - 1].step == x.step) {
      Interval& span = steps[merged - 1].span;
      span.start = std::min(span.start, x.span.start);
      span.end = std::max(span.end, x.span.end);
    } else {
      steps[merged++] = x;
    }
  }
  steps.resize(merged);
  // Sized once: grown by doubling, the ranges' columns held up to twice their size, and both
  // copies while they grew.
  b.reserveRanges(labels + steps.size());
  // Each step's range goes in after the events that start no later than it, where sorting the
  // ranges by start would put it: the ranges come out sorted, and their sort (a copy of each
  // column, 168 MB a rank at 10^6 steps) is not needed. The merged steps re-sorted by start (a
  // stable sort: step order among equal ones).
  std::stable_sort(steps.begin(), steps.end(), [](const StepSpan& x, const StepSpan& y) {
    return x.span.start < y.span.start;
  });
  const ThreadIndex main = b.thread(static_cast<uint64_t>(rank * kCategories));
  size_t nextStep = 0;
  auto addStepsBefore = [&](std::optional<TimeNs> t) {  // none: every step left
    for (; nextStep < steps.size() && (!t || steps[nextStep].span.start < *t); ++nextStep) {
      const StepSpan& x = steps[nextStep];
      b.addRange(x.span.start, x.span.end, main, 0, b.intern("step " + std::to_string(x.step)));
    }
  };
  for (size_t i = 0; i < events->size(); ++i) {
    const Event& e = (*events)[i];
    addStepsBefore(e.start);
    const ThreadIndex thread = b.thread(static_cast<uint64_t>(rank * kCategories + e.category));
    labeler.label(i, [&](const std::string& label) {
      b.addRange(e.start, e.end, thread, 0, b.intern(label));
    });
    const Meaning m = in.meanings[e.name];
    if (m == Meaning::Unknown) {
      ++counts.unknown[in.names[e.name]];
    } else {
      ++counts.recognised[static_cast<size_t>(categoryOf(m))];
    }
    events->doneBefore(i + 1);
  }
  addStepsBefore(std::nullopt);
  events.reset();
  buffered.reset();  // the rank is built: its buffer goes
  if (eventCount >= kTrimEvery) malloc_trim(0);
  RankTrace done = b.finish(0);
  done.file = in.file;
  done.meta.startNs = traceSpan(done).start;
  return done;
}

}  // namespace

NdTimelineBuilder::NdTimelineBuilder(const std::filesystem::path& file) : file_(file) {}

uint32_t NdTimelineBuilder::nameId(std::string_view name) {
  if (auto it = nameIds_.find(name); it != nameIds_.end()) return it->second;
  const auto id = static_cast<uint32_t>(names_.size());
  nameIds_.emplace(std::string(name), id);
  names_.emplace_back(name);
  return id;
}

void NdTimelineBuilder::event(const TraceEvent& e, TraceEventParser& parser) {
  if (e.ph == 'M') {
    TraceEventArgs a;
    if (!parser.parseArgs(e, a) || a.name.empty() || e.pidIsText) return;
    if (e.name == "thread_name" && !e.tidIsText && !threadNames_.add(e.pid, e.tid, a.name)) {
      throw TraceError(file_, "more than 4 GiB of thread_name metadata");
    }
    if (e.name == "process_name") processNames_[e.pid] = a.name;
    return;  // thread_sort_index and the like say nothing we use
  }
  if (e.ph != 'X') {
    ++skipped_[std::string("'") + e.ph + "' events (NDTimeline writes complete 'X' events)"];
    return;
  }
  if (!e.ts || e.name.empty()) {
    ++skipped_["events without a name or time"];
    return;
  }
  if (e.pidIsText || e.tidIsText || e.pid < 0 || e.pid > INT32_MAX || e.tid < 0) {
    ++skipped_["events whose pid or tid is not a rank number"];
    return;
  }
  const int64_t rank =
      fieldInRange<int64_t>(file_, "tid (rank * 5 + category)", e.tid, 0, kMaxTid) / kCategories;
  TraceEventArgs a;
  if (!parser.parseArgs(e, a)) ++skipped_["events with malformed args (imported without them)"];
  Event ev;
  ev.start = *e.ts;
  ev.end = ev.start + std::max<TimeNs>(0, e.dur.value_or(0));
  ev.name = nameId(e.name);
  ev.category = static_cast<uint8_t>(e.tid % kCategories);
  // INT32_MIN is the event's "no step".
  if (a.mb) ev.mb = fieldInRange<int32_t>(file_, "args.mb_id", *a.mb, INT32_MIN + 1, INT32_MAX);
  // The exporter writes model_chunk -1 (and mb_id -1) for "none": chunk 0.
  if (a.chunk) {
    ev.chunk = std::max<int16_t>(
        0, fieldInRange<int16_t>(file_, "args.model_chunk", *a.chunk, -1, INT16_MAX));
  }
  if (a.step)
    ev.step = fieldInRange<int32_t>(file_, "args.step", *a.step, INT32_MIN + 1, INT32_MAX);
  auto [it, added] = ranks_.try_emplace(rank);
  RankBuffer& r = it->second;
  if (added) r.pid = static_cast<int32_t>(e.pid);
  if (r.pid != e.pid && conflict_.empty()) {
    conflict_ = "rank " + std::to_string(rank) + " (tid " + std::to_string(e.tid) +
                ") appears under two DP processes, pid " + std::to_string(r.pid) + " and " +
                std::to_string(e.pid);
  }
  r.events->push_back(ev);
}

ImportedFile NdTimelineBuilder::finish() {
  if (ranks_.empty()) throw TraceError(file_, "an NDTimeline timeline with no timed events");
  if (!conflict_.empty()) throw TraceError(file_, conflict_);
  threadNames_.seal();
  std::vector<Meaning> meanings;
  for (const std::string& n : names_) meanings.push_back(meaningOf(n));

  std::map<int64_t, Place> places;
  Sizes sizes;
  std::set<int> dps;
  bool dpFromPid = false;
  // A coordinate as an int, or the error naming the metadata that says it.
  auto coordinate = [&](int64_t v, const std::string& what, const std::string& says) {
    if (v <= kMaxCoordinate) return static_cast<int>(v);
    throw TraceError(file_, says + ": " + what + " " + std::to_string(v) +
                                " is out of range (0 to " + std::to_string(kMaxCoordinate) + ")");
  };
  std::map<std::tuple<int, int, int>, int64_t> rankAt;  // (dp, pp, tp) -> rank
  for (auto& [rank, buffer] : ranks_) {
    const int32_t pid = buffer.pid;
    Place pl;
    for (int c = 0; c < kCategories && pl.pp < 0; ++c) {
      const std::optional<std::string_view> name = threadNames_.find(pid, rank * kCategories + c);
      if (!name) continue;
      if (auto t = parseThreadName(*name)) {
        const std::string says = "thread_name '" + std::string(*name) + "' (pid " +
                                 std::to_string(pid) + ", tid " +
                                 std::to_string(rank * kCategories + c) + ")";
        pl.pp = coordinate(t->pp, "PP rank", says);
        pl.tp = coordinate(t->tp, "TP rank", says);
      }
    }
    if (pl.pp < 0) {
      throw TraceError(file_,
                       "rank " + std::to_string(rank) + " (pid " + std::to_string(pid) + ", tid " +
                           std::to_string(rank * kCategories + buffer.events->front().category) +
                           ") has no thread_name metadata of the form 'PP rank S, TP rank "
                           "T, <category>', so its stage is unknown");
    }
    auto proc = processNames_.find(pid);
    const std::optional<int64_t> dp =
        proc == processNames_.end() ? std::nullopt : parseProcessName(proc->second);
    dpFromPid = dpFromPid || !dp;
    pl.dp = coordinate(dp.value_or(pid), "DP rank",
                       dp ? "process_name '" + proc->second + "' (pid " + std::to_string(pid) + ")"
                          : "pid " + std::to_string(pid) +
                                " (the DP rank, for want of a 'DP rank "
                                "d' process_name)");
    // Two ranks in one place would be folded into one TP group without a word.
    auto [at, fresh] = rankAt.try_emplace({pl.dp, pl.pp, pl.tp}, rank);
    if (!fresh) {
      const int32_t otherPid = ranks_.at(at->second).pid;
      const std::string ranks = std::to_string(at->second) + " and " + std::to_string(rank);
      const std::string place = "PP rank " + std::to_string(pl.pp) + ", TP rank " +
                                std::to_string(pl.tp) + " of DP rank " + std::to_string(pl.dp);
      throw TraceError(file_, otherPid != pid
                                  ? "pids " + std::to_string(otherPid) + " and " +
                                        std::to_string(pid) + " both stand for DP rank " +
                                        std::to_string(pl.dp) + ", so ranks " + ranks +
                                        " would both be its " + place.substr(0, place.find(" of"))
                                  : "ranks " + ranks + " (pid " + std::to_string(pid) +
                                        ") both say they are " + place + " in their thread_name");
    }
    places[rank] = pl;
    dps.insert(pl.dp);
    sizes.pp = std::max(sizes.pp, pl.pp + 1);
    sizes.tp = std::max(sizes.tp, pl.tp + 1);
    sizes.dp = std::max(sizes.dp, pl.dp + 1);
    for (const Event& e : *buffer.events) sizes.chunks = std::max(sizes.chunks, e.chunk + 1);
  }

  ImportedFile out;
  out.file = file_;
  out.format = "ndtimeline";
  out.skipped = std::move(skipped_);
  std::map<Category, uint64_t> recognised;
  std::map<std::string, uint64_t> unknown;
  const int world = static_cast<int>(ranks_.size());
  // Sized once (a RankTrace is 2 KB: 20,000 ranks held twice would be 44 MB more), each built in
  // its place.
  out.ranks.resize(ranks_.size());
  // Each rank built apart, several at once (the sort and labelling of an op-level rank's events
  // were a third of the import), and each buffer freed as its rank is built; what the ranks
  // counted, and the first rank's error if any, taken in rank order.
  std::vector<std::pair<const int64_t, RankBuffer>*> order;
  for (auto& entry : ranks_) order.push_back(&entry);
  std::vector<RankCounts> counts(order.size());
  std::vector<std::exception_ptr> failed(order.size());
  const RankInputs in{file_, names_, meanings, threadNames_, sizes, world};
  parallelFor(order.size(), 0, [&](size_t i) {
    try {
      auto& [rank, buffer] = *order[i];
      out.ranks[i] = buildRank(in, rank, buffer.pid, buffer.events, places.at(rank), counts[i]);
    } catch (...) {
      failed[i] = std::current_exception();
    }
  });
  bool counted = false;
  for (size_t i = 0; i < order.size(); ++i) {
    if (failed[i]) std::rethrow_exception(failed[i]);
    counted = counted || counts[i].counted;
    for (int c = 0; c < kCategories; ++c) {
      if (const uint64_t n = counts[i].recognised[static_cast<size_t>(c)]; n > 0) {
        recognised[static_cast<Category>(c)] += n;
      }
    }
    for (const auto& [name, n] : counts[i].unknown) unknown[name] += n;
  }

  // What was read, for the import summary.
  uint64_t total = 0;
  std::string parts;
  for (const auto& [c, n] : recognised) {
    total += n;
    parts += std::string(parts.empty() ? "" : ", ") + categoryName(c) + " " + withThousands(n);
  }
  out.notes.push_back(
      "NDTimeline timeline: " + std::to_string(world) + " ranks (PP " + std::to_string(sizes.pp) +
      " x TP " + std::to_string(sizes.tp) + " x DP " + std::to_string(dps.size()) +
      (sizes.chunks > 1 ? ", " + std::to_string(sizes.chunks) + " model chunks" : std::string()) +
      "); " + withThousands(total) + " events recognised (" + parts + ")");
  if (!unknown.empty()) {
    uint64_t n = 0;
    std::string which;
    for (const auto& [name, count] : unknown) {
      n += count;
      if (which.size() < 200) {
        which += (which.empty() ? "" : ", ") + name + " (" + withThousands(count) + ")";
      }
    }
    out.notes.push_back(withThousands(n) +
                        " events of names NDTimeline's Megatron timers do not have, kept under "
                        "their own names: " +
                        which);
  }
  if (static_cast<int64_t>(world) !=
      int64_t{sizes.pp} * sizes.tp * static_cast<int64_t>(dps.size())) {
    out.notes.push_back(
        "the timeline holds " + std::to_string(world) +
        " ranks, not all PP x TP x "
        "DP = " +
        std::to_string(int64_t{sizes.pp} * sizes.tp * static_cast<int64_t>(dps.size())) +
        ": some ranks were not traced");
  }
  if (dpFromPid) {
    out.notes.push_back(
        "some processes have no 'DP rank d' process_name: their pid is taken as "
        "the DP rank");
  }
  if (counted) {
    out.notes.push_back(
        "compute events without args.mb_id keep Megatron's timer names: the "
        "analysis numbers their microbatches in order");
  }
  return out;
}

}  // namespace bubblescope::traces::import::ndtimeline
