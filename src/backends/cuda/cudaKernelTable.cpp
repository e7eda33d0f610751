// The CUDA backend's kernel table: factory and tactics per layer kind (the GPU counterpart of
// backends/cpu/kernelTable.cpp), one `switch` over every nvinfer1::LayerType without `default`, so that a kind added
// to core/layerKinds.h without a decision here does not compile (-Werror=switch). Kinds without a CUDA kernel map to
// nullptr, per kind: the builder then keeps them off the GPU or reports them unsupported there (docs/gpu.md lists
// them). Tactic names: "kiln" (Kiln's own CUDA kernels), "cublaslt", "cudnn", "depthwise", "gemm" and "pointwise"
// (convolutions).
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

struct KindEntry
{
    KernelFactory factory{nullptr};
    CudaTacticsFn tactics{nullptr};
};

KindEntry kindEntry(LayerType kind)
{
    switch (kind)
    {
    case LayerType::kACTIVATION: return {createActivationCudaKernel, kilnOnly};
    case LayerType::kASSERTION: return {createAssertionCudaKernel, kilnOnly};
    case LayerType::kCAST: return {createCastCudaKernel, kilnOnly};
    case LayerType::kDEQUANTIZE: return {createDequantizeCudaKernel, kilnOnly};
    case LayerType::kQUANTIZE: return {createQuantizeCudaKernel, kilnOnly};
    case LayerType::kCONCATENATION: return {createConcatenationCudaKernel, kilnOnly};
    case LayerType::kCONDITIONAL_INPUT: return {createIdentityCudaKernel, kilnOnly}; // an identity
    case LayerType::kCONDITIONAL_OUTPUT: return {createConditionalOutputCudaKernel, kilnOnly};
    case LayerType::kCONSTANT: return {createConstantCudaKernel, kilnOnly};
    case LayerType::kCONVOLUTION: return {createConvolutionCudaKernel, convolutionCudaTactics};
    case LayerType::kCUMULATIVE: return {createCumulativeCudaKernel, kilnOnly};
    case LayerType::kDECONVOLUTION: return {createDeconvolutionCudaKernel, deconvolutionCudaTactics};
    case LayerType::kEINSUM: return {createEinsumCudaKernel, kilnOnly};
    case LayerType::kELEMENTWISE: return {createElementWiseCudaKernel, kilnOnly};
    case LayerType::kFILL: return {createFillCudaKernel, kilnOnly};
    case LayerType::kGATHER: return {createGatherCudaKernel, kilnOnly};
    case LayerType::kGRID_SAMPLE: return {createGridSampleCudaKernel, kilnOnly};
    case LayerType::kIDENTITY: return {createIdentityCudaKernel, kilnOnly};
    case LayerType::kLRN: return {createLRNCudaKernel, kilnOnly};
    case LayerType::kMATRIX_MULTIPLY: return {createMatrixMultiplyCudaKernel, matrixMultiplyCudaTactics};
    case LayerType::kNMS: return {createNMSCudaKernel, kilnOnly};
    case LayerType::kNON_ZERO: return {createNonZeroCudaKernel, kilnOnly};
    case LayerType::kNORMALIZATION: return {createNormalizationCudaKernel, kilnOnly};
    case LayerType::kONE_HOT: return {createOneHotCudaKernel, kilnOnly};
    case LayerType::kPADDING: return {createPaddingCudaKernel, kilnOnly};
    case LayerType::kPARAMETRIC_RELU: return {createParametricReLUCudaKernel, kilnOnly};
    case LayerType::kPOOLING: return {createPoolingCudaKernel, poolingCudaTactics};
    case LayerType::kREDUCE: return {createReduceCudaKernel, kilnOnly};
    case LayerType::kRESIZE: return {createResizeCudaKernel, kilnOnly};
    case LayerType::kREVERSE_SEQUENCE: return {createReverseSequenceCudaKernel, kilnOnly};
    case LayerType::kSCALE: return {createScaleCudaKernel, kilnOnly};
    case LayerType::kSCATTER: return {createScatterCudaKernel, kilnOnly};
    case LayerType::kSELECT: return {createSelectCudaKernel, kilnOnly};
    case LayerType::kSHAPE: return {createShapeCudaKernel, kilnOnly};
    case LayerType::kSHUFFLE: return {createShuffleCudaKernel, kilnOnly};
    case LayerType::kSLICE: return {createSliceCudaKernel, kilnOnly};
    case LayerType::kSOFTMAX: return {createSoftMaxCudaKernel, kilnOnly};
    case LayerType::kSQUEEZE: return {createSqueezeCudaKernel, kilnOnly};
    case LayerType::kTOPK: return {createTopKCudaKernel, kilnOnly};
    case LayerType::kUNARY: return {createUnaryCudaKernel, kilnOnly};
    case LayerType::kUNSQUEEZE: return {createSqueezeCudaKernel, kilnOnly}; // the same device copy as kSQUEEZE

    // Plugin nodes run on every backend through backends/common/pluginKernel.h (the runtime creates them), never
    // through this table; the legacy kPLUGIN kind has no plan nodes.
    case LayerType::kPLUGIN: return {nullptr, nullptr};
    case LayerType::kPLUGIN_V2: return {nullptr, nullptr};
    case LayerType::kPLUGIN_V3: return {nullptr, nullptr};

    // Loops and the if-conditional's condition run on the CPU backend only (the execution context refuses loops on
    // device backends).
    case LayerType::kCONDITION: return {nullptr, nullptr};
    case LayerType::kITERATOR: return {nullptr, nullptr};
    case LayerType::kLOOP_OUTPUT: return {nullptr, nullptr};
    case LayerType::kRECURRENCE: return {nullptr, nullptr};
    case LayerType::kTRIP_LIMIT: return {nullptr, nullptr};

    // Not implemented on the GPU yet.
    case LayerType::kATTENTION_INPUT: return {nullptr, nullptr};
    case LayerType::kATTENTION_OUTPUT: return {createAttentionOutputCudaKernel, kilnOnly}; // fused attention (cuDNN SDPA)
    case LayerType::kDIST_COLLECTIVE: return {nullptr, nullptr};
    case LayerType::kDYNAMIC_QUANTIZE: return {nullptr, nullptr};
    case LayerType::kKVCACHE_UPDATE: return {nullptr, nullptr};
    case LayerType::kMOE: return {nullptr, nullptr};
    case LayerType::kRAGGED_SOFTMAX: return {nullptr, nullptr};
    case LayerType::kROTARY_EMBEDDING: return {nullptr, nullptr};
    }
    return {nullptr, nullptr}; // a value outside the enum
}

} // namespace

KernelFactory cudaKernelFactory(LayerType kind)
{
    return kindEntry(kind).factory;
}

CudaTacticsFn cudaKernelTactics(LayerType kind)
{
    return kindEntry(kind).tactics;
}

} // namespace kiln::cuda
