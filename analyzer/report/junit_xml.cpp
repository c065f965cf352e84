#include "analyzer/report/junit_xml.h"

#include <cstdio>

#include "analyzer/report/markup.h"

namespace bubblescope::analysis {
namespace {

std::string seconds(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6f", s);
  return buf;
}

void properties(const JunitProperties& props, const std::string& indent, std::ostream& out) {
  if (props.empty()) return;
  out << indent << "<properties>\n";
  for (const auto& [name, value] : props) {
    out << indent << "  <property name=\"" << escapeXml(name) << "\" value=\"" << escapeXml(value)
        << "\"/>\n";
  }
  out << indent << "</properties>\n";
}

}  // namespace

void writeJunit(const JunitSuite& suite, std::ostream& out) {
  int failures = 0;
  double total = 0;
  for (const auto& c : suite.cases) {
    failures += c.failure ? 1 : 0;
    total += c.seconds;
  }
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out << "<testsuites name=\"" << escapeXml(suite.name) << "\" tests=\"" << suite.cases.size()
      << "\" failures=\"" << failures << "\" errors=\"0\" time=\"" << seconds(total) << "\">\n";
  out << "  <testsuite name=\"" << escapeXml(suite.name) << "\" tests=\"" << suite.cases.size()
      << "\" failures=\"" << failures << "\" errors=\"0\" skipped=\"0\" time=\"" << seconds(total)
      << "\">\n";
  properties(suite.properties, "    ", out);
  for (const auto& c : suite.cases) {
    out << "    <testcase classname=\"" << escapeXml(c.classname) << "\" name=\""
        << escapeXml(c.name) << "\" time=\"" << seconds(c.seconds) << "\">\n";
    properties(c.properties, "      ", out);
    if (c.failure) {
      out << "      <failure message=\"" << escapeXml(c.failure->message) << "\" type=\""
          << escapeXml(c.failure->type) << "\">" << escapeXml(c.failure->text) << "</failure>\n";
    }
    if (!c.systemOut.empty()) {
      out << "      <system-out>" << escapeXml(c.systemOut) << "</system-out>\n";
    }
    out << "    </testcase>\n";
  }
  if (!suite.systemOut.empty()) {
    out << "    <system-out>" << escapeXml(suite.systemOut) << "</system-out>\n";
  }
  if (!suite.systemErr.empty()) {
    out << "    <system-err>" << escapeXml(suite.systemErr) << "</system-err>\n";
  }
  out << "  </testsuite>\n</testsuites>\n";
}

}  // namespace bubblescope::analysis
