// The client's reading of an agent's replies over a real socket: a refusal sent as the process
// exits is the process gone; any other refusal is an answer.
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>
#include <string>
#include <thread>

#include "agent/control/client.h"
#include "tests/support/temp_dir.h"

namespace bubblescope::control {
namespace {

// Answers one connection on `path` with `message` as a refusal, after reading its request line.
class OneRefusal {
 public:
  OneRefusal(const std::string& path, std::string message) {
    fd_ = ::socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un addr = {};
    addr.sun_family = AF_UNIX;
    std::strncpy(addr.sun_path, path.c_str(), sizeof addr.sun_path - 1);
    if (::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
        ::listen(fd_, 1) != 0) {
      ADD_FAILURE() << "cannot listen on " << path << ": " << std::strerror(errno);
      return;
    }
    thread_ = std::thread([this, message = std::move(message)] {
      const int c = ::accept(fd_, nullptr, nullptr);
      if (c < 0) return;
      char byte = 0;
      while (::read(c, &byte, 1) == 1 && byte != '\n') {
      }
      Reply r;
      r.fields["message"] = message;
      const std::string line = formatReply(r);
      ssize_t ignored = ::write(c, line.data(), line.size());
      (void)ignored;
      ::close(c);
    });
  }
  ~OneRefusal() {
    if (thread_.joinable()) thread_.join();
    ::close(fd_);
  }

 private:
  int fd_ = -1;
  std::thread thread_;
};

Exchange askOnce(const std::string& message) {
  testing::TempDir dir;
  const std::filesystem::path socket = dir.path() / "agent.sock";
  OneRefusal server(socket.string(), message);
  const std::vector<Exchange> e =
      exchangeAll({Target{::getpid(), socket}}, {"snapshot\n"}, std::chrono::seconds(5));
  return e.front();
}

TEST(ControlClient, ARefusalAsTheProcessExitsIsTheProcessGone) {
  const Exchange e = askOnce(std::string(kExitingMessage));
  EXPECT_EQ(e.outcome, Outcome::Gone) << e.detail;
  EXPECT_EQ(e.detail, "exited");
}

TEST(ControlClient, AnyOtherRefusalIsAnAnswer) {
  const Exchange e = askOnce("no memory window: send watch first");
  ASSERT_EQ(e.outcome, Outcome::Answered) << e.detail;
  EXPECT_FALSE(e.reply.ok);
  EXPECT_EQ(e.reply.text("message"), "no memory window: send watch first");
}

}  // namespace
}  // namespace bubblescope::control
