#include "reference_engine/executor/channel.h"

#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <iostream>

#include "reference_engine/executor/clock.h"

namespace bubblescope::engine {
namespace {

// Reads exactly `size` bytes. Returns false when the stream ended first (the peer closed or
// died, possibly in the middle of a message: either way nothing more comes); throws on errors.
bool readFull(int fd, void* data, size_t size) {
  auto* p = static_cast<char*>(data);
  size_t done = 0;
  while (done < size) {
    ssize_t n = ::read(fd, p + done, size - done);
    if (n > 0) {
      done += static_cast<size_t>(n);
    } else if (n == 0 || errno == ECONNRESET) {
      return false;
    } else if (errno != EINTR) {
      throw std::runtime_error(std::string("read failed: ") + std::strerror(errno));
    }
  }
  return true;
}

// Writes header and payload with one system call where the socket buffer allows.
// MSG_NOSIGNAL: a dead peer is an error to report, not a SIGPIPE that kills the stage.
void writeMessage(int fd, const std::array<std::byte, kHeaderBytes>& header,
                  const Payload& payload) {
  iovec iov[2] = {{const_cast<std::byte*>(header.data()), header.size()},
                  {const_cast<std::byte*>(payload.data()), payload.size()}};
  size_t total = header.size() + payload.size();
  size_t done = 0;
  while (done < total) {
    msghdr msg{};
    iovec part[2];
    int count = 0;
    size_t skip = done;
    for (const iovec& v : iov) {
      if (skip >= v.iov_len) {
        skip -= v.iov_len;
        continue;
      }
      part[count++] = {static_cast<char*>(v.iov_base) + skip, v.iov_len - skip};
      skip = 0;
    }
    msg.msg_iov = part;
    msg.msg_iovlen = static_cast<size_t>(count);
    ssize_t n = ::sendmsg(fd, &msg, MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw std::runtime_error(std::strerror(errno));
    }
    done += static_cast<size_t>(n);
  }
}

}  // namespace

Channel::Channel(int stage, int peer, int fd, Mailbox& mailbox, Annotator& annotator)
    : stage_(stage), peer_(peer), fd_(fd), mailbox_(mailbox), annotator_(annotator) {
  reader_ = std::thread([this] { readLoop(); });
  sender_ = std::thread([this] { sendLoop(); });
}

Channel::~Channel() {
  stop(/*drain=*/false);
  ::close(fd_);
}

void Channel::send(OutgoingMessage message) {
  {
    std::lock_guard lock(mutex_);
    if (!failure_.empty()) throw PeerLost(peer_, failure_);
    queue_.push_back(std::move(message));
  }
  queued_.notify_one();
}

void Channel::waitUntilWritten() {
  std::unique_lock lock(mutex_);
  written_.wait(lock,
                [&] { return (queue_.empty() && !writing_) || !failure_.empty() || closing_; });
}

void Channel::finish() {
  stop(/*drain=*/true);
  std::lock_guard lock(mutex_);
  if (!failure_.empty()) throw PeerLost(peer_, failure_);
}

void Channel::stop(bool drain) {
  {
    std::lock_guard lock(mutex_);
    closing_ = true;
    dropQueued_ = dropQueued_ || !drain;
  }
  queued_.notify_one();
  if (sender_.joinable()) sender_.join();
  // Wakes our reader (end of stream) and tells the peer's reader that nothing more comes.
  ::shutdown(fd_, SHUT_RDWR);
  if (reader_.joinable()) reader_.join();
}

std::vector<TransferRecord> Channel::sends() const {
  std::lock_guard lock(mutex_);
  return sent_;
}

void Channel::readLoop() {
  annotator_.nameThisThread("stage " + std::to_string(stage_) + " recv←" + std::to_string(peer_));
  try {
    while (true) {
      std::array<std::byte, kHeaderBytes> raw{};
      if (!readFull(fd_, raw.data(), raw.size())) break;
      MessageHeader header = decodeHeader(raw);
      Payload payload(header.bytes);
      if (!readFull(fd_, payload.data(), payload.size())) break;
      if (!mailbox_.put(peer_, keyOf(header), std::move(payload))) {
        throw FramingError("a message arrived twice");
      }
    }
  } catch (const std::exception& e) {
    // A corrupt stream is a bug worth a line; the end of a stream is not (the peer ended).
    std::cerr << "bubblescope: engine: stage " << stage_ << ": channel from stage " << peer_ << ": "
              << e.what() << "\n";
  }
  mailbox_.closePeer(peer_);
}

void Channel::sendLoop() {
  annotator_.nameThisThread("stage " + std::to_string(stage_) + " send→" + std::to_string(peer_));
  while (true) {
    OutgoingMessage m;
    {
      std::unique_lock lock(mutex_);
      queued_.wait(lock, [&] { return closing_ || !queue_.empty(); });
      if (queue_.empty() || dropQueued_) return;
      m = std::move(queue_.front());
      queue_.pop_front();
      writing_ = true;
    }
    m.header.bytes = m.payload.size();
    const auto header = encodeHeader(m.header);
    try {
      if (m.rangeName.empty()) {
        writeMessage(fd_, header, m.payload);
      } else {
        auto range = annotator_.range(m.rangeName);
        if (m.delayNs > 0) sleepUntil(monotonicNs() + m.delayNs);
        writeMessage(fd_, header, m.payload);
        m.record.bytes = m.payload.size();
        m.record.startNs = range.startNs();
        m.record.endNs = range.end();
      }
    } catch (const std::exception& e) {
      const std::string why = "could not send to stage " + std::to_string(peer_) + ": " + e.what();
      {
        std::lock_guard lock(mutex_);
        failure_ = why;
        writing_ = false;
      }
      written_.notify_all();
      mailbox_.abort(why);
      return;
    }
    {
      std::lock_guard lock(mutex_);
      if (!m.rangeName.empty()) sent_.push_back(m.record);
      writing_ = false;
    }
    written_.notify_all();
  }
}

}  // namespace bubblescope::engine
