#include "traces/import/collectives.h"

#include <cctype>
#include <charconv>
#include <string>

namespace bubblescope::traces::import {
namespace {

// Lower case without '_' or ' ': "_all_gather_base" and "allgather_base" compare equal.
std::string squash(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    if (c == '_' || c == ' ') continue;
    out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  }
  return out;
}

int parseInt(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  int v = -1;
  std::from_chars(s.data(), s.data() + s.size(), v);
  return v;
}

}  // namespace

std::optional<NcclOp> collectiveOp(std::string_view name) {
  std::string n = squash(name);
  for (const char* suffix : {"coalesced", "base", "intotensor", "tensor", "multigpu"}) {
    if (n.size() > std::string_view(suffix).size() && n.ends_with(suffix)) {
      n.resize(n.size() - std::string_view(suffix).size());
    }
  }
  if (n.starts_with("nccl")) n.erase(0, 4);
  if (n == "send" || n == "isend") return NcclOp::Send;
  if (n == "recv" || n == "irecv" || n == "recvanysource") return NcclOp::Recv;
  if (n == "allreduce" || n == "barrier") return NcclOp::AllReduce;  // barrier is an allreduce
  if (n == "allgather") return NcclOp::AllGather;
  if (n == "reducescatter") return NcclOp::ReduceScatter;
  if (n == "broadcast") return NcclOp::Broadcast;
  if (n == "reduce") return NcclOp::Reduce;
  if (n == "alltoall" || n == "alltoallv" || n == "alltoallsingle") return NcclOp::AllToAll;
  if (n == "gather" || n == "scatter") return NcclOp::Unknown;  // p2p groups underneath
  return std::nullopt;
}

std::optional<NcclOp> ncclApiOp(std::string_view name) {
  if (!name.starts_with("nccl")) return std::nullopt;
  const std::string n = squash(name.substr(4));
  if (n == "groupstart") return NcclOp::GroupStart;
  if (n == "groupend") return NcclOp::GroupEnd;
  if (n == "comminitrank" || n == "comminitall" || n == "comminitrankconfig") {
    return NcclOp::CommInitRank;
  }
  if (n == "commsplit") return NcclOp::CommSplit;
  if (n == "commdestroy" || n == "commabort") return NcclOp::CommDestroy;
  return collectiveOp(n);
}

std::optional<NcclTitle> parseNcclTitle(std::string_view t) {
  if (!t.starts_with("nccl:")) return std::nullopt;
  t.remove_prefix(5);
  const size_t space = t.find(' ');
  auto op = collectiveOp(t.substr(0, space));
  if (!op) return std::nullopt;
  NcclTitle title{*op, -1};
  if (space != std::string_view::npos) {
    // "send 0->1" names the destination after "->", "recv 1<-0" the source after "<-".
    const std::string_view rest = t.substr(space + 1);
    for (std::string_view arrow : {"->", "<-"}) {
      const size_t a = rest.find(arrow);
      if (a != std::string_view::npos) title.peer = parseInt(rest.substr(a + 2));
    }
  }
  return title;
}

std::optional<DataType> torchDataType(std::string_view name) {
  const std::string n = squash(name);
  // ncclInt8 0, Uint8 1, Int32 2, Uint32 3, Int64 4, Uint64 5, Float16 6, Float32 7, Float64 8,
  // Bfloat16 9, Float8e4m3 10, Float8e5m2 11 (nccl.h).
  if (n == "float" || n == "float32") return DataType{7, 4};
  if (n == "bfloat16") return DataType{9, 2};
  if (n == "half" || n == "float16") return DataType{6, 2};
  if (n == "double" || n == "float64") return DataType{8, 8};
  if (n == "int" || n == "int32") return DataType{2, 4};
  if (n == "long" || n == "int64") return DataType{4, 8};
  if (n == "byte" || n == "uint8" || n == "bool") return DataType{1, 1};
  if (n == "char" || n == "int8") return DataType{0, 1};
  if (n == "short" || n == "int16") return DataType{6, 2};  // no 16-bit int in NCCL: same size
  if (n == "uint32") return DataType{3, 4};
  if (n == "uint64") return DataType{5, 8};
  if (n.starts_with("float8e4m3")) return DataType{10, 1};
  if (n.starts_with("float8e5m2")) return DataType{11, 1};
  return std::nullopt;
}

uint64_t stableHash(std::string_view s) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

}  // namespace bubblescope::traces::import
