// Shared declarations of the CUDA convolution and deconvolution kernels: the kernel object (convolution.cu, one
// class for both, as on the CPU), the plain direct kernels of the "kiln" tactic and the pointwise epilogue
// (convolutionDirect.cu), the depthwise tactic (convolutionDepthwise.cu), the gemm tactic of 1x1 convolutions
// (convolutionGemm.cu) and the pointwise tactics of small-C 1x1 convolutions (convolutionPointwise.cu). Geometry is
// normalised to 5-D [N, C, D, H, W] (2-D layers have D = 1).
#pragma once

#include "backends/common/convolutionParams.h"
#include "backends/common/fusedEpilogue.h"
#include "backends/cuda/cudaKernel.h"

#include <cuda_runtime_api.h>

#include <cstdint>
#include <string>
#include <vector>

namespace kiln::cuda
{

//! Tactic names of the convolution family.
constexpr char const* kTACTIC_CUDNN = "cudnn";
constexpr char const* kTACTIC_KILN = "kiln";
//! Depthwise convolutions (groups == input channels == output maps, constant weights): convolutionDepthwise.cu. On
//! kHWC8 tensors three layouts are separate tactics, timed per layer: register tiles ("depthwise", also the linear
//! kernel), one pixel per thread ("depthwise.pixel"), strips of rows ("depthwise.strip").
constexpr char const* kTACTIC_DEPTHWISE = "depthwise";
constexpr char const* kTACTIC_DEPTHWISE_PIXEL = "depthwise.pixel";
constexpr char const* kTACTIC_DEPTHWISE_STRIP = "depthwise.strip";
//! 1x1 convolutions without padding, groups 1, FP16/BF16 (kHWC8 with stride 1, or linear with spatial extents 1) as
//! one cuBLASLt product with its epilogue: convolutionGemm.cu.
constexpr char const* kTACTIC_GEMM = "gemm";
//! 1x1 convolutions with stride 1, no padding, groups 1 on kHWC8 FP16/BF16 tensors of at most 64 (padded) input
//! channels, the whole epilogue in one kernel: tensor-core mma.sync ("pointwise") or CUDA-core FMAs
//! ("pointwise.fma"), timed against each other and the other tactics: convolutionPointwise.cu.
constexpr char const* kTACTIC_POINTWISE = "pointwise";
constexpr char const* kTACTIC_POINTWISE_FMA = "pointwise.fma";
//! cuDNN's legacy convolution calls alone (no graph API): never offered for timing; tests force it.
constexpr char const* kTACTIC_CUDNN_LEGACY = "cudnn-legacy";

//! What is applied to each output value v of [N, K, D, H, W]: act(v + bias[k] + add[...]) (each part optional).
struct ConvEpilogueDev
{
    void const* bias{nullptr}; //!< [K], any float storage type
    nvinfer1::DataType biasType{nvinfer1::DataType::kFLOAT};
    void const* add{nullptr};
    nvinfer1::DataType addType{nvinfer1::DataType::kFLOAT};
    int64_t addStrides[5]{}; //!< element strides of the added tensor over [N, K, D, H, W] (0: broadcast)
    bool hasActivation{false};
    nvinfer1::ActivationType activation{nvinfer1::ActivationType::kRELU};
    float alpha{0.F};
    float beta{0.F};
};

//! Operands of a direct convolution / deconvolution (5-D geometry, NCDHW tensors, any float storage types).
struct DirectConvArgs
{
    void const* x{nullptr};
    nvinfer1::DataType xType{nvinfer1::DataType::kFLOAT};
    void const* w{nullptr}; //!< convolution [K, C/G, k...], deconvolution [C, K/G, k...]
    nvinfer1::DataType wType{nvinfer1::DataType::kFLOAT};
    void* y{nullptr};
    nvinfer1::DataType yType{nvinfer1::DataType::kFLOAT};
    int64_t n{0};
    int64_t c{0};
    int64_t k{0};
    int64_t groups{1};
    WindowGeometry g;
    ConvEpilogueDev epilogue;
};

//! The "kiln" tactic: one thread per output value, float accumulation, epilogue applied before the store.
Status launchDirectConvolution(DirectConvArgs const& a, cudaStream_t stream);
Status launchDirectDeconvolution(DirectConvArgs const& a, cudaStream_t stream);

//! Pointwise pass dst[n, k, d, h, w] = epilogue(src[n, k, d + offset[0], h + offset[1], w + offset[2]]) over the
//! 5-D dst extents; src positions outside srcDims read 0 (zero padding / cropping / type conversion in one pass).
//! src may equal dst (in place) when the offsets are 0 and the extents agree.
struct ConvPointwiseArgs
{
    void const* src{nullptr};
    nvinfer1::DataType srcType{nvinfer1::DataType::kFLOAT};
    int64_t srcDims[5]{};
    int64_t offset[3]{};
    void* dst{nullptr};
    nvinfer1::DataType dstType{nvinfer1::DataType::kFLOAT};
    int64_t dstDims[5]{};
    ConvEpilogueDev epilogue;
};
Status launchConvPointwise(ConvPointwiseArgs const& a, cudaStream_t stream);

//! The shape checks of a convolution-family reshape: the fused addition's input is there when the node has one
//! (`hasAdd`: the last input), then checkConvShapes on the reshape views (kernelCommon.cuh) of the layer's own
//! inputs, which `inputs` receives. Messages start with `label`.
Status checkConvReshape(KernelSetup const& setup, ConvConfig const& cfg, bool hasAdd,
    std::vector<TensorView> const& allInputs, std::vector<TensorView> const& outputs, int64_t kernelCount,
    int64_t biasCount, std::string const& label, std::vector<TensorView>& inputs, ConvShapes& shapes);

//! Strides of `add` (dims broadcastable to `out`, rank <= out's) over the 5-D normalised output index space.
StatusOr<std::vector<int64_t>> addStrides5(nvinfer1::Dims const& add, nvinfer1::Dims const& out);

//! True when the depthwise tactic can run the forward convolution of `setup` (its types, formats, geometry and
//! constant weights; the channel count is checked at reshape).
bool depthwiseApplies(KernelSetup const& setup, ConvConfig const& cfg, FusedEpilogue const& epilogue);

//! The depthwise tactics that apply to `setup` (empty when depthwiseApplies is false): "depthwise", and on kHWC8
//! tensors the pixel and strip layouts where their kernels are instantiated for the geometry.
std::vector<std::string> depthwiseTactics(KernelSetup const& setup, ConvConfig const& cfg, FusedEpilogue const& epilogue);

//! True for the names of the depthwise tactics.
bool isDepthwiseTactic(std::string const& tactic);

//! The depthwise tactic's kernel (fails with the reason when depthwiseApplies is false).
StatusOr<std::unique_ptr<Kernel>> createDepthwiseConvolutionKernel(
    KernelSetup const& setup, ConvConfig const& cfg, FusedEpilogue const& epilogue);

//! True when the gemm tactic can run the forward convolution of `setup` (types, formats, 1x1 geometry, constant
//! weights; the spatial extents of a linear node are checked at reshape).
bool gemmApplies(KernelSetup const& setup, ConvConfig const& cfg, FusedEpilogue const& epilogue);

//! The gemm tactic's kernel (fails with the reason when gemmApplies is false).
StatusOr<std::unique_ptr<Kernel>> createGemmConvolutionKernel(
    KernelSetup const& setup, ConvConfig const& cfg, FusedEpilogue const& epilogue);

//! The pointwise tactics that apply to `setup` (its node channel-last, types, 1x1 geometry, constant weights of at
//! most 64 padded input channels), or none.
std::vector<std::string> pointwiseTactics(
    KernelSetup const& setup, ConvConfig const& cfg, FusedEpilogue const& epilogue);

//! True for the names of the pointwise tactics.
bool isPointwiseTactic(std::string const& tactic);

//! The pointwise tactic's kernel (fails with the reason when the tactics do not apply).
StatusOr<std::unique_ptr<Kernel>> createPointwiseConvolutionKernel(
    KernelSetup const& setup, ConvConfig const& cfg, FusedEpilogue const& epilogue);

// Entry points shared by convolution.cu and deconvolution.cu.
StatusOr<std::unique_ptr<Kernel>> createConvolutionLikeCudaKernel(KernelSetup const& setup, bool deconvolution);
std::vector<std::string> convolutionLikeCudaTactics(KernelSetup const& setup, bool deconvolution);

} // namespace kiln::cuda
