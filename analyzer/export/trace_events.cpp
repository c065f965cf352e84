#include "analyzer/export/trace_events.h"

#include <cstdint>
#include <cstdio>

namespace bubblescope::analysis {

std::string jsonString(std::string_view s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out + "\"";
}

std::string microsText(TimeNs ns) {
  const bool negative = ns < 0;
  const uint64_t v = negative ? static_cast<uint64_t>(-(ns + 1)) + 1 : static_cast<uint64_t>(ns);
  char buf[32];
  std::snprintf(buf, sizeof buf, "%s%llu.%03llu", negative ? "-" : "",
                static_cast<unsigned long long>(v / 1000),
                static_cast<unsigned long long>(v % 1000));
  return buf;
}

void TraceEventWriter::next() {
  if (!first_) out_ << ",\n";
  first_ = false;
}

void TraceEventWriter::process(int pid, std::string_view name) {
  next();
  out_ << "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":" << pid
       << ",\"tid\":0,\"args\":{\"name\":" << jsonString(name) << "}},\n"
       << "{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":" << pid
       << ",\"tid\":0,\"args\":{\"sort_index\":" << pid << "}}";
}

void TraceEventWriter::thread(int pid, int tid, std::string_view name) {
  next();
  out_ << "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":" << pid << ",\"tid\":" << tid
       << ",\"args\":{\"name\":" << jsonString(name) << "}},\n"
       << "{\"ph\":\"M\",\"name\":\"thread_sort_index\",\"pid\":" << pid << ",\"tid\":" << tid
       << ",\"args\":{\"sort_index\":" << tid << "}}";
}

void TraceEventWriter::slice(int pid, int tid, std::string_view name, std::string_view category,
                             TimeNs start, TimeNs end, std::string_view color,
                             std::string_view args) {
  next();
  out_ << "{\"ph\":\"X\",\"name\":" << jsonString(name) << ",\"cat\":" << jsonString(category)
       << ",\"pid\":" << pid << ",\"tid\":" << tid << ",\"ts\":" << microsText(start - origin_)
       << ",\"dur\":" << microsText(end - start);
  if (!color.empty()) out_ << ",\"cname\":\"" << color << "\"";
  out_ << ",\"args\":{" << args << "}}";
}

void TraceEventWriter::flow(bool end, int id, std::string_view name, int pid, int tid, TimeNs at) {
  next();
  out_ << (end ? "{\"ph\":\"f\",\"bp\":\"e\"" : "{\"ph\":\"s\"") << ",\"id\":" << id
       << ",\"name\":" << jsonString(name) << ",\"cat\":\"transfer\",\"pid\":" << pid
       << ",\"tid\":" << tid << ",\"ts\":" << microsText(at - origin_) << "}";
}

}  // namespace bubblescope::analysis
