// The CPU backend's kernel table: one entry per layer kind.
#include "backends/cpu/kernels/kernelFactories.h"
#include "backends/cpu/kernels/loopBoundary.h"

namespace kiln
{
using nvinfer1::LayerType;

namespace
{
std::vector<std::string> referenceOnly(KernelSetup const&)
{
    return {"reference"};
}

class FunctionKernel final : public CpuKernel
{
public:
    FunctionKernel(KernelSetup const& setup, CpuKernelFunction fn)
        : mSetup(setup)
        , mFn(fn)
    {
    }
    Status execute(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs) override
    {
        return mFn(mSetup, inputs, outputs);
    }

private:
    KernelSetup mSetup;
    CpuKernelFunction mFn;
};
} // namespace

std::unique_ptr<CpuKernel> makeFunctionKernel(KernelSetup const& setup, CpuKernelFunction fn)
{
    return std::make_unique<FunctionKernel>(setup, fn);
}

CpuKernelFactory cpuKernelFactory(LayerType kind)
{
    switch (kind)
    {
    case LayerType::kACTIVATION: return createActivationKernel;
    case LayerType::kASSERTION: return createAssertionKernel;
    case LayerType::kCAST: return createCastKernel;
    case LayerType::kCONCATENATION: return createConcatenationKernel;
    case LayerType::kCONSTANT: return createConstantKernel;
    case LayerType::kCONVOLUTION: return createConvolutionKernel;
    case LayerType::kCUMULATIVE: return createCumulativeKernel;
    case LayerType::kDECONVOLUTION: return createDeconvolutionKernel;
    case LayerType::kEINSUM: return createEinsumKernel;
    case LayerType::kELEMENTWISE: return createElementWiseKernel;
    case LayerType::kFILL: return createFillKernel;
    case LayerType::kGATHER: return createGatherKernel;
    case LayerType::kGRID_SAMPLE: return createGridSampleKernel;
    case LayerType::kIDENTITY: return createIdentityKernel;
    case LayerType::kLRN: return createLRNKernel;
    case LayerType::kMATRIX_MULTIPLY: return createMatrixMultiplyKernel;
    case LayerType::kNMS: return createNMSKernel;
    case LayerType::kNON_ZERO: return createNonZeroKernel;
    case LayerType::kNORMALIZATION: return createNormalizationKernel;
    case LayerType::kONE_HOT: return createOneHotKernel;
    case LayerType::kPADDING: return createPaddingKernel;
    case LayerType::kPARAMETRIC_RELU: return createParametricReLUKernel;
    case LayerType::kPLUGIN_V2:
    case LayerType::kPLUGIN_V3: return nullptr; // backends/common/pluginKernel.h, made by the session
    case LayerType::kPOOLING: return createPoolingKernel;
    case LayerType::kREDUCE: return createReduceKernel;
    case LayerType::kRESIZE: return createResizeKernel;
    case LayerType::kREVERSE_SEQUENCE: return createReverseSequenceKernel;
    case LayerType::kSCALE: return createScaleKernel;
    case LayerType::kSCATTER: return createScatterKernel;
    case LayerType::kSELECT: return createSelectKernel;
    case LayerType::kSHAPE: return createShapeKernel;
    case LayerType::kSHUFFLE: return createShuffleKernel;
    case LayerType::kSLICE: return createSliceKernel;
    case LayerType::kSOFTMAX: return createSoftMaxKernel;
    case LayerType::kSQUEEZE: return createSqueezeKernel;
    case LayerType::kTOPK: return createTopKKernel;
    case LayerType::kUNARY: return createUnaryKernel;
    case LayerType::kUNSQUEEZE: return createUnsqueezeKernel;
    case LayerType::kRECURRENCE:
    case LayerType::kITERATOR:
    case LayerType::kTRIP_LIMIT:
    case LayerType::kLOOP_OUTPUT: return createLoopBoundaryKernel; // run by the loop interpreter
    case LayerType::kCONDITIONAL_INPUT: return createIdentityKernel;
    case LayerType::kCONDITIONAL_OUTPUT: return createConditionalOutputKernel;
    default: return nullptr; // not implemented on the CPU yet
    }
}

CpuTacticsFn cpuKernelTactics(LayerType kind)
{
    switch (kind)
    {
    case LayerType::kCONVOLUTION: return convolutionTactics;
    case LayerType::kDECONVOLUTION: return deconvolutionTactics;
    case LayerType::kMATRIX_MULTIPLY: return matrixMultiplyTactics;
    case LayerType::kPOOLING: return poolingTactics;
    default: return cpuKernelFactory(kind) != nullptr ? referenceOnly : nullptr;
    }
}

} // namespace kiln
