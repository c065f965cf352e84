#include "analyzer/report/report.h"

#include <stdexcept>

#include "analyzer/report/html_report.h"
#include "analyzer/report/json_report.h"
#include "analyzer/report/junit_report.h"
#include "analyzer/report/markdown_report.h"
#include "analyzer/report/sections/utilization_report.h"
#include "analyzer/report/text_report.h"

namespace bubblescope::analysis {
namespace {

// Both jobs' JSON is one document: writeJsonReport writes a job's utilization too.
void writeJson(const AnalysisResult& r, std::ostream& out, const ReportStyle& style) {
  writeJsonReport(r, out, 2, style.detail ? JsonDetail::Full : JsonDetail::Summary);
  out << "\n";
}

// Add a format here, with its writers in files of their own.
// clang-format off
constexpr ReportFormat kReportFormats[] = {
    {"text", {}, {".txt"}, true, writeTextReport,
     [](const AnalysisResult& r, std::ostream& out, const ReportStyle&) { writeUtilizationText(r, out); }, true},
    {"json", {}, {".json"}, false, writeJson, writeJson, true},
    {"md", {"markdown"}, {".md"}, false,
     [](const AnalysisResult& r, std::ostream& out, const ReportStyle&) { writeMarkdownReport(r, out); },
     [](const AnalysisResult& r, std::ostream& out, const ReportStyle&) { writeUtilizationMarkdown(r, out); }, true},
    {"html", {}, {".html", ".htm"}, false,
     [](const AnalysisResult& r, std::ostream& out, const ReportStyle&) { writeHtmlReport(r, out); },
     [](const AnalysisResult& r, std::ostream& out, const ReportStyle&) { writeUtilizationHtml(r, out); }},
    {"junit", {}, {".xml"}, false,
     [](const AnalysisResult& r, std::ostream& out, const ReportStyle&) { writeJunitReport(r, out); },
     [](const AnalysisResult& r, std::ostream& out, const ReportStyle&) { writeUtilizationJunit(r, out); }, true},
};
// clang-format on

}  // namespace

std::span<const ReportFormat> reportFormats() {
  return kReportFormats;
}

const ReportFormat* findReportFormat(std::string_view name) {
  for (const ReportFormat& f : kReportFormats) {
    if (name == f.key) return &f;
    for (const char* alias : f.aliases) {
      if (alias && name == alias) return &f;
    }
  }
  return nullptr;
}

const ReportFormat* reportFormatForFile(std::string_view path) {
  for (const ReportFormat& f : kReportFormats) {
    for (const char* ext : f.extensions) {
      if (ext && path.ends_with(ext)) return &f;
    }
  }
  return nullptr;
}

const ReportFormat& reportFormat(std::string_view key) {
  if (const ReportFormat* f = findReportFormat(key)) return *f;
  throw std::invalid_argument("unknown report format '" + std::string(key) + "'");
}

std::string reportFormatKeys() {
  std::string out;
  for (const ReportFormat& f : kReportFormats) out += (out.empty() ? "" : ", ") + std::string(f.key);
  return out;
}

std::string reportFormatChoices() {
  const std::span<const ReportFormat> all = kReportFormats;
  std::string out = std::string(all.front().key) + " (default)";
  for (size_t i = 1; i < all.size(); ++i) {
    out += (i + 1 == all.size() ? " or " : ", ") + std::string(all[i].key);
  }
  return out;
}

void writeReport(const AnalysisResult& result, const ReportFormat& format, std::ostream& out,
                 const ReportStyle& style) {
  (result.utilization ? format.utilization : format.pipeline)(result, out, style);
}

}  // namespace bubblescope::analysis
