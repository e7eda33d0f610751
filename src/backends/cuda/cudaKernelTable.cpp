// The CUDA backend's kernel table: factory and tactics per layer kind (the GPU counterpart of
// backends/cpu/kernelTable.cpp). Kinds without an entry return nullptr: the builder keeps them on the CPU or
// reports them unsupported for the GPU. Tactic names: "kiln" (Kiln's own CUDA kernels), "cublaslt", "cudnn".
#include "backends/cuda/kernels/cudaKernelFactories.h"

namespace kiln::cuda
{
using nvinfer1::LayerType;

namespace
{

std::vector<std::string> kilnOnly(KernelSetup const&)
{
    return {"kiln"};
}

class FunctionKernel final : public CudaKernel
{
public:
    FunctionKernel(KernelSetup const& setup, CudaKernelFunction fn)
        : mSetup(setup)
        , mFn(fn)
    {
    }
    Status enqueue(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs,
        CudaRunContext const& ctx) override
    {
        return mFn(mSetup, inputs, outputs, ctx);
    }

private:
    KernelSetup mSetup;
    CudaKernelFunction mFn;
};

} // namespace

std::unique_ptr<CudaKernel> makeCudaFunctionKernel(KernelSetup const& setup, CudaKernelFunction fn)
{
    return std::make_unique<FunctionKernel>(setup, fn);
}

CudaKernelFactory cudaKernelFactory(LayerType kind)
{
    switch (kind)
    {
    case LayerType::kACTIVATION: return createActivationCudaKernel;
    case LayerType::kCAST: return createCastCudaKernel;
    case LayerType::kCONCATENATION: return createConcatenationCudaKernel;
    case LayerType::kCONSTANT: return createConstantCudaKernel;
    case LayerType::kCONVOLUTION: return createConvolutionCudaKernel;
    case LayerType::kDECONVOLUTION: return createDeconvolutionCudaKernel;
    case LayerType::kCUMULATIVE: return createCumulativeCudaKernel;
    case LayerType::kELEMENTWISE: return createElementWiseCudaKernel;
    case LayerType::kFILL: return createFillCudaKernel;
    case LayerType::kGATHER: return createGatherCudaKernel;
    case LayerType::kIDENTITY: return createIdentityCudaKernel;
    case LayerType::kMATRIX_MULTIPLY: return createMatrixMultiplyCudaKernel;
    case LayerType::kNORMALIZATION: return createNormalizationCudaKernel;
    case LayerType::kPADDING: return createPaddingCudaKernel;
    case LayerType::kPARAMETRIC_RELU: return createParametricReLUCudaKernel;
    case LayerType::kPOOLING: return createPoolingCudaKernel;
    case LayerType::kREDUCE: return createReduceCudaKernel;
    case LayerType::kRESIZE: return createResizeCudaKernel;
    case LayerType::kSCALE: return createScaleCudaKernel;
    case LayerType::kSCATTER: return createScatterCudaKernel;
    case LayerType::kSELECT: return createSelectCudaKernel;
    case LayerType::kSHAPE: return createShapeCudaKernel;
    case LayerType::kSHUFFLE: return createShuffleCudaKernel;
    case LayerType::kSLICE: return createSliceCudaKernel;
    case LayerType::kSOFTMAX: return createSoftMaxCudaKernel;
    case LayerType::kSQUEEZE:
    case LayerType::kUNSQUEEZE: return createSqueezeCudaKernel;
    case LayerType::kTOPK: return createTopKCudaKernel;
    case LayerType::kUNARY: return createUnaryCudaKernel;
    case LayerType::kASSERTION: return createAssertionCudaKernel;
    case LayerType::kCONDITIONAL_INPUT: return createIdentityCudaKernel;
    case LayerType::kCONDITIONAL_OUTPUT: return createConditionalOutputCudaKernel;
    case LayerType::kEINSUM: return createEinsumCudaKernel;
    case LayerType::kGRID_SAMPLE: return createGridSampleCudaKernel;
    case LayerType::kLRN: return createLRNCudaKernel;
    case LayerType::kNMS: return createNMSCudaKernel;
    case LayerType::kNON_ZERO: return createNonZeroCudaKernel;
    case LayerType::kONE_HOT: return createOneHotCudaKernel;
    case LayerType::kREVERSE_SEQUENCE: return createReverseSequenceCudaKernel;
    default: return nullptr; // not implemented on the GPU yet (docs/gpu.md lists them)
    }
}

CudaTacticsFn cudaKernelTactics(LayerType kind)
{
    if (kind == LayerType::kMATRIX_MULTIPLY)
    {
        return matrixMultiplyCudaTactics;
    }
    if (kind == LayerType::kCONVOLUTION || kind == LayerType::kDECONVOLUTION || kind == LayerType::kPOOLING)
    {
        return kind == LayerType::kPOOLING ? poolingCudaTactics
                                           : (kind == LayerType::kCONVOLUTION ? convolutionCudaTactics : deconvolutionCudaTactics);
    }
    return cudaKernelFactory(kind) != nullptr ? kilnOnly : nullptr;
}

} // namespace kiln::cuda
