// Generated CUDA code for fused pointwise programs (backends/common/pointwiseProgram.h): the program becomes straight-line
// float code in registers, specialised on the input and output types and on how each input is indexed, compiled with
// NVRTC for the current GPU and loaded once per process (a cache keyed by the source). Each module has two kernels:
// one element per thread (any alignment), and four elements per thread with 8- or 16-byte loads and stores. The
// fused pointwise kernel (pointwiseProgram.cu) uses them when every input is indexed in one of the ways below, and
// its interpreter otherwise or when NVRTC fails.
#pragma once

#include "backends/common/pointwiseProgram.h"
#include "core/status.h"

#include "NvInfer.h"

#include <cuda_runtime_api.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace kiln::cuda
{

//! How an input of the fused node is indexed by the output's linear index i.
enum class PwIndexing : int32_t
{
    kFULL = 0,   //!< the output's own shape: element i
    kSCALAR = 1, //!< one element, broadcast: element 0
    kROW = 2,    //!< the output's trailing extents (leading extents 1): element i % rowVolume
};

//! What one generated kernel is specialised on.
struct PwCodegenSpec
{
    PointwiseProgram program;
    std::vector<nvinfer1::DataType> inTypes;
    std::vector<PwIndexing> indexing;
    nvinfer1::DataType outType{nvinfer1::DataType::kFLOAT};
};

//! Launch arguments of a generated kernel (one struct parameter; the generated code declares the same layout).
struct PwLaunchArgs
{
    void const* in[kPW_MAX_INPUTS]{};
    void* out{nullptr};
    long long n{0};
    long long row[kPW_MAX_INPUTS]{}; //!< row volume of kROW inputs
};

class PwGeneratedKernel
{
public:
    //! The compiled kernels of `spec` (cached per process); fails with the reason (unsupported operation, NVRTC or
    //! module-loading error).
    static StatusOr<std::shared_ptr<PwGeneratedKernel const>> get(PwCodegenSpec const& spec);

    //! The CUDA source of `spec` (exposed for tests and logs).
    static StatusOr<std::string> source(PwCodegenSpec const& spec);

    //! Launches over args.n elements; `vectorized` needs n % 4 == 0 and 16-byte aligned kFULL inputs and output.
    Status launch(PwLaunchArgs const& args, bool vectorized, cudaStream_t stream) const;

    PwGeneratedKernel(void const* scalar, void const* vector)
        : mScalar(scalar)
        , mVector(vector)
    {
    }

private:
    void const* mScalar;
    void const* mVector;
};

} // namespace kiln::cuda
