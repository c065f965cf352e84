#pragma once
// Where a stage's incoming messages wait until an op asks for them. Reader threads file messages
// in whatever order they arrive; an op takes exactly the one it needs, so no arrival order can
// deadlock the stage.
#include <condition_variable>
#include <map>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>

#include "reference_engine/executor/message.h"

namespace bubblescope::engine {

// The awaited message can no longer come: its sender closed the channel or the stage is
// shutting down. Not a bug of this stage; a neighbour ended first.
class PeerLost : public std::runtime_error {
 public:
  PeerLost(int peer, const std::string& what) : std::runtime_error(what), peer_(peer) {}
  int peer() const { return peer_; }

 private:
  int peer_;
};

class Mailbox {
 public:
  // Returns false if a message with this key from this peer is already waiting (a protocol bug).
  bool put(int peer, const MessageKey& key, Payload payload);
  // The peer's channel reached its end: nothing more will come from it.
  void closePeer(int peer);
  // Every waiting and future take fails (a send failed: the run is over for this stage).
  void abort(const std::string& why);
  // Blocks until the message is there. Throws PeerLost when it cannot come any more.
  Payload take(int peer, const MessageKey& key);
  size_t waiting() const;

 private:
  mutable std::mutex mutex_;
  std::condition_variable arrived_;
  std::map<std::pair<int, MessageKey>, Payload> messages_;
  std::set<int> closedPeers_;
  std::string abortReason_;
};

}  // namespace bubblescope::engine
