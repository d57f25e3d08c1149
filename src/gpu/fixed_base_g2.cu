// Fixed-base multiplication in G2: instantiation of fixed_base_impl.cuh.
#include "gpu/fixed_base_impl.cuh"

namespace cuzk::gpu {

template class FixedBase<math::G2Curve>;

}  // namespace cuzk::gpu
