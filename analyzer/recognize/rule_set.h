#pragma once
// Rule sets for recognising pipeline ops in range names (analysis.md §4): each is a small table of
// patterns, one per kind of label a framework emits, with what each capture group means.
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analyzer/recognize/pattern.h"
#include "analyzer/recognize/recognized.h"

namespace bubblescope::analysis {

struct Rule {
  std::string source;  // the pattern as written, for messages
  Pattern pattern;     // matched against the whole name
  Role role = Role::Op;
  std::optional<OpKind> kind;           // fixed kind (or pass, for Send/Recv)
  int kindGroup = 0;                    // or: the capture group naming it ...
  std::map<std::string, OpKind> kinds;  // ... through this table
  int mbGroup = 0, chunkGroup = 0, peerGroup = 0, stageGroup = 0, stepGroup = 0;  // 0 = none

  std::optional<Match> apply(std::string_view name) const;
};

struct RuleSet {
  std::string name;  // "bubblescope", "torch.distributed.pipelining", ...
  std::vector<Rule> rules;
  // The labels carry no microbatch id: ops are numbered by their order in each step.
  bool countsMicrobatches = false;

  // The first rule that matches the whole name. Each name is matched once per set and process,
  // then remembered: a job's ranks share their labels, and a live watch analyses the same
  // labels every poll (regular expressions were 40% of its CPU). Thread-safe.
  std::optional<Match> match(std::string_view label) const;
  // The same without the memo, for a caller that already matches each of its names once and
  // has more of them than the memo holds (an op-level timeline's "step 1" to "step 1000000"):
  // every one would miss, and the lookups, locks and copies of the misses cost more than the
  // patterns (a fifth of analysing a 100,000-step timeline, issue 28).
  std::optional<Match> matchOnce(std::string_view label) const { return matchRules(label); }
  static constexpr size_t kMemoNames = size_t{1} << 12;  // the most names the memo holds
  // Whether the name's match is an op, without the memo, trying the rules only up to the last op
  // rule (a later one can only say it is not an op): what choosing a rank's rule set asks of
  // each of its names. A set's trailing rules that begin with ".*" (Megatron's transfers) match
  // every name through to its end.
  bool matchesOp(std::string_view label) const;

  // What match() remembers, shared by copies of the set (their rules are the same).
  // A set made by builtinRuleSets() or parseRuleSet() has one; a set built by hand matches
  // every time unless given newMemo().
  struct Memo;
  std::shared_ptr<Memo> memo;
  static std::shared_ptr<Memo> newMemo();

 private:
  std::optional<Match> matchRules(std::string_view label) const;
};

// The built-in rule sets, in the order they are tried: bubblescope convention,
// torch.distributed.pipelining, Zero Bubble (Megatron fork), Megatron timer names, DeepSpeed.
const std::vector<RuleSet>& builtinRuleSets();

// Step, optimizer and gradient-sync markers every framework shares (ProfilerStep#N, ...), tried
// after the chosen rule set.
const RuleSet& commonMarkers();

// A user's rule set from a JSON file (format in docs/analysis.md). Throws std::invalid_argument
// with one sentence naming the file and the problem.
RuleSet loadRuleSet(const std::filesystem::path& file);
// The same from the file's text (pure: the fuzzer's way in); `where` names it in messages,
// `defaultName` is the set's name when the JSON gives none.
RuleSet parseRuleSet(std::string_view text, const std::string& where,
                     const std::string& defaultName);

// How to annotate a job so the bubblescope rule set recognises it, for the "nothing recognised"
// message.
const char* annotationHint();

}  // namespace bubblescope::analysis
