#include "analyzer/report/report.h"

#include <stdexcept>

#include "analyzer/report/html_report.h"
#include "analyzer/report/json_report.h"
#include "analyzer/report/junit_report.h"
#include "analyzer/report/markdown_report.h"
#include "analyzer/report/text_report.h"
#include "analyzer/utilization/utilization_report.h"

namespace bubblescope::analysis {

std::optional<ReportFormat> parseReportFormat(const std::string& name) {
  if (name == "text") return ReportFormat::Text;
  if (name == "json") return ReportFormat::Json;
  if (name == "md" || name == "markdown") return ReportFormat::Markdown;
  if (name == "html") return ReportFormat::Html;
  if (name == "junit") return ReportFormat::Junit;
  return std::nullopt;
}

std::optional<ReportFormat> formatForFile(const std::string& path) {
  auto ends = [&](const char* ext) { return path.ends_with(ext); };
  if (ends(".json")) return ReportFormat::Json;
  if (ends(".md")) return ReportFormat::Markdown;
  if (ends(".html") || ends(".htm")) return ReportFormat::Html;
  if (ends(".xml")) return ReportFormat::Junit;
  if (ends(".txt")) return ReportFormat::Text;
  return std::nullopt;
}

void writeReport(const AnalysisResult& result, ReportFormat format, std::ostream& out,
                 bool color) {
  if (result.utilization) {  // a job with no pipeline
    switch (format) {
      case ReportFormat::Text: return writeUtilizationText(result, out);
      case ReportFormat::Json: out << toJson(result).dump(2) << "\n"; return;
      case ReportFormat::Markdown: return writeUtilizationMarkdown(result, out);
      case ReportFormat::Html: return writeUtilizationHtml(result, out);
      case ReportFormat::Junit: return writeUtilizationJunit(result, out);
    }
  }
  switch (format) {
    case ReportFormat::Text:
      writeTextReport(result, out, color);
      return;
    case ReportFormat::Json:
      out << toJson(result).dump(2) << "\n";
      return;
    case ReportFormat::Markdown:
      writeMarkdownReport(result, out);
      return;
    case ReportFormat::Html:
      writeHtmlReport(result, out);
      return;
    case ReportFormat::Junit:
      writeJunitReport(result, out);
      return;
  }
  throw std::invalid_argument("unknown report format");
}

}  // namespace bubblescope::analysis
