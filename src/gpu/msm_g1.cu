// MSM in G1: instantiation of the kernels in msm_impl.cuh, and the window heuristic.
#include "gpu/msm_impl.cuh"

namespace cuzk::gpu {

int msm_default_window_bits(std::size_t n) {
  if (n <= 1) return 4;
  // cost ~ windows * (n + 4 * 2^(c-1)): accumulation vs bucket reduction (each bucket ~2 full adds).
  int best = 4;
  double best_cost = 1e300;
  for (int c = 4; c <= 22; ++c) {
    double cost = double(num_windows(c)) * (double(n) + 4.0 * std::ldexp(1.0, c - 1));
    if (cost < best_cost) {
      best_cost = cost;
      best = c;
    }
  }
  return best;
}

template class Msm<math::G1Curve>;

}  // namespace cuzk::gpu
