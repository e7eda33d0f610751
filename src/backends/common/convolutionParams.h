// Backend-neutral host-side logic of IConvolutionLayer / IDeconvolutionLayer kernels (CPU and CUDA): the node's
// configuration, the split of the node's inputs into the layer's own ones and a fused epilogue's added tensor,
// and the per-run shape checks with their messages.
#pragma once

#include "backends/common/fusedEpilogue.h"
#include "backends/kernel.h"
#include "network/layers/convolutionLayer.h"

#include <cstdint>
#include <vector>

namespace kiln
{

struct ConvConfig
{
    bool deconvolution{false};
    WindowParams params;
    int64_t k{0}; //!< output maps
    int64_t groups{1};
};

//! Reads and validates the node's window attributes, "nbOutputMaps" and "nbGroups".
StatusOr<ConvConfig> readConvConfig(PlanNode const& node, bool deconvolution);

//! Number of the node's inputs that belong to the layer itself (data, kernel tensor, bias tensor): with "fuse.add"
//! the added tensor is the node's last input and is not one of them.
size_t convolutionOwnInputs(PlanNode const& node);

//! Why a convolution kernel cannot take these types (float storage everywhere: data, output, kernel and bias inputs
//! among the node's `own` inputs, the fused addition, the weights); empty when it can.
std::string convolutionTypeProblem(KernelSetup const& setup, size_t own, bool hasAdd);

//! The node's fused epilogue (fusedEpilogue.h), with the added tensor as the last input; a gated activation only with
//! `gateAllowed`.
StatusOr<FusedEpilogue> readConvolutionEpilogue(PlanNode const& node, bool gateAllowed = false);

//! True for the storage types the convolution kernels compute on (kFLOAT, kHALF, kBF16).
bool isConvFloatStorage(nvinfer1::DataType t);

//! Kernel shape as stored: convolution [K, C/G, k...], deconvolution [C, K/G, k...].
std::vector<int64_t> convKernelShape(ConvConfig const& cfg, int64_t c);

//! Spatial geometry of one run normalised to three dimensions (2-D windows get a leading extent-1 depth), with
//! int64 extents; shared by the GPU kernels of convolution, deconvolution and pooling.
struct WindowGeometry
{
    int64_t in[3]{1, 1, 1};
    int64_t out[3]{1, 1, 1};
    int64_t kernel[3]{1, 1, 1};
    int64_t stride[3]{1, 1, 1};
    int64_t dilation[3]{1, 1, 1};
    int64_t padBefore[3]{0, 0, 0};
    int64_t padAfter[3]{0, 0, 0};
};

//! WindowGeometry of a window layer for the concrete extents `ext` (pooling: dilation 1).
WindowGeometry toWindowGeometry(WindowParams const& p, std::vector<WindowExtent> const& ext);

//! Shapes of one run.
struct ConvShapes
{
    int64_t n{0};
    int64_t c{0};
    std::vector<WindowExtent> ext;
    bool kernelTensor{false}; //!< kernel from input 1
    bool biasTensor{false};   //!< bias from input 2
    bool hasBias{false};
};

//! Checks one run's own inputs (data, optional kernel and bias tensors; an input with data == nullptr is absent)
//! and the output against the configuration; `slotKernelCount` / `slotBiasCount` are the weights slots' counts.
//! Messages name the layer.
Status checkConvShapes(PlanNode const& node, ConvConfig const& cfg, std::vector<TensorView> const& inputs,
    std::vector<TensorView> const& outputs, int64_t slotKernelCount, int64_t slotBiasCount, ConvShapes& s);

//! checkConvShapes at reshape: the kernel and bias inputs are present when the node connects them
//! (KernelSetup::inputPresent); data is not looked at. `inputs` are the layer's own inputs (without a fused
//! addition's).
Status convShapes(KernelSetup const& setup, ConvConfig const& cfg, std::vector<TensorView> const& inputs,
    std::vector<TensorView> const& outputs, int64_t slotKernelCount, int64_t slotBiasCount, ConvShapes& s);

} // namespace kiln
