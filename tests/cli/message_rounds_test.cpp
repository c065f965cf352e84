// The move of `analyze` under MPI cut into rounds (cli/message_rounds.h): every piece arrives
// once, whole and in order, each round's message to a peer within its size but for a piece larger
// than it, and every message says whether any process has pieces left, so all agree on the end.
#include "cli/message_rounds.h"

#include <gtest/gtest.h>

#include <random>

namespace bubblescope::cli {
namespace {

// Plays the rounds of several processes at once, as the exchange would carry them: what each
// received from each, in order, and how many rounds ran.
struct Played {
  std::vector<std::vector<std::vector<std::string>>> got;  // got[to][from]: pieces in order
  size_t rounds = 0;
  size_t largestMessage = 0;
};
Played play(std::vector<std::vector<std::vector<std::string>>> sent, size_t roundBytes) {
  const size_t n = sent.size();
  std::vector<OutgoingPieces> out;
  for (auto& pieces : sent) out.emplace_back(std::move(pieces), roundBytes);
  Played p;
  p.got.assign(n, std::vector<std::vector<std::string>>(n));
  for (bool more = true; more;) {
    ++p.rounds;
    std::vector<std::vector<std::string>> messages;
    for (auto& o : out) messages.push_back(o.nextRound());
    // Every process reads every message sent it, its own too; all must agree on whether more come.
    std::vector<bool> moreSeen(n, false);
    for (size_t to = 0; to < n; ++to) {
      for (size_t from = 0; from < n; ++from) {
        const std::string& m = messages[from][to];
        p.largestMessage = std::max(p.largestMessage, m.size());
        const bool left =
            takePieces(m, [&](std::string_view piece) { p.got[to][from].emplace_back(piece); });
        moreSeen[to] = moreSeen[to] || left;
      }
    }
    for (size_t to = 1; to < n; ++to) EXPECT_EQ(moreSeen[to], moreSeen[0]) << "round " << p.rounds;
    more = moreSeen[0];
    bool anyLeft = false;
    for (const auto& o : out) anyLeft = anyLeft || o.left();
    EXPECT_EQ(more, anyLeft);
  }
  return p;
}

TEST(MessageRounds, EveryPieceOnceWholeInOrderWithinTheRoundSize) {
  std::mt19937 rng(20261203);
  for (int trial = 0; trial < 50; ++trial) {
    const size_t n = 1 + rng() % 5;
    const size_t roundBytes = 1 + rng() % 200;
    std::vector<std::vector<std::vector<std::string>>> sent(
        n, std::vector<std::vector<std::string>>(n));
    size_t largestPiece = 0;
    for (size_t from = 0; from < n; ++from) {
      for (size_t to = 0; to < n; ++to) {
        if (to == from) continue;
        for (size_t k = rng() % 6; k > 0; --k) {
          std::string piece(rng() % 300, static_cast<char>('a' + rng() % 26));
          largestPiece = std::max(largestPiece, piece.size());
          sent[from][to].push_back(std::move(piece));
        }
      }
    }
    const auto expected = sent;
    const Played p = play(std::move(sent), roundBytes);
    SCOPED_TRACE("trial " + std::to_string(trial) + ": " + std::to_string(n) +
                 " processes, rounds of " + std::to_string(roundBytes) + " bytes");
    for (size_t to = 0; to < n; ++to) {
      for (size_t from = 0; from < n; ++from) EXPECT_EQ(p.got[to][from], expected[from][to]);
    }
    // A message: its flag, and each piece (at most 5 here) with its size; more than the round only
    // for a piece larger than it, alone.
    const size_t framed = 1 + 5 * 8 + std::max(largestPiece, roundBytes);
    EXPECT_LE(p.largestMessage, framed);
  }
}

TEST(MessageRounds, APieceLargerThanARoundGoesAloneAndNothingLeftIsOneRound) {
  std::vector<std::vector<std::vector<std::string>>> sent(2,
                                                          std::vector<std::vector<std::string>>(2));
  sent[0][1] = {std::string(10, 'x'), std::string(3, 'y'), std::string(3, 'z'),
                std::string(9, 'w')};
  const Played p = play(sent, 6);
  // 10 alone, then 3 + 3, then 9 alone.
  EXPECT_EQ(p.rounds, 3u);
  EXPECT_EQ(p.got[1][0], sent[0][1]);
  EXPECT_TRUE(p.got[0][1].empty());

  // Nothing to send: one round of flags, which say so.
  const Played none = play({{{}, {}}, {{}, {}}}, 6);
  EXPECT_EQ(none.rounds, 1u);
  EXPECT_EQ(none.largestMessage, 1u);
}

TEST(MessageRounds, BytesThatAreNotARoundsMessageThrow) {
  auto ignore = [](std::string_view) {};
  EXPECT_THROW(takePieces("", ignore), std::runtime_error);
  std::string m(1, '\0');
  m += "abc";  // a size cut short
  EXPECT_THROW(takePieces(m, ignore), std::runtime_error);
  std::string past(1, '\1');
  const uint64_t size = 100;
  past.append(reinterpret_cast<const char*>(&size), sizeof size);
  past += "short";
  EXPECT_THROW(takePieces(past, ignore), std::runtime_error);
}

}  // namespace
}  // namespace bubblescope::cli
