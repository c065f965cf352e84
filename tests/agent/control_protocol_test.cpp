// The control protocol (requests, replies, escaping), where sockets live, and the step clock.
#include <gtest/gtest.h>

#include <algorithm>

#include "agent/control/protocol.h"
#include "agent/control/runtime_dir.h"
#include "agent/control/step_clock.h"
#include "tests/support/temp_dir.h"

#include <sys/stat.h>
#include <unistd.h>

namespace bubblescope::control {
namespace {

Command parsed(const std::string& line) {
  Command c;
  std::string error;
  EXPECT_TRUE(parseCommand(line, &c, &error)) << line << ": " << error;
  return c;
}

std::string refusal(const std::string& line) {
  Command c;
  std::string error;
  EXPECT_FALSE(parseCommand(line, &c, &error)) << line;
  return error;
}

TEST(ControlProtocol, ParsesEveryRequest) {
  EXPECT_EQ(parsed("status\n").verb, Command::Verb::Status);
  EXPECT_EQ(parsed("stop").verb, Command::Verb::Stop);
  EXPECT_EQ(parsed("hang\n").verb, Command::Verb::Hang);
  EXPECT_EQ(formatCommand(Command{Command::Verb::Hang}), "hang\n");
  EXPECT_NE(refusal("hang steps=2").find("bad argument"), std::string::npos);
  const Command steps = parsed("start steps=2 from=18\n");
  EXPECT_EQ(steps.verb, Command::Verb::Start);
  EXPECT_EQ(steps.steps, 2);
  EXPECT_EQ(steps.fromStep, 18);
  EXPECT_EQ(steps.durationNs, 0);
  const Command duration = parsed("start duration=1.5");
  EXPECT_EQ(duration.durationNs, 1'500'000'000);
  EXPECT_EQ(duration.fromStep, -1);
  EXPECT_EQ(parsed("start duration=0.25 from=7").fromStep, 7);
  EXPECT_EQ(parsed("start steps=1\r\n").steps, 1);
  // Neither steps nor duration: a window open until stop, as a bare NVTX "start" mark.
  const Command open = parsed("start");
  EXPECT_EQ(open.verb, Command::Verb::Start);
  EXPECT_EQ(open.steps, 0);
  EXPECT_EQ(open.durationNs, 0);
}

TEST(ControlProtocol, RefusesMalformedRequestsWithAReason) {
  EXPECT_NE(refusal("launch").find("unknown request"), std::string::npos);
  EXPECT_NE(refusal("start from=3").find("needs steps=N or duration"), std::string::npos);
  EXPECT_NE(refusal("start steps=0").find("bad argument"), std::string::npos);
  EXPECT_NE(refusal("start steps=-1").find("bad argument"), std::string::npos);
  EXPECT_NE(refusal("start steps=2x").find("bad argument"), std::string::npos);
  EXPECT_NE(refusal("start duration=0").find("bad argument"), std::string::npos);
  EXPECT_NE(refusal("start duration=nan").find("bad argument"), std::string::npos);
  EXPECT_NE(refusal("start duration=1e30").find("bad argument"), std::string::npos);
  EXPECT_NE(refusal("start steps=2 duration=1").find("not both"), std::string::npos);
  EXPECT_NE(refusal("stop steps=2").find("bad argument"), std::string::npos);
  EXPECT_NE(refusal("status please").find("bad argument"), std::string::npos);
  // The refusal quotes at most a short, escaped piece of what was sent.
  const std::string longOne = refusal(std::string(400, 'x'));
  EXPECT_LE(std::count(longOne.begin(), longOne.end(), 'x'), 32) << longOne;
  EXPECT_EQ(refusal("st\x01tus").find('\x01'), std::string::npos);
}

TEST(ControlProtocol, FormattedCommandsParseBackToThemselves) {
  for (const std::string line : {"status\n", "stop\n", "start\n", "start steps=2 from=18\n",
                                 "start duration=1.5\n", "start duration=0.001 from=3\n"}) {
    EXPECT_EQ(formatCommand(parsed(line)), line);
  }
}

TEST(ControlProtocol, WatchTakesAKeepAndSnapshotNothing) {
  const Command watch = parsed("watch\n");
  EXPECT_EQ(watch.verb, Command::Verb::Watch);
  EXPECT_EQ(watch.keepNs, 0);  // the agent's default, kDefaultKeepNs
  EXPECT_EQ(parsed("watch keep=2").keepNs, 2'000'000'000);
  EXPECT_EQ(parsed("watch keep=0.5\r\n").keepNs, 500'000'000);
  EXPECT_EQ(parsed("watch keep=600").keepNs, kMaxKeepNs);
  EXPECT_EQ(parsed("snapshot\n").verb, Command::Verb::Snapshot);
  for (const std::string line : {"watch\n", "watch keep=2\n", "watch keep=0.25\n", "snapshot\n"}) {
    EXPECT_EQ(formatCommand(parsed(line)), line);
  }
  Command keep{Command::Verb::Watch};
  keep.keepNs = 2'500'000'001;
  EXPECT_EQ(formatCommand(keep), "watch keep=2.500000001\n");
}

TEST(ControlProtocol, RefusesAMalformedWatchOrSnapshot) {
  EXPECT_NE(refusal("watch keep=0").find("keep=SECONDS"), std::string::npos);
  EXPECT_NE(refusal("watch keep=-1").find("bad argument"), std::string::npos);
  EXPECT_NE(refusal("watch keep=601").find("at most 600"), std::string::npos);
  EXPECT_NE(refusal("watch keep=soon").find("bad argument"), std::string::npos);
  EXPECT_NE(refusal("watch steps=2").find("bad argument"), std::string::npos);
  EXPECT_NE(refusal("watch keep").find("bad argument"), std::string::npos);
  EXPECT_NE(refusal("snapshot keep=2").find("bad argument"), std::string::npos);
  EXPECT_NE(refusal("start keep=2").find("bad argument"), std::string::npos);
  EXPECT_NE(refusal("watching").find("watch [keep=SECONDS], snapshot"), std::string::npos);
}

// Found by control_protocol_fuzz (issue 19): "%.9g" kept 9 digits, so a duration of 92.378564444
// s went out as 92.3785644 and the agent opened a window 44 ns shorter than asked; a long one
// could differ by milliseconds.
TEST(ControlProtocol, DurationsRoundTripToTheNanosecond) {
  const Command c = parsed("start duration=92.3785644444444");
  EXPECT_EQ(c.durationNs, 92'378'564'444);
  EXPECT_EQ(formatCommand(c), "start duration=92.378564444\n");
  EXPECT_EQ(parsed(formatCommand(c)).durationNs, c.durationNs);
  const Command year = parsed("start duration=31622399.999999999");
  EXPECT_EQ(year.durationNs, 31'622'399'999'999'999);
  EXPECT_EQ(parsed(formatCommand(year)).durationNs, year.durationNs);
  EXPECT_EQ(parsed("start duration=2.5e-1").durationNs, 250'000'000);  // other spellings still
  EXPECT_NE(refusal("start duration=31622401").find("bad argument"), std::string::npos);
}

TEST(ControlProtocol, RepliesCarryAnyTextEscaped) {
  Reply r;
  r.ok = true;
  r.fields["command"] = "python train.py --lr=0.1 %x\tü";
  r.fields["pid"] = "42";
  const std::string line = formatReply(r);
  EXPECT_EQ(line.back(), '\n');
  EXPECT_EQ(line.find('\t'), std::string::npos);
  EXPECT_EQ(std::count(line.begin(), line.end(), ' '), 2);  // "ok", two fields
  const auto back = parseReply(line);
  ASSERT_TRUE(back.has_value());
  EXPECT_TRUE(back->ok);
  EXPECT_EQ(back->text("command"), r.fields["command"]);
  EXPECT_EQ(back->integer("pid", -1), 42);
  EXPECT_EQ(back->integer("missing", -7), -7);

  const auto err = parseReply("err message=already%20recording\n");
  ASSERT_TRUE(err.has_value());
  EXPECT_FALSE(err->ok);
  EXPECT_EQ(err->text("message"), "already recording");
  EXPECT_FALSE(parseReply("HTTP/1.1 400 Bad Request").has_value());
  EXPECT_FALSE(parseReply("ok novalue").has_value());
}

TEST(ControlRuntimeDir, AgentPrefersOverrideThenXdgThenTmp) {
  using P = std::filesystem::path;
  EXPECT_EQ(agentRuntimeDirs({"/x/rt", "/run/user/7"}, 7), std::vector<P>{"/x/rt"});
  EXPECT_EQ(agentRuntimeDirs({"", "/run/user/7"}, 7),
            (std::vector<P>{"/run/user/7/bubblescope", "/tmp/bubblescope-7"}));
  EXPECT_EQ(agentRuntimeDirs({"", ""}, 7), std::vector<P>{"/tmp/bubblescope-7"});
  EXPECT_EQ(agentRuntimeDirs({"", "relative"}, 7), std::vector<P>{"/tmp/bubblescope-7"});
}

TEST(ControlRuntimeDir, ClientLooksWhereEveryAgentOfThatUserMayBe) {
  using P = std::filesystem::path;
  // Without XDG_RUNTIME_DIR here, an agent started from a login session is still found.
  EXPECT_EQ(clientRuntimeDirs({"", ""}, 7, 7),
            (std::vector<P>{"/tmp/bubblescope-7", "/run/user/7/bubblescope"}));
  EXPECT_EQ(clientRuntimeDirs({"", "/xdg"}, 7, 7),
            (std::vector<P>{"/xdg/bubblescope", "/tmp/bubblescope-7", "/run/user/7/bubblescope"}));
  // Root looking for user 7: the client's own XDG_RUNTIME_DIR says nothing about user 7.
  EXPECT_EQ(clientRuntimeDirs({"", "/run/user/0"}, 7, 0),
            (std::vector<P>{"/run/user/7/bubblescope", "/tmp/bubblescope-7"}));
  EXPECT_EQ(clientRuntimeDirs({"/x/rt", "/xdg"}, 7, 7), std::vector<P>{"/x/rt"});
}

TEST(ControlRuntimeDir, RefusesDirectoriesOthersCouldReach) {
  testing::TempDir tmp;
  const uid_t me = geteuid();
  std::string why;
  const auto dir = tmp / "rt";
  EXPECT_EQ(inspectRuntimeDir(dir, me, &why), DirState::Missing);
  ASSERT_TRUE(prepareRuntimeDir(dir, me, &why)) << why;
  struct stat st = {};
  ASSERT_EQ(stat(dir.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0700u);
  EXPECT_TRUE(prepareRuntimeDir(dir, me, &why)) << why;  // again: it exists, fine

  ASSERT_EQ(chmod(dir.c_str(), 0750), 0);
  EXPECT_EQ(inspectRuntimeDir(dir, me, &why), DirState::Unsafe);
  EXPECT_EQ(why, "is open to other users (mode 0750, needs 0700)");
  EXPECT_FALSE(prepareRuntimeDir(dir, me, &why));
  ASSERT_EQ(chmod(dir.c_str(), 0700), 0);

  EXPECT_EQ(inspectRuntimeDir(dir, me + 1, &why), DirState::Unsafe);
  EXPECT_EQ(why, "is owned by uid " + std::to_string(me) + ", not " + std::to_string(me + 1));

  const auto link = tmp / "link";
  std::filesystem::create_directory_symlink(dir, link);
  EXPECT_EQ(inspectRuntimeDir(link, me, &why), DirState::Unsafe);
  EXPECT_EQ(why, "is a symbolic link");
  testing::writeFile(tmp / "file", "x");
  EXPECT_EQ(inspectRuntimeDir(tmp / "file", me, &why), DirState::Unsafe);
  EXPECT_EQ(why, "is not a directory");
  EXPECT_FALSE(prepareRuntimeDir(tmp / "no" / "parent", me, &why));
  EXPECT_EQ(why, "cannot be created (No such file or directory)");
}

TEST(ControlRuntimeDir, SocketNamesArePids) {
  EXPECT_EQ(socketFileName(1234), "1234.sock");
  EXPECT_EQ(pidOfSocketFile("1234.sock"), 1234);
  EXPECT_EQ(pidOfSocketFile(".1234.sock.new"), -1);
  EXPECT_EQ(pidOfSocketFile("abc.sock"), -1);
  EXPECT_EQ(pidOfSocketFile(".sock"), -1);
  EXPECT_EQ(pidOfSocketFile("0.sock"), -1);
  EXPECT_EQ(pidOfSocketFile("99999999999.sock"), -1);
}

TEST(ControlStepClock, MeasuresTheStepTimeFromChangesItSawHappen) {
  StepClock c;
  EXPECT_EQ(c.step(), -1);
  c.observe(-1, 0);
  EXPECT_EQ(c.step(), -1);
  c.observe(5, 100);  // already at 5 when first seen: when it began is unknown
  EXPECT_EQ(c.step(), 5);
  EXPECT_EQ(c.periodNs(), -1);
  EXPECT_EQ(c.sinceChangeNs(150), -1);
  c.observe(5, 200);
  c.observe(6, 1000);
  EXPECT_EQ(c.periodNs(), -1);  // one change seen: no rate yet
  EXPECT_EQ(c.sinceChangeNs(1100), 100);
  c.observe(7, 2000);
  EXPECT_EQ(c.periodNs(), 1000);
  c.observe(10, 5000);  // several steps between two samples
  EXPECT_EQ(c.periodNs(), 1000);
  c.observe(0, 6000);  // the counter went back (a new run of steps): start over
  EXPECT_EQ(c.step(), 0);
  EXPECT_EQ(c.periodNs(), -1);
}

TEST(ControlStepClock, KeepsTheLast32Changes) {
  StepClock c;
  c.observe(0, 0);
  for (int64_t s = 1; s <= 40; ++s) c.observe(s, s * (s <= 20 ? 10 : 100));
  // Steps 9..40 kept: 9..20 at 10 ns apart in absolute time, 21..40 at 100.
  EXPECT_EQ(c.periodNs(), (4000 - 90) / 31);
}

}  // namespace
}  // namespace bubblescope::control
