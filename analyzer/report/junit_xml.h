#pragma once
// JUnit XML, the format CI systems (Jenkins, GitLab, GitHub test reporters) read: one test suite
// of test cases with properties, output and failures. Everything written is escaped.
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

namespace bubblescope::analysis {

using JunitProperties = std::vector<std::pair<std::string, std::string>>;

struct JunitFailure {
  std::string message;  // one line
  std::string type;     // "regression"
  std::string text;     // details
};

struct JunitCase {
  std::string classname;
  std::string name;
  double seconds = 0;  // the `time` attribute
  JunitProperties properties;
  std::optional<JunitFailure> failure;
  std::string systemOut;
};

struct JunitSuite {
  std::string name;
  JunitProperties properties;
  std::vector<JunitCase> cases;
  std::string systemOut;
  std::string systemErr;
};

// <?xml ...?><testsuites><testsuite ...>...</testsuite></testsuites>
void writeJunit(const JunitSuite& suite, std::ostream& out);

}  // namespace bubblescope::analysis
