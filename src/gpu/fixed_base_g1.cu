// Fixed-base multiplication in G1: instantiation of fixed_base_impl.cuh.
#include "gpu/fixed_base_impl.cuh"

namespace cuzk::gpu {

template class FixedBase<math::G1Curve>;

}  // namespace cuzk::gpu
