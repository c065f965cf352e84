#include "gui/model/search.h"

#include <algorithm>
#include <cctype>

#include "gui/model/item_text.h"

namespace bubblescope::gui {
namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

const Track* laneOf(const PipelineRows& p, uint32_t laneId) {
  const LaneRef ref = laneRef(p, laneId);
  if (ref.stage < 0) return nullptr;
  const Row* row = rowOf(p.stages[ref.stage], ref.row);
  return row ? &row->lanes[ref.lane] : nullptr;
}

// Which of a rank's interned strings match, computed once per rank and query.
std::vector<uint8_t> matchingStrings(const traces::StringTable& strings, std::string_view q) {
  std::vector<uint8_t> out(strings.size(), 0);
  for (size_t i = 1; i < strings.size(); ++i) {
    out[i] = containsNoCase(strings.at(static_cast<traces::StringId>(i)), q) ? 1 : 0;
  }
  return out;
}

}  // namespace

bool containsNoCase(std::string_view text, std::string_view q) {
  if (q.empty()) return true;
  if (q.size() > text.size()) return false;
  for (size_t i = 0; i + q.size() <= text.size(); ++i) {
    size_t k = 0;
    while (k < q.size() && std::tolower(static_cast<unsigned char>(text[i + k])) ==
                               static_cast<unsigned char>(q[k]))
      ++k;
    if (k == q.size()) return true;
  }
  return false;
}

bool SearchResult::hit(uint32_t lane, size_t first, size_t last) const {
  if (lane >= matches.size()) return false;
  const auto& m = matches[lane];
  const auto it = std::lower_bound(m.begin(), m.end(), static_cast<uint32_t>(first));
  return it != m.end() && *it < last;
}

std::optional<SearchMatch> SearchResult::next(const PipelineRows& p, TimeNs t) const {
  std::optional<SearchMatch> best;
  for (uint32_t lane = 0; lane < matches.size(); ++lane) {
    const auto& m = matches[lane];
    if (m.empty()) continue;
    const Track* track = laneOf(p, lane);
    const auto it = std::upper_bound(m.begin(), m.end(), t,
                                     [&](TimeNs v, uint32_t pos) { return v < track->start[pos]; });
    if (it == m.end()) continue;
    const TimeNs s = track->start[*it];
    if (!best || s < best->start) best = SearchMatch{lane, *it, s, track->end[*it]};
  }
  return best;
}

std::optional<SearchMatch> SearchResult::previous(const PipelineRows& p, TimeNs t) const {
  std::optional<SearchMatch> best;
  for (uint32_t lane = 0; lane < matches.size(); ++lane) {
    const auto& m = matches[lane];
    if (m.empty()) continue;
    const Track* track = laneOf(p, lane);
    const auto it = std::lower_bound(m.begin(), m.end(), t,
                                     [&](uint32_t pos, TimeNs v) { return track->start[pos] < v; });
    if (it == m.begin()) continue;
    const uint32_t pos = *(it - 1);
    const TimeNs s = track->start[pos];
    if (!best || s > best->start) best = SearchMatch{lane, pos, s, track->end[pos]};
  }
  return best;
}

SearchResult search(const TimelineModel& model, const PipelineRows& p, std::string_view query) {
  SearchResult r;
  r.query = std::string(query);
  const std::string q = lower(query);
  if (q.empty()) return r;
  r.matches.resize(p.lanes);
  std::vector<std::vector<uint8_t>> byRank(model.run ? model.run->ranks.size() : 0);
  auto stringsOf = [&](int rank) -> const std::vector<uint8_t>& {
    if (byRank[rank].empty()) byRank[rank] = matchingStrings(model.run->ranks[rank].strings, q);
    return byRank[rank];
  };
  for (const StageRows& sr : p.stages) {
    // Ops: by name ("F mb=5") or label ("F5").
    for (size_t l = 0; l < sr.ops.lanes.size(); ++l) {
      const Track& lane = sr.ops.lanes[l];
      auto& out = r.matches[sr.ops.laneBase + l];
      for (size_t i = 0; i < lane.size(); ++i) {
        const auto& op = p.result->ops[lane.item[i]].op;
        if (containsNoCase(opName(op), q) || containsNoCase(engine::label(op), q)) {
          out.push_back(static_cast<uint32_t>(i));
        }
      }
      r.total += out.size();
    }
    for (const Row& row : sr.detail) {
      const traces::RankTrace& t = model.run->ranks[row.rank];
      const std::vector<uint8_t>* strings = nullptr;
      if (row.kind != RowKind::Nccl) strings = &stringsOf(row.rank);
      for (size_t l = 0; l < row.lanes.size(); ++l) {
        const Track& lane = row.lanes[l];
        auto& out = r.matches[row.laneBase + l];
        for (size_t i = 0; i < lane.size(); ++i) {
          const uint32_t item = lane.item[i];
          bool match = false;
          switch (row.kind) {
            case RowKind::Stream:
              if (streamTableOf(item) == StreamTable::Kernel) {
                match = (*strings)[t.kernels->name[streamIndexOf(item)]] != 0;
              } else {
                match = containsNoCase(itemName(model, p, row, item), q);
              }
              break;
            case RowKind::Nccl:
              match = containsNoCase(ncclOpName(t.ncclCalls->op[item]), q);
              break;
            case RowKind::Api:
              match = (*strings)[t.apiCalls->name[item]] != 0;
              break;
            case RowKind::Nvtx:
              match = (*strings)[t.ranges->name[item]] != 0;
              break;
            default:
              break;
          }
          if (match) out.push_back(static_cast<uint32_t>(i));
        }
        r.total += out.size();
      }
    }
  }
  return r;
}

}  // namespace bubblescope::gui
