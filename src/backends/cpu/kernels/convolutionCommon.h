// Helpers shared by the convolution, deconvolution, pooling and matrix-multiply CPU kernels: tactic selection,
// element conversion to/from double for the reference kernels, and (when KILN_HAVE_ONEDNN) the process-wide
// oneDNN engine, type mapping and primitive checks.
#pragma once

#include "backends/kernel.h"
#include "core/dataType.h"
#include "network/layers/convolutionLayer.h"

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#ifndef KILN_HAVE_ONEDNN
#define KILN_HAVE_ONEDNN 0
#endif

#if KILN_HAVE_ONEDNN
#include <dnnl.hpp>
#endif

namespace kiln
{

//! Implementation a kernel object runs.
enum class CpuTactic
{
    kONEDNN,
    kREFERENCE,
};

//! The tactic names used in plans.
constexpr char const* kTACTIC_ONEDNN = "onednn";
constexpr char const* kTACTIC_REFERENCE = "reference";

//! True when Kiln was built with oneDNN (defined out of line, so every caller sees the library's answer).
bool oneDnnBuilt();

//! The tactic a kernel runs for `node.tactic`: "" means the best available; "onednn" falls back to the
//! reference kernel in a build without oneDNN (an engine built elsewhere still runs); anything else is an error.
StatusOr<CpuTactic> selectCpuTactic(PlanNode const& node);

//! Count of executions that ran through oneDNN, per layer kind (kCONVOLUTION, kDECONVOLUTION, kPOOLING,
//! kMATRIX_MULTIPLY), for tests and benchmarks that need to know the fast path really ran.
uint64_t oneDnnRunCount(nvinfer1::LayerType kind);
void countOneDnnRun(nvinfer1::LayerType kind);

//! Convert `count` elements of `type` to double (float types and integers).
void convertToDouble(void const* src, nvinfer1::DataType type, int64_t count, double* dst);
//! Store `count` doubles as `type` (float types round to nearest even; INT8 rounds half to even and saturates).
void convertFromDouble(double const* src, nvinfer1::DataType type, int64_t count, void* dst);

//! Row-major strides for `dims` with `n` extents (in elements).
std::vector<int64_t> rowMajorStrides(int64_t const* dims, int32_t n);

//! Extents of `d` as a vector.
std::vector<int64_t> dimsVector(nvinfer1::Dims const& d);

//! Spatial geometry normalised to three dimensions (2-D windows get a leading extent-1 depth).
struct Geometry3
{
    std::array<int64_t, 3> in{1, 1, 1};
    std::array<int64_t, 3> out{1, 1, 1};
    std::array<int64_t, 3> kernel{1, 1, 1};
    std::array<int64_t, 3> stride{1, 1, 1};
    std::array<int64_t, 3> dilation{1, 1, 1};
    std::array<int64_t, 3> padBefore{0, 0, 0};
    std::array<int64_t, 3> padAfter{0, 0, 0};

    int64_t inVolume() const { return in[0] * in[1] * in[2]; }
    int64_t outVolume() const { return out[0] * out[1] * out[2]; }
    int64_t kernelVolume() const { return kernel[0] * kernel[1] * kernel[2]; }
};

//! Geometry3 of a window layer for the concrete extents `ext` (pooling: dilation 1).
Geometry3 toGeometry3(WindowParams const& p, std::vector<WindowExtent> const& ext);

// Convolution and deconvolution share one kernel object (convolution.cpp); these are its entry points.
StatusOr<std::unique_ptr<Kernel>> createConvolutionLikeKernel(KernelSetup const& setup, bool deconvolution);
std::vector<std::string> convolutionLikeTactics(KernelSetup const& setup, bool deconvolution);

// The INT8 convolution node (builder/passes/fusion/int8Convolution.cpp) has its own kernel (convolutionInt8.cpp).
bool isInt8ConvolutionNode(PlanNode const& node);
StatusOr<std::unique_ptr<Kernel>> createInt8ConvolutionKernel(KernelSetup const& setup);
std::vector<std::string> int8ConvolutionTactics(KernelSetup const& setup);

//! Reference deconvolution (deconvolution.cpp): x [N, C, in...], w [C, K/G, k...], bias [K] or empty,
//! y [N, K, out...]; all in double.
void referenceDeconvolution(Geometry3 const& g, int64_t n, int64_t c, int64_t k, int64_t groups, double const* x,
    double const* w, double const* bias, double* y);

#if KILN_HAVE_ONEDNN
//! The process-wide CPU engine (thread-safe to share).
dnnl::engine& oneDnnEngine();
//! oneDNN data type of a Kiln storage type, or data_type::undef.
dnnl::memory::data_type oneDnnType(nvinfer1::DataType type);
//! True when the primitive descriptor picked a oneDNN reference implementation (no faster than Kiln's).
bool isOneDnnReferenceImpl(dnnl::primitive_desc_base const& pd);
//! oneDNN dims from a vector.
dnnl::memory::dims toDnnlDims(std::vector<int64_t> const& v);

//! A primitive with its arguments, prepared at reshape, so that a run executes it without building containers
//! (dnnl::primitive::execute builds an argument vector at every call). The memory objects stay owned by the caller,
//! which changes their data handles between runs.
class OneDnnStep
{
public:
    OneDnnStep() = default;
    OneDnnStep(dnnl::primitive primitive, std::vector<std::pair<int, dnnl::memory>> const& args);
    //! Executes on `stream` (throws dnnl::error like the C++ API).
    void execute(dnnl::stream& stream) const;
    explicit operator bool() const { return static_cast<bool>(mPrimitive); }

private:
    dnnl::primitive mPrimitive;
    std::vector<dnnl_exec_arg_t> mArgs;
};
#endif

} // namespace kiln
