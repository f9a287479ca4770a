// The last forward pass of RnsScaleDown (ModDown after a key switch, and
// rescale) fused with its finish: the converted rows' shared-memory region
// runs on the NTT's own block layout and each block turns its transformed
// tiles straight into out = (x - t) [D^-1] (+ addend), so the converted
// rows (items x kept rows) are never written out in NTT form and read back.
#pragma once

#include <cuda_runtime_api.h>

#include "evaluator/cuda/device_conversion.h"
#include "evaluator/cuda/eval_kernels.h"
#include "fhe/ntt/cuda/kernel_params.h"

namespace fhe::cuda {

// `region`: forward_batch_before_region of the converted rows (item_count
// blocks of scale_down.kept_rows rows), with or without the pass before the
// region left to this kernel (leave_pass); items as in launch_scale_down_finish,
// whose words it produces. The converted rows are scratch read once: each
// block drops their lines from L2 after loading them, and x's too for the
// items whose x_scratch is set, so dirty lines of dead words are never
// written back to DRAM.
void launch_region_scale_down(const ntt::gpu::ForwardRegion& region, const DeviceScaleDown& scale_down,
                              const ScaleDownItem* items, int item_count, cudaStream_t stream);

}  // namespace fhe::cuda
