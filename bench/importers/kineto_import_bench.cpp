// Kineto JSON import speed and memory: generates a large synthetic PyTorch-profiler trace (the
// event mix and argument sizes of real ones: CPU ops with shapes, runtime calls, long templated
// kernel names, flow arrows, annotations), imports it on one core, and reports MB/s of
// uncompressed JSON and the peak heap the import used against the model it built.
//
// Real traces given with --file (plain or gzip) are measured too, decompressed first.
//
//   kineto_import_bench [--mb 256] [--dir /tmp] [--no-gzip] [--file TRACE]...
#include <unistd.h>
#include <zlib.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <new>
#include <string>
#include <vector>

#include "bench/support/heap_counter.h"
#include "bench/support/resident_peak.h"
#include "traces/import/chrome_json/chrome_trace_import.h"
#include "traces/import/chrome_json/trace_event.h"
#include "traces/model/memory.h"

// Every heap allocation is counted (heap_counter.h): the import's peak against the model it
// leaves behind.
namespace {

namespace fs = std::filesystem;
using bubblescope::traces::import::importChromeTraceFile;
using bubblescope::traces::import::ImportedFile;

std::string us(int64_t ns) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%lld.%03lld", static_cast<long long>(ns / 1000),
                static_cast<long long>(ns % 1000));
  return buf;
}

// Kernel names as long as real ones (templated GEMMs, elementwise lambdas).
std::vector<std::string> kernelNames() {
  std::vector<std::string> names;
  for (int i = 0; i < 300; ++i) {
    names.push_back(
        "void at::native::elementwise_kernel<128, 2, at::native::gpu_kernel_impl_nocast<at::"
        "native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() "
        "const::{lambda()#" +
        std::to_string(i) +
        "}::operator()() const::{lambda(float)#1}> >(at::TensorIteratorBase&, "
        "at::native::direct_copy_kernel_cuda const&)::{lambda(int)#1}>(int, T3)");
    names.push_back(
        "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x256x64_warpgroupsize2x1x1_"
        "execute_segment_k_off_kernel__5x_cublas_" +
        std::to_string(i));
  }
  return names;
}

