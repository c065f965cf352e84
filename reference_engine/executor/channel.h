#pragma once
// One stage's end of the socket to a neighbouring stage. A reader thread files every incoming
// message in the stage's mailbox; a sender thread writes outgoing ones in order, so that a send
// returns at once, as an isend on a communication stream does.
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "reference_engine/executor/annotator.h"
#include "reference_engine/executor/mailbox.h"
#include "reference_engine/executor/message.h"

namespace bubblescope::engine {

// One activation or gradient transfer, as truth.json records it. `chunk` is the local op's
// chunk, `peerChunk` the chunk of the op at the other end.
struct TransferRecord {
  int step = 0;
  bool gradient = false;  // F data (activation) or B data (gradient)
  int mb = 0;
  int chunk = 0;
  int peer = 0;
  int peerChunk = 0;
  uint64_t bytes = 0;
  int64_t startNs = 0;
  int64_t endNs = 0;
};

struct OutgoingMessage {
  MessageHeader header;
  Payload payload;
  // The SEND range to open around the write; empty for grad_sync traffic, which is no P2P
  // transfer of the pipeline (no range, no record, no injected delay).
  std::string rangeName;
  TransferRecord record;
  // An injected comm delay: the write waits this long inside the SEND range. Per message, as the
  // delay may hold only some steps' sends (--comm-delay S:MS@FROM-TO).
  int64_t delayNs = 0;
};

class Channel {
 public:
  // Takes ownership of `fd`.
  Channel(int stage, int peer, int fd, Mailbox& mailbox, Annotator& annotator);
  Channel(const Channel&) = delete;
  Channel& operator=(const Channel&) = delete;
  // Without finish(): drops what is queued and stops at once (the stage is failing).
  ~Channel();

  int peer() const { return peer_; }
  // Returns at once. Throws PeerLost if an earlier send on this channel failed.
  void send(OutgoingMessage message);
  // Returns once every message sent so far is written (its SEND range closed), or the channel
  // failed or stopped.
  void waitUntilWritten();
  // Writes everything queued, then closes the socket both ways and joins the threads. Call only
  // when this stage expects nothing more from the peer.
  void finish();
  // The P2P transfers written so far (complete after finish()).
  std::vector<TransferRecord> sends() const;

 private:
  void readLoop();
  void sendLoop();
  void stop(bool drain);

  const int stage_, peer_, fd_;
  Mailbox& mailbox_;
  Annotator& annotator_;

  mutable std::mutex mutex_;
  std::condition_variable queued_;
  std::condition_variable written_;
  std::deque<OutgoingMessage> queue_;
  bool writing_ = false;  // the sender holds a message taken off the queue
  bool closing_ = false;
  bool dropQueued_ = false;
  std::string failure_;
  std::vector<TransferRecord> sent_;

  std::thread reader_;
  std::thread sender_;
};

}  // namespace bubblescope::engine
