// MSM in G2: instantiation of the kernels in msm_impl.cuh.
#include "gpu/msm_impl.cuh"

namespace cuzk::gpu {

template class Msm<math::G2Curve>;

}  // namespace cuzk::gpu