// Writes about `targetBytes` of Kineto JSON: each "op" is a CPU op with a nested op, a launch, its
// kernel and the ac2g flow pair, as torch.profiler writes them.
size_t generate(const fs::path& file, size_t targetBytes) {
  std::ofstream out(file, std::ios::binary);
  out << "{\n  \"schemaVersion\": 1,\n  \"deviceProperties\": [{\"id\": 0, \"name\": \"NVIDIA "
         "H100 80GB HBM3\", \"totalGlobalMem\": 85031714816, \"numSms\": 132}],\n"
         "  \"distributedInfo\": {\"backend\": \"nccl\", \"rank\": 0, \"world_size\": 8, "
         "\"pg_count\": 1, \"pg_config\": [{\"pg_name\": \"0\", \"pg_desc\": \"default_pg\", "
         "\"backend_config\": \"cuda:nccl\", \"pg_size\": 8, \"ranks\": [0, 1, 2, 3, 4, 5, 6, "
         "7]}], \"nccl_version\": \"2.21.5\"},\n  \"displayTimeUnit\": \"ms\",\n"
         "  \"baseTimeNanoseconds\": 1711964646000000000,\n  \"traceEvents\": [\n";
  const auto names = kernelNames();
  const char* ops[] = {"aten::linear", "aten::addmm",   "aten::mul",
                       "aten::add_",   "aten::copy_",   "aten::layer_norm",
                       "aten::gelu",   "aten::softmax", "aten::bmm"};
  std::string buf;
  buf.reserve(1 << 20);
  size_t written = 0;
  int64_t t = 4458676388068751, ext = 1, corr = 100000;
  for (int64_t i = 0; written < targetBytes; ++i) {
    if (i % 20000 == 0) {
      buf += "  {\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#" +
             std::to_string(i / 20000) +
             "\", \"pid\": 2910249, \"tid\": 2910249, \"ts\": " + us(t) +
             ", \"dur\": 1000000.000, \"args\": {\"External id\": " + std::to_string(ext++) +
             ", \"Record function id\": 0, \"Ev Idx\": 0}},\n";
    }
    const char* op = ops[i % 9];
    const std::string& kernel = names[static_cast<size_t>(i) % names.size()];
    const std::string e = std::to_string(ext++), c = std::to_string(corr++);
    buf +=
        "  {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"" + std::string(op) +
        "\", \"pid\": 2910249, \"tid\": 2910249, \"ts\": " + us(t) +
        ", \"dur\": 21.337, \"args\": {\"External id\": " + e +
        ", \"Record function id\": 0, \"Sequence number\": " + std::to_string(i) +
        ", \"Fwd thread id\": 0, \"Ev Idx\": " + std::to_string(i) +
        ", \"Input Dims\": [[4096, 8192], [8192, 8192], []], \"Input type\": [\"c10::BFloat16\", "
        "\"c10::BFloat16\", \"\"]}},\n";
    buf +=
        "  {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::empty_strided\", \"pid\": "
        "2910249, \"tid\": 2910249, \"ts\": " +
        us(t + 1200) + ", \"dur\": 3.108, \"args\": {\"External id\": " + std::to_string(ext++) +
        ", \"Record function id\": 0, \"Ev Idx\": " + std::to_string(i) + "}},\n";
    buf +=
        "  {\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": "
        "2910249, \"tid\": 2910249, \"ts\": " +
        us(t + 5300) + ", \"dur\": 7.414, \"args\": {\"External id\": " + e +
        ", \"cbid\": 211, \"correlation\": " + c + "}},\n";
    buf += "  {\"ph\": \"s\", \"id\": " + c +
           ", \"pid\": 2910249, \"tid\": 2910249, \"ts\": " + us(t + 5300) +
           ", \"cat\": \"ac2g\", \"name\": \"ac2g\"},\n";
    buf += "  {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"" + kernel +
           "\", \"pid\": 0, \"tid\": 7, \"ts\": " + us(t + 9100) +
           ", \"dur\": 41.407, \"args\": {\"External id\": " + e +
           ", \"queued\": 0, \"device\": 0, \"context\": 1, \"stream\": 7, \"correlation\": " + c +
           ", \"registers per thread\": 40, \"shared memory\": 400, \"blocks per SM\": 4.740741, "
           "\"warps per SM\": 75.851852, \"grid\": [512, 1, 1], \"block\": [512, 1, 1], \"est. "
           "achieved occupancy %\": 75}},\n";
    buf += "  {\"ph\": \"f\", \"id\": " + c + ", \"pid\": 0, \"tid\": 7, \"ts\": " + us(t + 9100) +
           ", \"cat\": \"ac2g\", \"name\": \"ac2g\", \"bp\": \"e\"},\n";
    if (i % 50 == 0) {
      buf +=
          "  {\"ph\": \"X\", \"cat\": \"gpu_memcpy\", \"name\": \"Memcpy DtoD (Device -> "
          "Device)\", \"pid\": 0, \"tid\": 7, \"ts\": " +
          us(t + 60000) + ", \"dur\": 5.088, \"args\": {\"External id\": " + e +
          ", \"device\": 0, \"context\": 1, \"stream\": 7, \"correlation\": " + c +
          ", \"bytes\": 4000, \"memory bandwidth (GB/s)\": 0.7861635220125787}},\n";
    }
    t += 23451;
    if (buf.size() > (1 << 20) - 8192) {
      out << buf;
      written += buf.size();
      buf.clear();
    }
  }
  buf +=
      "  {\"ph\": \"i\", \"name\": \"Record Window End\", \"s\": \"g\", \"pid\": \"\", "
      "\"tid\": \"\", \"ts\": " +
      us(t) + "}\n  ],\n  \"traceName\": \"bench.json\"\n}\n";
  out << buf;
  written += buf.size();
  return written;
}

// gzread passes a plain file through unchanged.
size_t gunzipFile(const fs::path& from, const fs::path& to) {
  gzFile gz = gzopen(from.c_str(), "rb");
  if (!gz) return 0;
  std::ofstream out(to, std::ios::binary);
  std::vector<char> buf(1 << 20);
  size_t total = 0;
  for (int n; (n = gzread(gz, buf.data(), static_cast<unsigned>(buf.size()))) > 0;) {
    out.write(buf.data(), n);
    total += static_cast<size_t>(n);
  }
  gzclose(gz);
  return total;
}

