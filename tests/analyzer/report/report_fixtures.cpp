#include "tests/analyzer/report/report_fixtures.h"

#include <expat.h>

#include <stdexcept>

#include "analyzer/analyze.h"

namespace bubblescope::testing {

SyntheticJob oneF1BJob(int p, int m, int slowStage, double factor) {
  SyntheticJob job;
  job.schedule = engine::Schedule::oneF1B(p, m);
  job.cost = [slowStage, factor](int stage, int, const engine::Op& op) {
    const TimeNs base = op.kind == engine::OpKind::BW ? 4'000'000 : 2'000'000;
    return stage == slowStage ? static_cast<TimeNs>(static_cast<double>(base) * factor) : base;
  };
  return job;
}

analysis::AnalysisResult analyzeJob(const SyntheticJob& job) {
  return analysis::analyzeRun(synthesize(job));
}

std::string xmlWellFormedError(const std::string& document) {
  XML_Parser parser = XML_ParserCreate("UTF-8");
  const auto status =
      XML_Parse(parser, document.data(), static_cast<int>(document.size()), /*isFinal=*/1);
  std::string error;
  if (status != XML_STATUS_OK) {
    error = std::string(XML_ErrorString(XML_GetErrorCode(parser))) + " at line " +
            std::to_string(XML_GetCurrentLineNumber(parser));
  }
  XML_ParserFree(parser);
  return error;
}

namespace {

struct ParseState {
  XmlElement root;
  std::vector<XmlElement*> open;
};

void onStart(void* data, const XML_Char* name, const XML_Char** attrs) {
  auto* st = static_cast<ParseState*>(data);
  XmlElement* e = nullptr;
  if (st->open.empty()) {
    e = &st->root;
  } else {
    st->open.back()->children.emplace_back();
    e = &st->open.back()->children.back();
  }
  e->name = name;
  for (int i = 0; attrs[i]; i += 2) e->attributes[attrs[i]] = attrs[i + 1];
  st->open.push_back(e);
}

void onEnd(void* data, const XML_Char*) {
  static_cast<ParseState*>(data)->open.pop_back();
}

void onText(void* data, const XML_Char* s, int len) {
  auto* st = static_cast<ParseState*>(data);
  if (!st->open.empty()) st->open.back()->text.append(s, static_cast<size_t>(len));
}

void collect(const XmlElement& e, const std::string& name, std::vector<const XmlElement*>& out) {
  for (const auto& c : e.children) {
    if (c.name == name) out.push_back(&c);
    collect(c, name, out);
  }
}

}  // namespace

std::vector<const XmlElement*> XmlElement::all(const std::string& n) const {
  std::vector<const XmlElement*> out;
  collect(*this, n, out);
  return out;
}

std::string XmlElement::attr(const std::string& key) const {
  auto it = attributes.find(key);
  return it == attributes.end() ? "" : it->second;
}

XmlElement parseXml(const std::string& document) {
  ParseState st;
  XML_Parser parser = XML_ParserCreate("UTF-8");
  XML_SetUserData(parser, &st);
  XML_SetElementHandler(parser, onStart, onEnd);
  XML_SetCharacterDataHandler(parser, onText);
  const auto status =
      XML_Parse(parser, document.data(), static_cast<int>(document.size()), /*isFinal=*/1);
  std::string error;
  if (status != XML_STATUS_OK) {
    error = std::string(XML_ErrorString(XML_GetErrorCode(parser))) + " at line " +
            std::to_string(XML_GetCurrentLineNumber(parser));
  }
  XML_ParserFree(parser);
  if (!error.empty()) throw std::runtime_error("not well-formed XML: " + error);
  return std::move(st.root);
}

}  // namespace bubblescope::testing
