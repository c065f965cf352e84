#include "cli/ps_json.h"

#include "traces/json/json_writer.h"

namespace bubblescope::cli {

void writeProcessesJson(const std::vector<control::AgentStatus>& rows, std::ostream& stream) {
  {
    // Members in the byte order of their names, as nlohmann wrote them (json_writer.h).
    traces::JsonWriter out(stream, 2);
    out.beginArray();
    for (const control::AgentStatus& st : rows) {
      out.beginObject();
      out.field("command", st.command);
      out.field("file", st.file);
      out.field("local_rank", st.localRank);
      out.field("pid", st.pid);
      out.field("rank", st.rank);
      out.field("run_id", st.runId);
      out.field("state", st.state);
      out.field("step", st.step);
      out.key("step_seconds");
      if (st.stepNs > 0) {
        out.value(static_cast<double>(st.stepNs) / 1e9);
      } else {
        out.null();
      }
      out.field("window", st.window);
      out.field("world_size", st.worldSize);
      out.endObject();
    }
    out.endArray();
  }
  stream << "\n";
}

}  // namespace bubblescope::cli
