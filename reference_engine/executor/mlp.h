#pragma once
// The model the mlp compute mode trains: one dense layer per virtual stage (tanh, except the last,
// linear), learning a fixed random "teacher" on synthetic data by SGD with gradient clipping.
// Backward is split as the zero-bubble schedules need it: B computes the input gradient, W the
// weight gradient. Pure: every process derives the same weights and data from the seed.
#include <cstddef>
#include <cstdint>
#include <map>
#include <vector>

namespace bubblescope::engine {

using Tensor = std::vector<float>;  // batch × width, row-major

struct MlpShape {
  int width = 128;           // every layer is width → width
  int batch = 32;            // samples per microbatch
  double lr = 4.0;           // the loss is a mean over batch × width, so gradients are small
  double maxGradNorm = 1.0;  // clip the global gradient norm, as Megatron does after grad_sync
};

class DenseLayer {
 public:
  // The weights of virtual stage `virtualStage`, the same in every process for one seed.
  DenseLayer(const MlpShape& shape, uint64_t seed, int virtualStage, bool tanh);

  // Keeps the input and output of microbatch `mb` for its backward.
  Tensor forward(int mb, const Tensor& x);
  // B: the gradient w.r.t. the input (empty when !needInputGrad); keeps what W needs.
  Tensor backwardInput(int mb, const Tensor& dy, bool needInputGrad = true);
  // W: accumulates the weight gradient of microbatch `mb` and frees what it kept.
  void backwardWeight(int mb);

  double gradSquares() const;
  // weights -= lr × factor × gradient; clears the gradient.
  void applyGradient(double lr, double factor);

  // For tests: in-flight microbatches and direct access to parameters and gradients.
  size_t microbatchesHeld() const { return saved_.size(); }
  std::vector<float>& weights() { return w_; }
  const std::vector<float>& weightGrad() const { return gw_; }

 private:
  struct Saved {
    Tensor x, y, dz;
  };
  int width_, batch_;
  bool tanh_;
  std::vector<float> w_, b_, gw_, gb_;  // w_[out * width + in]
  std::map<int, Saved> saved_;
};

// The training data of microbatch `mb` of step `step`: inputs, and the teacher's targets for them.
Tensor makeInput(const MlpShape& shape, uint64_t seed, int step, int mb);
// The teacher: a fixed random linear map squashed by tanh, learnable by the stack and far from
// its starting point. makeTarget applies it.
std::vector<float> teacherWeights(const MlpShape& shape, uint64_t seed);
Tensor makeTarget(const MlpShape& shape, const std::vector<float>& teacher, const Tensor& input);
// Half the mean squared error over the microbatch; `grad` (if given) receives d loss / d output.
double mseLoss(const Tensor& output, const Tensor& target, Tensor* grad);

}  // namespace bubblescope::engine
