// Shared parts of the CUDA convolution parity tests (convolutionParity.cpp, pointwiseConvParity.cpp): the spec of
// one convolution case, its plan node and output dims, the kHWC8 conversions and device buffers, and runHwc8, which
// runs a channel-last tactic on kHWC8 copies against the CPU reference on NCHW tensors.
#pragma once

#include "cudaParity.h"

#include "backends/kernel.h"
#include "network/layers/convolutionLayer.h"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace kiln::test::cuda
{

//! Sums of C/G * kernel-volume products in another order than the CPU's double reference.
Tolerance convTolerance();

//! Host weights of a tensor (field by field: the struct's member order is not part of its contract).
WeightsView weightsOf(HostTensor const& h);

//! One convolution or deconvolution case: shapes, types, geometry, weights or inputs, fused epilogue.
struct ConvSpec
{
    bool deconv{false};
    nvinfer1::DataType type{nvinfer1::DataType::kFLOAT};
    nvinfer1::DataType outType{nvinfer1::DataType::kFLOAT};
    nvinfer1::DataType weightsType{nvinfer1::DataType::kFLOAT};
    std::vector<int64_t> in{2, 4, 9, 11}; //!< [N, C, spatial...]
    int64_t k{6};
    std::vector<int64_t> kernel{3, 3};
    std::vector<int64_t> stride;   //!< default 1
    std::vector<int64_t> dilation; //!< default 1
    std::vector<int64_t> pre;      //!< default 0
    std::vector<int64_t> post;     //!< default 0
    nvinfer1::PaddingMode mode{nvinfer1::PaddingMode::kEXPLICIT_ROUND_DOWN};
    int64_t groups{1};
    bool bias{true};
    bool kernelInput{false}; //!< kernel and bias as inputs 1 / 2
    bool fuseAdd{false};
    std::vector<int64_t> addDims; //!< empty: the output's
    int32_t fuseAct{0};           //!< ActivationType + 1, 0 = none
    bool gate{false};             //!< "fuse.gate": v * act(v) (SiLU, hard-swish)
    float alpha{0.F};
    float beta{0.F};
};

//! `v`, or `n` copies of `value` when it is empty.
std::vector<int64_t> orDefault(std::vector<int64_t> const& v, size_t n, int64_t value);

//! The node of `s` with tactic `tactic`.
PlanNode convNode(ConvSpec const& s, std::string const& tactic);

//! Output dims of `s` by the padding-mode formulas.
std::vector<int64_t> outputDims(ConvSpec const& s, PlanNode const& node);

//! `s` with data, output and weights of type `t`.
ConvSpec typed(ConvSpec s, nvinfer1::DataType t);

//! The "fuse.act" value of activation `a`.
int32_t act(nvinfer1::ActivationType a);

//! [N, C, H, W] -> kHWC8 storage [N, H, W, Cp] (Cp = C rounded up to 8), padding channels set to `fill`.
HostTensor toHwc8(HostTensor const& t, double fill);

//! Device copies of host tensors, freed at the end of the scope.
struct DeviceTensors
{
    std::vector<void*> buffers;
    ~DeviceTensors()
    {
        for (void* b : buffers)
        {
            (void) cudaFree(b);
        }
    }
    void* upload(HostTensor const& h)
    {
        void* d = nullptr;
        if (cudaMalloc(&d, std::max<size_t>(h.bytes.size(), 1)) != cudaSuccess)
        {
            return nullptr;
        }
        buffers.push_back(d);
        return cudaMemcpy(d, h.data(), h.bytes.size(), cudaMemcpyHostToDevice) == cudaSuccess ? d : nullptr;
    }
};

//! The gated activations of MobileNetV3 and EfficientNet on the ungated reference `v`: v * act(v) for SiLU (sigmoid)
//! and hard-swish (hard-sigmoid with alpha, beta), in double, rounded to the tensor's type.
void applyGate(ConvSpec const& s, HostTensor& v);

//! Runs spec `s` with `tactic` (a channel-last tactic: depthwise, gemm, pointwise) on kHWC8 data (and fused addition)
//! and compares with the CPU reference on NCHW tensors: the real channels within the type's tolerance, the padding
//! channels exactly zero (the output buffer is poisoned first, the inputs' padding channels hold garbage).
void runHwc8(ConvSpec const& s, uint32_t seed, char const* tactic = "depthwise");

//! Setup of a hand-made node for the table tests (no GPU needed: creation fails before any upload).
KernelSetup tableSetup(PlanNode const& node, nvinfer1::DataType t, size_t nbInputs);

} // namespace kiln::test::cuda
