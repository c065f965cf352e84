#include "traces/model/memory.h"

namespace bubblescope::traces {
namespace {

template <class Table>
size_t columnBytes(const Table& table) {
  size_t bytes = 0;
  const_cast<Table&>(table).forEachColumn([&](const auto& column) {
    bytes += column.capacity() * sizeof(typename std::decay_t<decltype(column)>::value_type);
  });
  return bytes;
}

}  // namespace

size_t eventMemoryBytes(const RankTrace& t) {
  size_t bytes = columnBytes(*t.ranges) + columnBytes(*t.marks) + columnBytes(*t.kernels) +
                 columnBytes(*t.memcpys) + columnBytes(*t.memsets) + columnBytes(*t.syncs) +
                 columnBytes(*t.apiCalls) + columnBytes(*t.ncclCalls) +
                 columnBytes(*t.correlations) + columnBytes(*t.memory);
  for (size_t i = 0; i < t.strings.size(); ++i) {
    bytes += t.strings.at(static_cast<StringId>(i)).size() + sizeof(std::string);
  }
  return bytes;
}

}  // namespace bubblescope::traces
