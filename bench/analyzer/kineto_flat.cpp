// Writes issue 28's utilization-path trace: one rank's PyTorch-profiler (Kineto) JSON with no
// pipeline in it, each iteration a CPU op, the cudaLaunchKernel it made and the kernel, a
// ProfilerStep every 20,000 iterations. The default, 5,233,000 iterations, is 15.7 M events in
// about 2.0 GB, the size of the trace the hardening probes measured at 200 B/event. Every kernel
// leaves a gap of a few microseconds before the next: millions of idle gaps for the analysis.
//   kineto_flat FILE [ITERATIONS]
#include <cstdio>
#include <cstdlib>

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: kineto_flat FILE [ITERATIONS]\n");
    return 2;
  }
  const long long n = argc > 2 ? std::atoll(argv[2]) : 5'233'000;
  FILE* out = std::fopen(argv[1], "w");
  if (!out || n <= 0) {
    std::fprintf(stderr, "%s: cannot be written (or no iterations)\n", argv[1]);
    return 2;
  }
  static char buffer[1 << 22];
  std::setvbuf(out, buffer, _IOFBF, sizeof buffer);
  std::fputs(
      "{\"schemaVersion\":1,\"distributedInfo\":{\"backend\":\"nccl\",\"rank\":0,"
      "\"world_size\":1},\"deviceProperties\":[{\"id\":0,\"name\":\"NVIDIA H100\"}],"
      "\"traceEvents\":[\n",
      out);
  const char* ops[] = {"aten::mm", "aten::add", "aten::gelu", "aten::layer_norm", "aten::softmax"};
  const char* kernels[] = {"sm90_gemm_bf16_128x256", "vectorized_elementwise_kernel",
                           "layer_norm_kernel", "softmax_warp_forward", "gelu_kernel"};
  constexpr long long kPerStep = 20'000, kEvery = 12;  // µs from one iteration to the next
  long long t = 1'000'000;
  for (long long i = 0; i < n; ++i) {
    if (i % kPerStep == 0) {
      std::fprintf(out,
                   "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#%lld\","
                   "\"pid\":1,\"tid\":1,\"ts\":%lld.000,\"dur\":%lld.000},\n",
                   i / kPerStep, t, kPerStep * kEvery);
    }
    const long long k = i % 5;
    std::fprintf(out,
                 "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"%s\",\"pid\":1,\"tid\":1,"
                 "\"ts\":%lld.000,\"dur\":9.000},\n",
                 ops[k], t);
    std::fprintf(out,
                 "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,"
                 "\"tid\":1,\"ts\":%lld.000,\"dur\":4.000,\"args\":{\"correlation\":%lld}},\n",
                 t + 2, i + 1);
    std::fprintf(out,
                 "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"%s\",\"pid\":0,\"tid\":7,"
                 "\"ts\":%lld.000,\"dur\":8.000,\"args\":{\"correlation\":%lld,\"stream\":7,"
                 "\"device\":0}},\n",
                 kernels[k], t + 5, i + 1);
    t += kEvery;
  }
  std::fputs(
      "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":0,\"tid\":0,\"args\":{\"name\":"
      "\"GPU 0\"}}\n]}\n",
      out);
  return std::fclose(out) == 0 ? 0 : 2;
}
