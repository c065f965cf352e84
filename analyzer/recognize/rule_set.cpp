#include "analyzer/recognize/rule_set.h"

#include <array>
#include <charconv>
#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace bubblescope::analysis {
namespace {

struct Groups {
  std::vector<std::string_view> text;
  std::vector<bool> matched;
};

std::optional<int64_t> group(const Groups& m, int index) {
  if (index <= 0 || index >= static_cast<int>(m.text.size()) || !m.matched[index]) {
    return std::nullopt;
  }
  const std::string_view s = m.text[index];
  int64_t v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || ptr != s.data() + s.size()) return std::nullopt;
  return v;
}

// A group's number, if it fits the field (a microbatch "99999999999" is no microbatch).
std::optional<int> smallGroup(const Groups& m, int index) {
  auto v = group(m, index);
  if (!v || *v < 0 || *v > INT32_MAX) return std::nullopt;
  return static_cast<int>(*v);
}

}  // namespace

std::optional<Match> Rule::apply(std::string_view name) const {
  thread_local Groups m;  // reused: its vectors keep their room from one range to the next
  if (!pattern.fullMatch(name, m.text, m.matched)) return std::nullopt;
  Match out;
  out.role = role;
  if (kind) out.kind = *kind;
  if (kindGroup > 0) {
    if (kindGroup >= static_cast<int>(m.text.size())) return std::nullopt;
    auto it = kinds.find(std::string(m.text[kindGroup]));
    if (it == kinds.end()) return std::nullopt;
    out.kind = it->second;
  }
  if (auto v = smallGroup(m, mbGroup)) out.mb = *v;
  if (auto v = smallGroup(m, chunkGroup)) out.chunk = *v;
  if (auto v = smallGroup(m, peerGroup)) out.peer = *v;
  if (auto v = smallGroup(m, stageGroup)) out.stage = *v;
  if (auto v = group(m, stepGroup)) out.step = *v;
  return out;
}

// Names by their match. Bounded: a job that numbers every label ("step 1234", "iter 99") would
// grow it without end, so a shard starts again once full. 4,096 names in all: a watch's labels
// are a few hundred, and recognition already matches each name of a rank once (its string
// table); at 2^16 names a set, an op-level timeline whose labels are all distinct held ~20 MB of
// them, every one matched once (issue 28). In shards by the name's hash, each with its lock: the
// ranks recognised side by side all look up every name, and one lock for all of them had the
// threads queue on it (a fifth of the recognition of a 100,000-step timeline, on two threads).
struct RuleSet::Memo {
  static constexpr size_t kShards = 16;
  struct Hash {
    using is_transparent = void;  // found by string_view, without a copy
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  struct alignas(64) Shard {  // a cache line of its own: the shards' locks are not shared
    std::mutex mutex;
    std::unordered_map<std::string, std::optional<Match>, Hash, std::equal_to<>> byName;
  };
  std::array<Shard, kShards> shards;

  Shard& shardOf(std::string_view name) { return shards[Hash{}(name) % kShards]; }
};

std::shared_ptr<RuleSet::Memo> RuleSet::newMemo() {
  return std::make_shared<Memo>();
}

std::optional<Match> RuleSet::match(std::string_view label) const {
  if (!memo) return matchRules(label);
  Memo::Shard& shard = memo->shardOf(label);
  {
    std::lock_guard<std::mutex> lock(shard.mutex);
    if (auto it = shard.byName.find(label); it != shard.byName.end()) return it->second;
  }
  std::optional<Match> m = matchRules(label);
  std::lock_guard<std::mutex> lock(shard.mutex);
  if (shard.byName.size() >= kMemoNames / Memo::kShards) shard.byName.clear();
  shard.byName.emplace(std::string(label), m);
  return m;
}

bool RuleSet::matchesOp(std::string_view label) const {
  size_t end = 0;
  for (size_t i = 0; i < rules.size(); ++i) {
    if (rules[i].role == Role::Op) end = i + 1;
  }
  for (size_t i = 0; i < end; ++i) {
    if (auto m = rules[i].apply(label)) return m->role == Role::Op;
  }
  return false;
}

std::optional<Match> RuleSet::matchRules(std::string_view label) const {
  for (const Rule& r : rules) {
    if (auto m = r.apply(label)) return m;
  }
  return std::nullopt;
}

}  // namespace bubblescope::analysis
