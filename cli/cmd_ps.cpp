// `bubblescope ps`: the processes of this user that `attach` can reach, with their rank, state,
// step and output file, as a table or JSON.
#include <algorithm>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "cli/attach_session.h"
#include "cli/cmd_ps.h"
#include "cli/exit_codes.h"
#include "cli/ps_json.h"

namespace bubblescope::cli {
namespace {

using control::AgentStatus;
using control::Command;
using control::Exchange;
using control::Outcome;

std::string orDash(int64_t v) {
  return v >= 0 ? std::to_string(v) : "-";
}

}  // namespace

int runPs(const PsArgs& a) {
  Problems problem;
  const control::TargetList list = control::allTargets(environment());
  for (const std::string& e : list.errors) problem(e);
  const auto replies =
      control::exchangeAll(list.targets, {control::formatCommand(Command{})}, kReplyTimeout);
  std::vector<AgentStatus> rows;
  for (size_t i = 0; i < replies.size(); ++i) {
    const Exchange& x = replies[i];
    AgentStatus st;
    st.pid = list.targets[i].pid;
    if (x.outcome == Outcome::Gone || x.outcome == Outcome::Stale) continue;
    if (x.outcome == Outcome::Answered && x.reply.ok) {
      st = control::statusFromReply(x.reply, st.pid);
    } else {
      st.state = x.outcome == Outcome::Answered ? "refused" : control::outcomeWords(x.outcome);
    }
    if (!a.runId.empty() && st.runId != a.runId) continue;
    rows.push_back(std::move(st));
  }
  std::sort(rows.begin(), rows.end(), readingOrder);

  if (a.json) {
    writeProcessesJson(rows, std::cout);
    return problem.count > 0 ? kBadInput : kOk;
  }
  if (rows.empty() && problem.count == 0) {
    std::cerr << "bubblescope: no attachable processes"
              << (a.runId.empty() ? "" : " of run " + a.runId) << " (" << looked(list.searched)
              << ")\n";
    return kOk;
  }
  if (rows.empty()) return kBadInput;
  std::vector<std::vector<std::string>> table = {
      {"PID", "RANK", "STATE", "STEP", "STEP TIME", "RUN ID", "OUTPUT FILE", "COMMAND"}};
  for (const AgentStatus& st : rows) {
    std::string command = st.command.size() > 60 ? st.command.substr(0, 57) + "..." : st.command;
    table.push_back({std::to_string(st.pid), orDash(st.rank), st.state, orDash(st.step),
                     st.stepNs > 0 ? seconds(st.stepNs) : "-", st.runId.empty() ? "-" : st.runId,
                     st.file.empty() ? "-" : st.file, command});
  }
  std::vector<size_t> width(table[0].size(), 0);
  for (const auto& row : table) {
    for (size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
  }
  for (const auto& row : table) {
    std::string line;
    for (size_t c = 0; c < row.size(); ++c) {
      line += row[c];
      if (c + 1 < row.size()) line += std::string(width[c] - row[c].size() + 2, ' ');
    }
    std::cout << line << "\n";
  }
  return problem.count > 0 ? kBadInput : kOk;
}

}  // namespace bubblescope::cli
