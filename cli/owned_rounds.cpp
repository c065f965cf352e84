#include "cli/owned_rounds.h"

#include <algorithm>
#include <cstdlib>
#include <exception>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>

#include "analyzer/owned_analysis.h"
#include "analyzer/owned_rounds_codec.h"
#include "analyzer/recognize/rank_ops_codec.h"
#include "analyzer/replicas/job_rounds_codec.h"
#include "analyzer/replicas/replica_package.h"
#include "traces/model/trace_codec.h"
#include "traces/parallel/parallel_for.h"

namespace bubblescope::cli {
namespace {

namespace fs = std::filesystem;
using analysis::AnalysisResult;

// A process silent for this long while the others wait on it is taken as lost (a launcher that
// does not end the job): recognising, building and analysing a share take minutes.
constexpr double kRoundTimeoutS = 4 * 3600;

// The most bytes of the move one process takes from all others in a round (each of them sends it
// its share): beside the ranks it has decoded, a process holds a round's bytes, not the whole
// move's. BUBBLESCOPE_MPI_ROUND_BYTES sets it (the tests make every rank a round of its own).
size_t moveRoundBytes(size_t processes) {
  size_t all = size_t{64} << 20;
  if (const char* s = std::getenv("BUBBLESCOPE_MPI_ROUND_BYTES"); s && std::atoll(s) > 0) {
    all = static_cast<size_t>(std::atoll(s));
  }
  return std::max<size_t>(1, all / std::max<size_t>(1, processes - 1));
}

enum class Mode : uint8_t { Stop = 0, Whole = 1, Owned = 2 };

// Where each rank goes: its run index and its replica's owner. Every process gets all of it (a few
// bytes a rank).
struct Route {
  InputPosition at;
  uint32_t runIndex = 0;
  int32_t owner = 0;
  // As the run numbered it (finishRun): a trace without its own rank takes its place's.
  int32_t rank = -1;
  int32_t worldSize = 0;
};

struct Plan {
  Mode mode = Mode::Stop;
  uint64_t runRanks = 0;
  bool jobRounds = false;
  std::vector<Route> routes;
  // Each replica's owner and frame (a package without its comms), and the communicators that span
  // replicas with their members: a few bytes a rank.
  std::vector<int32_t> owners;
  std::vector<analysis::ReplicaPackage> frames;
  analysis::SpanningComms spanning;
};

std::string encodePlan(const Plan& p) {
  std::string out;
  traces::ByteWriter w(out);
  w.value(p.mode);
  w.value(p.runRanks);
  w.value(p.jobRounds);
  w.column(p.routes);
  w.column(p.owners);
  w.value<uint64_t>(p.frames.size());
  for (const analysis::ReplicaPackage& f : p.frames) analysis::encodeReplicaPackage(f, w);
  analysis::encodeSpanningComms(p.spanning, w);
  return out;
}

Plan decodePlan(std::string_view bytes) {
  traces::ByteReader r(bytes);
  Plan p;
  p.mode = r.value<Mode>();
  p.runRanks = r.value<uint64_t>();
  p.jobRounds = r.value<bool>();
  r.column(p.routes);
  r.column(p.owners);
  p.frames.resize(r.count(sizeof(uint64_t)));
  for (analysis::ReplicaPackage& f : p.frames) f = analysis::decodeReplicaPackage(r);
  p.spanning = analysis::decodeSpanningComms(r);
  return p;
}

// Per replica a message, as (replica, bytes) pairs, for a gather or an exchange.
template <typename T, typename Encode>
std::string framed(const std::map<size_t, T>& byReplica, Encode encode) {
  std::string out;
  traces::ByteWriter w(out);
  w.value<uint64_t>(byReplica.size());
  for (const auto& [replica, value] : byReplica) {
    w.value<uint64_t>(replica);
    encode(value, w);
  }
  return out;
}

// Every process's framed messages put in replica order (each replica's from its owner).
template <typename T, typename Decode>
std::vector<T> gatheredByReplica(MpiJob& job, const std::string& mine, size_t replicas,
                                 Decode decode) {
  std::vector<T> out(replicas);
  std::exception_ptr bad;
  job.gatherToRoot(mine, kRoundTimeoutS, [&](int, std::string_view bytes) {
    try {
      traces::ByteReader r(bytes);
      for (auto n = r.value<uint64_t>(); n > 0; --n) {
        const auto replica = r.value<uint64_t>();
        if (replica >= out.size()) throw std::runtime_error("a replica outside the job");
        out[replica] = decode(r);
      }
    } catch (...) {
      if (!bad) bad = std::current_exception();
    }
  });
  if (bad) std::rethrow_exception(bad);
  return out;
}

// Rank 0's message for each replica to the replica's owner (`owners`: each replica's, on rank 0;
// empty elsewhere), framed as framed() frames them: `encode(d, w)` writes replica d's, and
// `decode(d, r)` reads it where it arrives.
template <typename Encode, typename Decode>
void scatterToOwners(MpiJob& job, const std::vector<int32_t>& owners, Encode encode,
                     Decode decode) {
  std::vector<std::string> sendEach(static_cast<size_t>(job.size()));
  for (size_t p = 0; p < sendEach.size() && !owners.empty(); ++p) {
    traces::ByteWriter w(sendEach[p]);
    w.value<uint64_t>(
        static_cast<uint64_t>(std::count(owners.begin(), owners.end(), static_cast<int>(p))));
    for (size_t d = 0; d < owners.size(); ++d) {
      if (static_cast<size_t>(owners[d]) != p) continue;
      w.value<uint64_t>(d);
      encode(d, w);
    }
  }
  job.exchange(std::move(sendEach), kRoundTimeoutS, [&](int, std::string_view bytes) {
    if (bytes.empty()) return;
    traces::ByteReader r(bytes);
    for (auto n = r.value<uint64_t>(); n > 0; --n) {
      const auto d = r.value<uint64_t>();
      decode(static_cast<size_t>(d), r);
    }
  });
}

// Whether every process goes on: rank 0 says whether `failed` (its own) stopped it. Where one did,
// MPI is finalised and rank 0 throws the failure (none waits on another).
bool allGoOn(MpiJob& job, const std::exception_ptr& failed) {
  if (job.broadcastFromRoot(failed ? "0" : "1", kRoundTimeoutS) == "1") return true;
  job.finalize();
  if (failed) std::rethrow_exception(failed);
  return false;
}

// Rank 0's plan: from the light parts, the coordinator and each replica's owner, or why the run
// goes whole to rank 0. `holder`: which process holds each input position.
struct Planned {
  Plan plan;
  std::unique_ptr<analysis::JobCoordinator> coordinator;
};

Planned planJob(LightRun&& light, const std::map<InputPosition, int>& holder, int processes,
                const analysis::AnalyzeOptions& options) {
  Planned out;
  out.plan.runRanks = light.run.ranks.size();
  std::vector<int> holderOfRank;
  for (const InputPosition& at : light.positions) holderOfRank.push_back(holder.at(at));
  std::vector<std::pair<int32_t, int32_t>> numbered;
  for (const traces::RankTrace& t : light.run.ranks) {
    numbered.emplace_back(t.meta.rank, t.meta.worldSize);
  }
  if (analysis::analysableWhereRanksAre(light.run, light.places, light.rosters, light.kernels)) {
    out.coordinator =
        analysis::JobCoordinator::start(std::move(light.run), std::move(light.light), light.places,
                                        light.steps, light.rosters, options);
  }
  std::vector<int> ownerOfRank(light.positions.size(), 0);
  if (out.coordinator) {
    out.plan.mode = Mode::Owned;
    out.plan.jobRounds = out.coordinator->jobRounds();
    out.plan.owners = out.coordinator->owners(holderOfRank, processes);
    for (size_t d = 0; d < out.plan.owners.size(); ++d) {
      for (uint32_t r : out.coordinator->ranksOf(d)) ownerOfRank[r] = out.plan.owners[d];
      out.plan.frames.push_back(out.coordinator->frame(d));
    }
    out.plan.spanning = out.coordinator->spanning();
  } else {
    out.plan.mode = Mode::Whole;
  }
  for (size_t i = 0; i < light.positions.size(); ++i) {
    out.plan.routes.push_back({light.positions[i], static_cast<uint32_t>(i),
                               static_cast<int32_t>(ownerOfRank[i]), numbered[i].first,
                               numbered[i].second});
  }
  return out;
}

}  // namespace

std::optional<AnalysisResult> analyzeShares(MpiJob& job, RecognisedShare&& share,
                                            LightAssembler* light,
                                            const traces::import::Inputs& inputs,
                                            const std::vector<fs::path>& paths,
                                            const analysis::AnalyzeOptions& options, bool wholeRun,
                                            const std::function<void(const char*)>& lap) {
  const bool root = job.rank() == 0;
  const size_t processes = static_cast<size_t>(job.size());
  // Who holds what: each process lists its positions (a few bytes a rank).
  std::string positions;
  {
    std::vector<InputPosition> mine;
    for (const auto& [at, entry] : share.held) mine.push_back(at);
    traces::ByteWriter w(positions);
    w.column(mine);
  }
  std::map<InputPosition, int> holder;
  job.gatherToRoot(positions, kRoundTimeoutS, [&](int rank, std::string_view bytes) {
    traces::ByteReader r(bytes);
    std::vector<InputPosition> theirs;
    r.column(theirs);
    for (const InputPosition& at : theirs) holder.emplace(at, rank);
  });
  Planned planned;
  std::exception_ptr failed;
  if (root) {
    try {
      planned = planJob(light->finish(inputs, paths), holder, job.size(), options);
    } catch (...) {
      failed = std::current_exception();
      planned.plan.mode = Mode::Stop;
    }
  }
  const Plan plan =
      decodePlan(job.broadcastFromRoot(root ? encodePlan(planned.plan) : "", kRoundTimeoutS));
  if (plan.mode == Mode::Stop) {
    job.finalize();
    if (failed) std::rethrow_exception(failed);
    return std::nullopt;
  }
  lap(("planned: the ranks placed, each replica's owner named; " +
       std::to_string(plan.spanning.ids.size()) + " communicator(s) span replicas")
          .c_str());
  std::map<InputPosition, Route> routes;
  for (const Route& route : plan.routes) routes.emplace(route.at, route);
  // The ranks move once: each to its replica's owner (all to rank 0 for a run analysed whole),
  // rank 0's packages with them. A process's own are taken where they are, one at a time.
  const size_t self = static_cast<size_t>(job.rank());
  std::vector<std::pair<int32_t, int32_t>> numbered(plan.mode == Mode::Owned ? plan.runRanks : 0);
  for (const Route& route : plan.routes) {
    if (route.runIndex < numbered.size()) numbered[route.runIndex] = {route.rank, route.worldSize};
  }
  analysis::ReplicaOwner owner(numbered);
  ShardAssembler whole;
  // A shard's entries to their owner (this one).
  auto take = [&](std::string_view shard) {
    if (plan.mode == Mode::Whole) {
      whole.add(shard);
      return;
    }
    traces::ByteReader s(shard);
    readShardHeader(s);
    while (!s.done()) {
      const auto at = s.value<InputPosition>();
      s.value<bool>();  // whether it held kernels: the coordinator knew
      traces::RankTrace trace = traces::decodeRankTrace(s);
      analysis::RankOps ops = analysis::decodeRankOps(s);
      const Route& route = routes.at(at);
      trace.meta.rank = route.rank;
      trace.meta.worldSize = route.worldSize;
      owner.hold(route.runIndex, std::move(trace), std::move(ops));
    }
  };
  std::vector<std::vector<std::string>> pieces(processes);
  {
    std::vector<std::vector<std::string>> entries(processes);
    for (auto& [at, entry] : share.held) {
      const auto route = routes.find(at);
      const size_t to = route == routes.end() ? 0 : static_cast<size_t>(route->second.owner);
      entries.at(to).push_back(std::move(entry));
    }
    share.held.clear();
    for (std::string& e : entries[self]) take(shardOf({std::move(e)}));
    entries[self].clear();
    // Then each rank a piece of its own: the rounds of the move hold whole ranks.
    for (size_t p = 0; p < processes; ++p) {
      if (p == self) continue;
      for (std::string& e : entries[p]) {
        std::string piece;
        appendShard(piece, {std::move(e)});
        pieces[p].push_back(std::move(piece));
      }
      entries[p].clear();
    }
  }
  lap("its own ranks decoded, the others' made into bytes");
  std::exception_ptr bad;
  const auto takePiece = [&](int, std::string_view piece) { take(piece); };
  try {
    job.exchangeInRounds(std::move(pieces), moveRoundBytes(processes), kRoundTimeoutS, takePiece);
  } catch (...) {
    bad = std::current_exception();
  }
  lap("every rank moved to its replica's owner: the others' sent, and those sent it decoded");
  if (plan.mode == Mode::Whole) {
    job.finalize();
    if (!root) return std::nullopt;
    return whole.analyze(inputs, paths, options, wholeRun);
  }
  if (bad) std::rethrow_exception(bad);  // bytes this very program made: not the user's input

  // The comms matched: each owner its replicas', rank 0 those that span replicas and the job's
  // clocks; each owner its replicas' alignments back.
  const size_t replicas = root ? plan.owners.size() : 0;
  // Rank 0 sends each owner its replicas' parts; the others send none.
  const std::vector<int32_t> none;
  const std::vector<int32_t>& sendsTo = root ? plan.owners : none;
  std::vector<size_t> owned;
  for (size_t d = 0; d < plan.owners.size(); ++d) {
    if (static_cast<size_t>(plan.owners[d]) == self) owned.push_back(d);
  }
  std::map<size_t, analysis::ReplicaAlignment> alignments;
  {
    std::map<size_t, analysis::OwnedMatching> matched;
    for (size_t d : owned) matched.emplace(d, owner.match(plan.frames.at(d), plan.spanning));
    auto all = gatheredByReplica<analysis::OwnedMatching>(
        job, framed(matched, analysis::encodeOwnedMatching), replicas,
        analysis::decodeOwnedMatching);
    matched.clear();
    std::vector<analysis::ReplicaAlignment> aligned;
    if (root) {
      try {
        aligned = planned.coordinator->aligned(std::move(all));
      } catch (...) {
        failed = std::current_exception();
      }
    }
    if (!allGoOn(job, failed)) return std::nullopt;
    scatterToOwners(
        job, sendsTo,
        [&](size_t d, traces::ByteWriter& w) { analysis::encodeReplicaAlignment(aligned[d], w); },
        [&](size_t d, traces::ByteReader& r) {
          alignments[d] = analysis::decodeReplicaAlignment(r);
        });
  }
  lap("comms matched where their ranks are, the job's clocks aligned");

  // Round one: each owner builds its replicas; rank 0 takes their offsets and arrivals.
  std::map<size_t, analysis::BuiltReplica> built;
  for (size_t d : owned) {
    built.emplace(d, owner.build(d, plan.frames.at(d), plan.spanning, alignments.at(d)));
    alignments.erase(d);
  }
  std::vector<analysis::DpWaits> waits;
  {
    auto all = gatheredByReplica<analysis::BuiltReplica>(
        job, framed(built, analysis::encodeBuiltReplica), replicas, analysis::decodeBuiltReplica);
    if (root) {
      try {
        waits = planned.coordinator->built(std::move(all));
      } catch (...) {
        failed = std::current_exception();
      }
    }
  }
  if (!allGoOn(job, failed)) return std::nullopt;
  lap("replicas built where their ranks are");
  // The job's rounds: costs, the ideal back, replays.
  std::vector<bool> listedWhole;
  if (plan.jobRounds) {
    std::map<size_t, analysis::OwnedCosts> costs;
    for (const auto& [d, b] : built) costs.emplace(d, owner.costsOf(d));
    auto all = gatheredByReplica<analysis::OwnedCosts>(
        job, framed(costs, analysis::encodeOwnedCosts), replicas, analysis::decodeOwnedCosts);
    costs.clear();
    std::string ideal;
    if (root) {
      if (const auto made = planned.coordinator->costs(std::move(all))) {
        traces::ByteWriter w(ideal);
        analysis::encodeJobIdeal(*made, w);
      }
    }
    ideal = job.broadcastFromRoot(ideal, kRoundTimeoutS);
    std::vector<analysis::OwnedReplay> replayed;
    if (!ideal.empty()) {
      traces::ByteReader r(ideal);
      const analysis::JobIdeal at = analysis::decodeJobIdeal(r);
      std::map<size_t, analysis::OwnedReplay> replays;
      for (const auto& [d, b] : built) replays.emplace(d, owner.replayOf(d, at));
      replayed = gatheredByReplica<analysis::OwnedReplay>(
          job, framed(replays, analysis::encodeOwnedReplay), replicas, analysis::decodeOwnedReplay);
    }
    if (root) listedWhole = planned.coordinator->replays(std::move(replayed));
  } else if (root) {
    listedWhole = planned.coordinator->replays({});
  }
  lap("the job's rounds");
  // Each owner its replicas' waits and whether a summary lists them whole; then their analyses.
  std::map<size_t, std::pair<analysis::DpWaits, bool>> given;
  scatterToOwners(
      job, sendsTo,
      [&](size_t d, traces::ByteWriter& w) {
        w.value(listedWhole.empty() || listedWhole[d]);
        analysis::encodeDpWaits(waits.at(d), w);
      },
      [&](size_t d, traces::ByteReader& r) {
        const bool listed = r.value<bool>();
        given[d] = {analysis::decodeDpWaits(r), listed};
      });
  std::vector<size_t> order;
  for (const auto& [d, g] : given) order.push_back(d);
  std::vector<analysis::AnalysedReplica> analysed(order.size());
  const unsigned perReplica = traces::threadsEach(order.size(), options.threads);
  traces::parallelFor(order.size(), options.threads, [&](size_t i) {
    const auto& [w, listed] = given.at(order[i]);
    analysed[i] = owner.analyse(order[i], w, listed, options, perReplica);
  });
  std::map<size_t, analysis::AnalysedReplica> results;
  for (size_t i = 0; i < order.size(); ++i) results.emplace(order[i], std::move(analysed[i]));
  analysed.clear();
  auto all = gatheredByReplica<analysis::AnalysedReplica>(
      job, framed(results, analysis::encodeAnalysedReplica), replicas,
      analysis::decodeAnalysedReplica);
  results.clear();
  job.finalize();
  if (!root) return std::nullopt;
  AnalysisResult result = planned.coordinator->finish(std::move(all));
  lap("replicas analysed where their ranks are; the job put together");
  return result;
}

}  // namespace bubblescope::cli
