#pragma once
// Report formats, one row each in a single table (report.cpp): the name a user gives, the output
// files it is chosen for, and its writers. Parsing, help and error texts all read that table.
#include <array>
#include <ostream>
#include <span>
#include <string>
#include <string_view>

#include "analyzer/report/report_style.h"
#include "analyzer/result/result.h"

namespace bubblescope::analysis {

struct ReportFormat {
  using Writer = void (*)(const AnalysisResult& result, std::ostream& out,
                          const ReportStyle& style);
  const char* key;                        // what --format takes: "md"
  std::array<const char*, 1> aliases;     // also taken ("markdown"); nullptr = none
  std::array<const char*, 2> extensions;  // output files it is chosen for (".html", ".htm")
  bool colors;                            // colours a terminal, when the output is one
  Writer pipeline;                        // a pipeline job
  Writer utilization;                     // a job with no pipeline (AnalysisResult::utilization)
  // Without --detail it names only the top gaps and each root cause's largest own and knock-on
  // gaps (AnalyzeOptions::everyGap may be false); HTML's timeline shows a step's every gap.
  bool namesFewGaps = false;
};

// Every format, the default (text) first.
std::span<const ReportFormat> reportFormats();
// By its key or an alias; nullptr for anything else.
const ReportFormat* findReportFormat(std::string_view name);
// From an output file's extension (.json, .md, .html, .xml, .txt); nullptr when it says nothing.
const ReportFormat* reportFormatForFile(std::string_view path);
// A format the program names itself ("json"); throws std::invalid_argument for an unknown key.
const ReportFormat& reportFormat(std::string_view key);
// "text, json, md, html, junit": for error texts.
std::string reportFormatKeys();
// "text (default), json, md, html or junit": for help texts.
std::string reportFormatChoices();

void writeReport(const AnalysisResult& result, const ReportFormat& format, std::ostream& out,
                 const ReportStyle& style = {});

}  // namespace bubblescope::analysis
