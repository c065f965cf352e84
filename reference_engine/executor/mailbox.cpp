#include "reference_engine/executor/mailbox.h"

namespace bubblescope::engine {

bool Mailbox::put(int peer, const MessageKey& key, Payload payload) {
  {
    std::lock_guard lock(mutex_);
    if (!messages_.emplace(std::pair{peer, key}, std::move(payload)).second) return false;
  }
  arrived_.notify_all();
  return true;
}

void Mailbox::closePeer(int peer) {
  {
    std::lock_guard lock(mutex_);
    closedPeers_.insert(peer);
  }
  arrived_.notify_all();
}

void Mailbox::abort(const std::string& why) {
  {
    std::lock_guard lock(mutex_);
    if (abortReason_.empty()) abortReason_ = why.empty() ? "aborted" : why;
  }
  arrived_.notify_all();
}

Payload Mailbox::take(int peer, const MessageKey& key) {
  std::unique_lock lock(mutex_);
  const auto id = std::pair{peer, key};
  while (true) {
    if (auto it = messages_.find(id); it != messages_.end()) {
      Payload payload = std::move(it->second);
      messages_.erase(it);
      return payload;
    }
    if (!abortReason_.empty()) throw PeerLost(peer, abortReason_);
    if (closedPeers_.count(peer)) {
      throw PeerLost(peer, "stage " + std::to_string(peer) + " closed its channel");
    }
    arrived_.wait(lock);
  }
}

size_t Mailbox::waiting() const {
  std::lock_guard lock(mutex_);
  return messages_.size();
}

}  // namespace bubblescope::engine
