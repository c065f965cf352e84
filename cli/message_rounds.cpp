#include "cli/message_rounds.h"

#include <cstdint>
#include <utility>

#include "traces/model/byte_codec.h"

namespace bubblescope::cli {

OutgoingPieces::OutgoingPieces(std::vector<std::vector<std::string>>&& pieces, size_t roundBytes)
    : pieces_(std::move(pieces)), next_(pieces_.size(), 0), roundBytes_(roundBytes) {}

bool OutgoingPieces::left() const {
  for (size_t p = 0; p < pieces_.size(); ++p) {
    if (next_[p] < pieces_[p].size()) return true;
  }
  return false;
}

std::vector<std::string> OutgoingPieces::nextRound() {
  std::vector<std::string> out(pieces_.size());
  std::vector<size_t> end(pieces_.size());
  for (size_t p = 0; p < pieces_.size(); ++p) {
    // Whole pieces up to the round's size; at least one, however large.
    size_t bytes = 0, e = next_[p];
    while (e < pieces_[p].size() &&
           (e == next_[p] || bytes + pieces_[p][e].size() <= roundBytes_)) {
      bytes += pieces_[p][e].size();
      ++e;
    }
    end[p] = e;
  }
  // Whether anything is left is known before the first byte is framed: every message says it.
  bool more = false;
  for (size_t p = 0; p < pieces_.size(); ++p) more = more || end[p] < pieces_[p].size();
  for (size_t p = 0; p < pieces_.size(); ++p) {
    size_t bytes = 1;
    for (size_t i = next_[p]; i < end[p]; ++i) bytes += sizeof(uint64_t) + pieces_[p][i].size();
    out[p].reserve(bytes);
    traces::ByteWriter w(out[p]);
    w.value<uint8_t>(more ? 1 : 0);
    for (size_t i = next_[p]; i < end[p]; ++i) {
      w.text(pieces_[p][i]);
      std::string().swap(pieces_[p][i]);
    }
    next_[p] = end[p];
  }
  return out;
}

bool piecesLeftAfter(std::string_view message) {
  return !message.empty() && message[0] != 0;
}

bool takePieces(std::string_view message, const std::function<void(std::string_view)>& take) {
  traces::ByteReader r(message);
  r.value<uint8_t>();  // the flag: a message without it throws
  while (!r.done()) take(r.textView());
  return piecesLeftAfter(message);
}

}  // namespace bubblescope::cli
