#include "reference_engine/executor/mlp.h"

#include <cassert>
#include <cmath>
#include <random>

namespace bubblescope::engine {
namespace {

// Streams of the seed, so weights, data and teacher never share random numbers.
constexpr uint64_t kWeightStream = 1, kDataStream = 2, kTeacherStream = 3;

std::mt19937_64 rng(uint64_t seed, uint64_t stream, uint64_t a, uint64_t b = 0) {
  std::seed_seq seq{seed, stream, a, b};
  return std::mt19937_64(seq);
}

// Uniform with variance 1/fanIn: keeps activations of a deep tanh stack in range.
std::vector<float> initMatrix(int width, std::mt19937_64& gen) {
  const float a = std::sqrt(3.0f / static_cast<float>(width));
  std::uniform_real_distribution<float> dist(-a, a);
  std::vector<float> m(static_cast<size_t>(width) * width);
  for (auto& v : m) v = dist(gen);
  return m;
}

// y[b][o] = sum_i x[b][i] * w[o][i]
void matmulTransposed(const float* x, const float* w, float* y, int batch, int width) {
  for (int b = 0; b < batch; ++b) {
    for (int o = 0; o < width; ++o) {
      const float* xr = x + static_cast<size_t>(b) * width;
      const float* wr = w + static_cast<size_t>(o) * width;
      float acc = 0;
      for (int i = 0; i < width; ++i) acc += xr[i] * wr[i];
      y[static_cast<size_t>(b) * width + o] = acc;
    }
  }
}

}  // namespace

DenseLayer::DenseLayer(const MlpShape& shape, uint64_t seed, int virtualStage, bool tanh)
    : width_(shape.width), batch_(shape.batch), tanh_(tanh) {
  auto gen = rng(seed, kWeightStream, static_cast<uint64_t>(virtualStage));
  w_ = initMatrix(width_, gen);
  b_.assign(static_cast<size_t>(width_), 0.0f);
  gw_.assign(w_.size(), 0.0f);
  gb_.assign(b_.size(), 0.0f);
}

Tensor DenseLayer::forward(int mb, const Tensor& x) {
  assert(x.size() == static_cast<size_t>(batch_) * width_);
  Tensor y(x.size());
  matmulTransposed(x.data(), w_.data(), y.data(), batch_, width_);
  for (size_t k = 0; k < y.size(); ++k) {
    y[k] += b_[k % static_cast<size_t>(width_)];
    if (tanh_) y[k] = std::tanh(y[k]);
  }
  saved_[mb] = {x, y, {}};
  return y;
}

Tensor DenseLayer::backwardInput(int mb, const Tensor& dy, bool needInputGrad) {
  Saved& s = saved_.at(mb);
  assert(dy.size() == s.y.size());
  s.dz = dy;
  if (tanh_) {
    for (size_t k = 0; k < dy.size(); ++k) s.dz[k] *= 1.0f - s.y[k] * s.y[k];
  }
  s.y = {};  // what W needs is x and dz
  if (!needInputGrad) return {};
  // dx[b][i] = sum_o dz[b][o] * w[o][i]: axpy rows of w, which vectorises without reassociation
  Tensor dx(dy.size(), 0.0f);
  for (int b = 0; b < batch_; ++b) {
    float* dxr = dx.data() + static_cast<size_t>(b) * width_;
    for (int o = 0; o < width_; ++o) {
      const float g = s.dz[static_cast<size_t>(b) * width_ + o];
      const float* wr = w_.data() + static_cast<size_t>(o) * width_;
      for (int i = 0; i < width_; ++i) dxr[i] += g * wr[i];
    }
  }
  return dx;
}

void DenseLayer::backwardWeight(int mb) {
  auto it = saved_.find(mb);
  assert(it != saved_.end() && !it->second.dz.empty());
  const Saved& s = it->second;
  for (int b = 0; b < batch_; ++b) {
    const float* xr = s.x.data() + static_cast<size_t>(b) * width_;
    for (int o = 0; o < width_; ++o) {
      const float g = s.dz[static_cast<size_t>(b) * width_ + o];
      float* gwr = gw_.data() + static_cast<size_t>(o) * width_;
      for (int i = 0; i < width_; ++i) gwr[i] += g * xr[i];
      gb_[static_cast<size_t>(o)] += g;
    }
  }
  saved_.erase(it);
}

double DenseLayer::gradSquares() const {
  double sum = 0;
  for (float g : gw_) sum += static_cast<double>(g) * g;
  for (float g : gb_) sum += static_cast<double>(g) * g;
  return sum;
}

void DenseLayer::applyGradient(double lr, double factor) {
  const auto step = static_cast<float>(lr * factor);
  for (size_t k = 0; k < w_.size(); ++k) w_[k] -= step * gw_[k];
  for (size_t k = 0; k < b_.size(); ++k) b_[k] -= step * gb_[k];
  std::fill(gw_.begin(), gw_.end(), 0.0f);
  std::fill(gb_.begin(), gb_.end(), 0.0f);
}

Tensor makeInput(const MlpShape& shape, uint64_t seed, int step, int mb) {
  auto gen = rng(seed, kDataStream, static_cast<uint64_t>(step), static_cast<uint64_t>(mb));
  std::normal_distribution<float> dist(0.0f, 1.0f);
  Tensor x(static_cast<size_t>(shape.batch) * shape.width);
  for (auto& v : x) v = dist(gen);
  return x;
}

std::vector<float> teacherWeights(const MlpShape& shape, uint64_t seed) {
  auto gen = rng(seed, kTeacherStream, 0);
  return initMatrix(shape.width, gen);
}

Tensor makeTarget(const MlpShape& shape, const std::vector<float>& teacher, const Tensor& input) {
  Tensor y(input.size());
  matmulTransposed(input.data(), teacher.data(), y.data(), shape.batch, shape.width);
  for (auto& v : y) v = std::tanh(2.0f * v);
  return y;
}

double mseLoss(const Tensor& output, const Tensor& target, Tensor* grad) {
  assert(output.size() == target.size() && !output.empty());
  const double n = static_cast<double>(output.size());
  double sum = 0;
  if (grad) grad->resize(output.size());
  for (size_t k = 0; k < output.size(); ++k) {
    const double d = static_cast<double>(output[k]) - target[k];
    sum += d * d;
    if (grad) (*grad)[k] = static_cast<float>(d / n);
  }
  return 0.5 * sum / n;
}

}  // namespace bubblescope::engine
