// What the engine's machinery costs, apart from the ops: the hand-off of a message between two
// stages (sender thread → socket → reader thread → mailbox → waiting op), the mailbox alone, the
// accuracy of an op's sleep, and one mlp op.
#include <sys/socket.h>

#include <benchmark/benchmark.h>

#include <memory>

#include "reference_engine/executor/channel.h"
#include "reference_engine/executor/clock.h"
#include "reference_engine/executor/mlp.h"

namespace bubblescope::engine {
namespace {

// One message A→B and its answer B→A through real channels: twice the per-hop latency that a
// pipeline pays between a producer's end and its consumer's start.
void BM_ChannelRoundTrip(benchmark::State& state) {
  const size_t bytes = static_cast<size_t>(state.range(0));
  int sv[2];
  socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv);
  Mailbox boxA, boxB;
  Annotator annotA, annotB;
  auto a = std::make_unique<Channel>(0, 1, sv[0], boxA, annotA);
  auto b = std::make_unique<Channel>(1, 0, sv[1], boxB, annotB);
  int mb = 0;
  for (auto _ : state) {
    OutgoingMessage m;
    m.header = {MessageKind::Activation, 0, mb, 0, bytes};
    m.payload.assign(bytes, std::byte{1});
    a->send(std::move(m));
    Payload got = boxB.take(0, {0, MessageKind::Activation, mb, 0});
    OutgoingMessage back;
    back.header = {MessageKind::Gradient, 0, mb, 0, bytes};
    back.payload = std::move(got);
    b->send(std::move(back));
    benchmark::DoNotOptimize(boxA.take(1, {0, MessageKind::Gradient, mb, 0}));
    ++mb;
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * 2 *
                          static_cast<int64_t>(bytes));
  a->finish();
  b->finish();
}
BENCHMARK(BM_ChannelRoundTrip)->Arg(64)->Arg(64 << 10)->Arg(1 << 20)->UseRealTime();

void BM_MailboxPutTake(benchmark::State& state) {
  Mailbox box;
  int mb = 0;
  for (auto _ : state) {
    const MessageKey key{0, MessageKind::Activation, mb++, 0};
    box.put(1, key, Payload(64));
    benchmark::DoNotOptimize(box.take(1, key));
  }
}
BENCHMARK(BM_MailboxPutTake);

// How late a 2 ms op ends (the counter), with the learnt wake-up latency.
void BM_SleepAccuracy(benchmark::State& state) {
  double lateNs = 0;
  for (auto _ : state) {
    const int64_t deadline = monotonicNs() + 2'000'000;
    sleepUntil(deadline);
    lateNs += static_cast<double>(monotonicNs() - deadline);
  }
  state.counters["late_us"] = lateNs / static_cast<double>(state.iterations()) / 1e3;
}
BENCHMARK(BM_SleepAccuracy)->Iterations(200)->UseRealTime();

// One F and one BW of an mlp layer at the default size (width 128, batch 32).
void BM_MlpForwardBackward(benchmark::State& state) {
  MlpShape shape;
  DenseLayer layer(shape, 1, 0, true);
  const Tensor x = makeInput(shape, 1, 0, 0);
  const Tensor dy(x.size(), 0.01f);
  for (auto _ : state) {
    benchmark::DoNotOptimize(layer.forward(0, x));
    benchmark::DoNotOptimize(layer.backwardInput(0, dy));
    layer.backwardWeight(0);
  }
}
BENCHMARK(BM_MlpForwardBackward);

}  // namespace
}  // namespace bubblescope::engine

BENCHMARK_MAIN();
