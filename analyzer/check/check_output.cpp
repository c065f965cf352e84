#include "analyzer/check/check_output.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "analyzer/report/junit_xml.h"

namespace bubblescope::analysis {
namespace {

// S_s changes smaller than this are noise, not worth a line.
constexpr double kStageChangeShown = 0.005;
// At most this many S_s lines per pipeline (largest changes first).
constexpr size_t kStageLinesShown = 12;

// From here on a double's digits before the point are noise, and %f writes up to 309 of them,
// which the buffer cut short into another number (an S_s of 1.8e308 read 1.8e46): such a figure
// is written as 1.798e+308.
constexpr double kLargestFixed = 1e15;

std::string fixed(double v, int decimals, bool sign = false) {
  char buf[48];
  if (std::abs(v) >= kLargestFixed) {
    std::snprintf(buf, sizeof buf, sign ? "%+.3e" : "%.3e", v);
  } else {
    std::snprintf(buf, sizeof buf, sign ? "%+.*f" : "%.*f", decimals, v);
  }
  return buf;
}

std::string value(const MetricComparison& m, double v) {
  switch (m.unit) {
    case MetricUnit::Share:
      return fixed(v * 100.0, 2) + "%";
    case MetricUnit::Ratio:
      return fixed(v, 3) + "x";
    case MetricUnit::Duration:
      return fixed(v / 1e6, 2) + " ms";
  }
  return "";
}

std::string amount(const MetricComparison& m, double d, bool sign) {
  switch (m.unit) {
    case MetricUnit::Share:
      return fixed(d, 2, sign) + " pp";
    case MetricUnit::Ratio:
      return fixed(d, 3, sign);
    case MetricUnit::Duration:
      return fixed(d, 2, sign) + "%";
  }
  return "";
}

const char* verdictName(MetricVerdict v) {
  switch (v) {
    case MetricVerdict::Ok:
      return "OK";
    case MetricVerdict::Improved:
      return "IMPROVED";
    case MetricVerdict::Regressed:
      return "REGRESSED";
  }
  return "?";
}

// "run/ (run directory, analysed)"; a report by its name alone.
std::string named(const std::string& name, const std::string& what) {
  return what.empty() ? name : name + " (" + what + ")";
}

std::string padLeft(const std::string& s, size_t width) {
  return s.size() >= width ? s : std::string(width - s.size(), ' ') + s;
}

// "27.45% → 37.96%  (+10.51 pp)", values right-aligned to the widths given (0: as they are).
std::string change(const MetricComparison& m, size_t baseWidth = 0, size_t curWidth = 0) {
  return padLeft(value(m, m.baseline), baseWidth) + " \u2192 " +
         padLeft(value(m, m.current), curWidth) + "  (" + amount(m, m.delta, true) + ")";
}

// Lines of one group of metrics, "name  baseline → current  (delta)", in aligned columns.
std::vector<std::string> changeLines(const std::vector<const MetricComparison*>& ms,
                                     size_t nameWidth) {
  size_t base = 0, cur = 0;
  for (const auto* m : ms) {
    base = std::max(base, value(*m, m->baseline).size());
    cur = std::max(cur, value(*m, m->current).size());
  }
  std::vector<std::string> out;
  for (const auto* m : ms) {
    std::string name = m->name;
    name.resize(std::max(nameWidth, name.size() + 1), ' ');
    out.push_back(name + change(*m, base, cur));
  }
  return out;
}

// "bubble share +6.72 pp (limit 2.00 pp)", with the pipeline when there are several.
std::string summary(const MetricComparison& m, bool withPipeline) {
  return (withPipeline ? "pipeline " + std::to_string(m.dpRank) + " " : std::string()) + m.name +
         " " + amount(m, m.delta, true) + " (limit " + amount(m, m.limit, false) + ")";
}

class Printer {
 public:
  Printer(std::ostream& out, bool color) : out_(out), color_(color) {}

  std::string paint(MetricVerdict v, const std::string& s) const {
    if (!color_) return s;
    const char* code = v == MetricVerdict::Regressed  ? "\033[1;31m"
                       : v == MetricVerdict::Improved ? "\033[32m"
                                                      : "\033[32m";
    return code + s + "\033[0m";
  }

