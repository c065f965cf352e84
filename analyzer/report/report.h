#pragma once
// Report formats and how to pick one.
#include <optional>
#include <ostream>
#include <string>

#include "analyzer/result/result.h"

namespace bubblescope::analysis {

enum class ReportFormat { Text, Json, Markdown, Html, Junit };

// "text", "json", "md", "html", "junit"; nullopt for anything else.
std::optional<ReportFormat> parseReportFormat(const std::string& name);
// From an output file's extension (.json, .md, .html, .xml); nullopt when it says nothing.
std::optional<ReportFormat> formatForFile(const std::string& path);

void writeReport(const AnalysisResult& result, ReportFormat format, std::ostream& out, bool color);

}  // namespace bubblescope::analysis
