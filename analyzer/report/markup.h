#pragma once
// Escaping for the markup reports: XML/HTML text and attributes, Markdown table cells. Input
// strings come from traces (commands, labels, paths) and may hold anything.
#include <string>
#include <string_view>

namespace bubblescope::analysis {

// Safe as XML or HTML text and as a quoted attribute value: & < > " ' escaped, characters XML
// forbids (controls other than tab and newline) and bytes that are not UTF-8 replaced by U+FFFD.
std::string escapeXml(std::string_view s);

// Safe inside a Markdown table cell on GitHub: | and backslash escaped, HTML tags neutralised,
// newlines as spaces.
std::string escapeMarkdownCell(std::string_view s);

// `s` as Markdown inline code, fenced with more backticks than it holds (empty: "").
std::string markdownCode(std::string_view s);

}  // namespace bubblescope::analysis
