#pragma once
// Analysis results of synthetic runs with known faults, for the report and check tests.
#include <map>
#include <string>
#include <vector>

#include "analyzer/result/result.h"
#include "tests/analyzer/synthetic_run.h"

namespace bubblescope::testing {

// 1F1B, p stages, m microbatches; `slowStage` (if >= 0) runs its ops `factor` times slower.
SyntheticJob oneF1BJob(int p, int m, int slowStage = -1, double factor = 1.5);
analysis::AnalysisResult analyzeJob(const SyntheticJob& job);

// Reads one XML document with expat: empty when well-formed, else the error and its line.
std::string xmlWellFormedError(const std::string& document);

// A parsed XML element (expat), for checking a document's structure.
struct XmlElement {
  std::string name;
  std::map<std::string, std::string> attributes;
  std::string text;  // character data directly inside, concatenated
  std::vector<XmlElement> children;

  std::vector<const XmlElement*> all(const std::string& name) const;  // descendants, in order
  std::string attr(const std::string& key) const;
};
// The document's root; throws std::runtime_error when it is not well-formed.
XmlElement parseXml(const std::string& document);

}  // namespace bubblescope::testing