void gzipFile(const fs::path& from, const fs::path& to) {
  std::ifstream in(from, std::ios::binary);
  gzFile gz = gzopen(to.c_str(), "wb1");
  std::vector<char> buf(1 << 20);
  while (in.read(buf.data(), static_cast<std::streamsize>(buf.size())) || in.gcount() > 0) {
    gzwrite(gz, buf.data(), static_cast<unsigned>(in.gcount()));
  }
  gzclose(gz);
}

double cpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

void measure(const fs::path& file, size_t jsonBytes, const std::string& label) {
  bubblescope::bench::restartResidentPeak();
  const long rssBefore = bubblescope::bench::residentPeakKiB();
  const int64_t before = bubblescope::bench::restartHeapPeak();
  const auto wall0 = std::chrono::steady_clock::now();
  const double cpu0 = cpuSeconds();
  ImportedFile f = importChromeTraceFile(file);
  const double cpu = cpuSeconds() - cpu0;
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  const auto& t = f.ranks.at(0);
  const double model = static_cast<double>(bubblescope::traces::eventMemoryBytes(t));
  const double peak = static_cast<double>(bubblescope::bench::heapPeakBytes() - before);
  const long rssPeak = bubblescope::bench::residentPeakKiB();
  const double mb = static_cast<double>(jsonBytes) / 1e6;
  std::printf(
      "%-6s %8.1f MB JSON  %9zu events  %6.2f s wall  %6.2f s cpu  %7.1f MB/s (cpu)  "
      "model %7.1f MB  heap peak %7.1f MB = %.2fx model  RSS peak +%ld MB\n",
      label.c_str(), mb, t.eventCount(), wall, cpu, mb / cpu, model / 1e6, peak / 1e6, peak / model,
      (rssPeak - rssBefore) / 1024);
}

}  // namespace

int main(int argc, char** argv) {
  size_t targetMb = 256;
  fs::path dir = fs::temp_directory_path();
  bool gzip = true;
  std::vector<fs::path> real;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--mb" && i + 1 < argc)
      targetMb = std::strtoul(argv[++i], nullptr, 10);
    else if (a == "--dir" && i + 1 < argc)
      dir = argv[++i];
    else if (a == "--no-gzip")
      gzip = false;
    else if (a == "--file" && i + 1 < argc)
      real.emplace_back(argv[++i]);
    else {
      std::fprintf(
          stderr,
          "usage: kineto_import_bench [--mb N] [--dir DIR] [--no-gzip] [--file TRACE]...\n");
      return 2;
    }
  }
  const auto kernels = bubblescope::traces::import::jsonKernels();
  std::printf(
      "simdjson kernels: structure (stage 1, chosen at run time) %.*s, values (compiled "
      "in) %.*s\n",
      static_cast<int>(kernels.active.size()), kernels.active.data(),
      static_cast<int>(kernels.builtin.size()), kernels.builtin.data());
  for (const fs::path& f : real) {
    const fs::path plain = dir / ("bubblescope-bench-" + std::to_string(getpid()) + "-" +
                                  f.filename().string() + ".json");
    const size_t bytes = gunzipFile(f, plain);
    if (bytes == 0) {
      std::fprintf(stderr, "%s: cannot be read\n", f.c_str());
      return 2;
    }
    measure(plain, bytes, f.filename().string());
    measure(plain, bytes, f.filename().string());
    fs::remove(plain);
  }
  if (targetMb == 0) return 0;
  const std::string stem = "bubblescope-bench-" + std::to_string(getpid()) + "-kineto.json";
  const fs::path json = dir / stem;
  const fs::path gz = dir / (stem + ".gz");
  std::printf("generating %zu MB of Kineto JSON in %s ...\n", targetMb, dir.c_str());
  const size_t bytes = generate(json, targetMb * 1000 * 1000);
  measure(json, bytes, "plain");
  measure(json, bytes, "plain");  // warm page cache: the figure to quote
  if (gzip) {
    gzipFile(json, gz);
    std::printf("gzip: %.1f MB compressed\n", static_cast<double>(fs::file_size(gz)) / 1e6);
    measure(gz, bytes, "gzip");
    fs::remove(gz);
  }
  fs::remove(json);
  return 0;
}