  void pipeline(const PipelineCheck& pl) {
    if (pl.utilization) {
      out_ << "job with no pipeline (" << pl.p << (pl.p == 1 ? " rank" : " ranks")
           << "): utilization\n";
    } else {
      out_ << "pipeline " << pl.dpRank << " (" << (pl.schedule.empty() ? "?" : pl.schedule)
           << ", p=" << pl.p << ", m=" << pl.m << ")\n";
    }
    std::vector<const MetricComparison*> gated, classes, stages;
    for (const auto& m : pl.metrics) {
      if (m.gated) {
        gated.push_back(&m);
      } else if (m.key.starts_with("idle_")) {
        classes.push_back(&m);
      } else {
        stages.push_back(&m);
      }
    }
    const std::vector<std::string> lines = changeLines(gated, 14);
    size_t width = 0;
    for (const auto& l : lines) width = std::max(width, l.size());
    for (size_t i = 0; i < gated.size(); ++i) {
      const MetricComparison& m = *gated[i];
      const std::string verdict = verdictName(m.verdict);
      out_ << "  " << lines[i] << std::string(width - lines[i].size() + 2, ' ')
           << paint(m.verdict, verdict) << std::string(11 - verdict.size(), ' ') << "limit +"
           << amount(m, m.limit, false) << "\n";
    }
    if (!classes.empty()) {
      out_ << "  idle by class, share of the span (shown, not gated):\n";
      for (const auto& line : changeLines(classes, 24)) out_ << "    " << line << "\n";
    }
    if (pl.utilization) return;  // no stages
    std::vector<const MetricComparison*> changed;
    for (const auto* m : stages) {
      if (std::abs(m->delta) >= kStageChangeShown) changed.push_back(m);
    }
    out_ << "  S_s per stage (shown, not gated): ";
    if (changed.empty()) {
      out_ << "no stage changed by " << fixed(kStageChangeShown, 3) << " or more\n";
    } else {
      out_ << changed.size() << " of " << stages.size() << " changed by "
           << fixed(kStageChangeShown, 3) << " or more\n";
      std::stable_sort(changed.begin(), changed.end(), [](const auto* a, const auto* b) {
        return std::abs(a->delta) > std::abs(b->delta);
      });
      const size_t shown = std::min(changed.size(), kStageLinesShown);
      const std::vector<const MetricComparison*> top(
          changed.begin(), changed.begin() + static_cast<std::ptrdiff_t>(shown));
      for (const auto& line : changeLines(top, 24)) out_ << "    " << line << "\n";
      if (changed.size() > shown) {
        out_ << "    ... and " << changed.size() - shown << " more (see --junit or the reports)\n";
      }
    }
  }

 private:
  std::ostream& out_;
  bool color_;
};

}  // namespace

std::string checkVerdict(const CheckResult& r) {
  const bool several = r.pipelines.size() > 1;
  const auto regressions = r.regressions();
  std::string s;
  if (!regressions.empty()) {
    s = "REGRESSED: ";
    for (size_t i = 0; i < regressions.size(); ++i) {
      s += (i ? ", " : "") + summary(*regressions[i], several);
    }
    return s;
  }
  size_t gatedCount = 0;
  for (const auto& pl : r.pipelines) {
    for (const auto& m : pl.metrics) gatedCount += m.gated ? 1 : 0;
  }
  s = "OK: no regression (" + std::to_string(gatedCount) + " gated metrics within their limits)";
  const auto improvements = r.improvements();
  if (!improvements.empty()) {
    s += "; improved: ";
    for (size_t i = 0; i < improvements.size(); ++i) {
      const auto& m = *improvements[i];
      s += (i ? ", " : "") + (several ? "pipeline " + std::to_string(m.dpRank) + " " : "") +
           m.name + " " + amount(m, m.delta, true);
    }
  }
  return s;
}

void printCheck(const CheckResult& r, const CheckNames& names, std::ostream& out, bool color) {
  out << "bubblescope check: " << named(names.current, names.currentWhat)
      << " against the baseline " << named(names.baseline, names.baselineWhat) << "\n";
  Printer printer(out, color);
  for (const auto& pl : r.pipelines) printer.pipeline(pl);
  for (const auto& n : r.notes) out << "note: " << n << "\n";
  const std::string verdict = checkVerdict(r);
  out << printer.paint(r.regressed() ? MetricVerdict::Regressed : MetricVerdict::Ok, verdict)
      << "\n";
}

void writeCheckJunit(const CheckResult& r, const CheckNames& names, std::ostream& out) {
  JunitSuite suite;
  suite.name = "bubblescope check";
  suite.properties = {{"baseline", names.baseline}, {"current", names.current}};
  for (const auto& pl : r.pipelines) {
    for (const auto& m : pl.metrics) {
      if (!m.gated) continue;
      JunitCase c;
      c.classname = "bubblescope.check.pipeline" + std::to_string(pl.dpRank);
      c.name = m.name;
      c.properties = {{"baseline", value(m, m.baseline)},
                      {"current", value(m, m.current)},
                      {"delta", amount(m, m.delta, true)},
                      {"limit", "+" + amount(m, m.limit, false)},
                      {"verdict", verdictName(m.verdict)}};
      c.systemOut = m.name + ": " + change(m) + ", " + verdictName(m.verdict) + " (limit +" +
                    amount(m, m.limit, false) + ")\n";
      if (m.verdict == MetricVerdict::Regressed) {
        c.failure =
            JunitFailure{summary(m, false), "regression",
                         "pipeline " + std::to_string(pl.dpRank) + ": " + m.name + " " + change(m) +
                             ", more than the limit +" + amount(m, m.limit, false) +
                             "\nbaseline: " + names.baseline + "\ncurrent: " + names.current};
      }
      suite.cases.push_back(std::move(c));
    }
  }
  std::ostringstream shown;
  for (const auto& pl : r.pipelines) {
    for (const auto& m : pl.metrics) {
      if (!m.gated) {
        shown << "pipeline " << pl.dpRank << " " << m.name << ": " << change(m) << "\n";
      }
    }
  }
  for (const auto& n : r.notes) shown << "note: " << n << "\n";
  shown << checkVerdict(r) << "\n";
  suite.systemOut = shown.str();
  writeJunit(suite, out);
}

}  // namespace bubblescope::analysis
