// The CPU backend's kernel table: the factory and the tactic list of every layer kind, each a switch over every
// nvinfer1::LayerType without `default` (compiled with -Werror=switch), so that a kind added to core/layerKinds.h
// without a CPU entry does not compile. Kinds the CPU backend does not implement say so here, one by one.
#include "backends/cpu/cpuKernel.h"
#include "backends/cpu/kernels/kernelFactories.h"
#include "backends/cpu/kernels/loopBoundary.h"
#include "core/threadPool.h"

namespace kiln
{
using nvinfer1::LayerType;

namespace
{
std::vector<std::string> referenceOnly(KernelSetup const&)
{
    return {"reference"};
}
} // namespace

KernelFactory cpuKernelFactory(LayerType kind)
{
    // Kernels split work over the CPU thread pool: start it here, before any kernel exists, so that no kernel's
    // run() is the call that creates it (runs make no heap allocation).
    static_cast<void>(cpuThreadPool());
    applyCpuOpenMpThreads();
    switch (kind)
    {
    case LayerType::kCONVOLUTION: return createConvolutionKernel;
    case LayerType::kCAST: return createCastKernel;
    case LayerType::kACTIVATION: return createActivationKernel;
    case LayerType::kPOOLING: return createPoolingKernel;
    case LayerType::kLRN: return createLRNKernel;
    case LayerType::kSCALE: return createScaleKernel;
    case LayerType::kSOFTMAX: return createSoftMaxKernel;
    case LayerType::kDECONVOLUTION: return createDeconvolutionKernel;
    case LayerType::kCONCATENATION: return createConcatenationKernel;
    case LayerType::kELEMENTWISE: return createElementWiseKernel;
    case LayerType::kPLUGIN: return nullptr; // legacy IPluginLayer: no layer of this kind can be built
    case LayerType::kUNARY: return createUnaryKernel;
    case LayerType::kPADDING: return createPaddingKernel;
    case LayerType::kSHUFFLE: return createShuffleKernel;
    case LayerType::kREDUCE: return createReduceKernel;
    case LayerType::kTOPK: return createTopKKernel;
    case LayerType::kGATHER: return createGatherKernel;
    case LayerType::kMATRIX_MULTIPLY: return createMatrixMultiplyKernel;
    case LayerType::kRAGGED_SOFTMAX: return nullptr; // not implemented on the CPU
    case LayerType::kCONSTANT: return createConstantKernel;
    case LayerType::kIDENTITY: return createIdentityKernel;
    case LayerType::kPLUGIN_V2: return nullptr; // plugin nodes: backends/common/pluginKernel.h, made by the runtime
    case LayerType::kSLICE: return createSliceKernel;
    case LayerType::kSHAPE: return createShapeKernel;
    case LayerType::kPARAMETRIC_RELU: return createParametricReLUKernel;
    case LayerType::kRESIZE: return createResizeKernel;
    case LayerType::kTRIP_LIMIT: return createLoopBoundaryKernel; // loops are run by the loop interpreter
    case LayerType::kRECURRENCE: return createLoopBoundaryKernel;
    case LayerType::kITERATOR: return createLoopBoundaryKernel;
    case LayerType::kLOOP_OUTPUT: return createLoopBoundaryKernel;
    case LayerType::kSELECT: return createSelectKernel;
    case LayerType::kFILL: return createFillKernel;
    case LayerType::kQUANTIZE: return createQuantizeKernel;
    case LayerType::kDEQUANTIZE: return createDequantizeKernel;
    case LayerType::kCONDITION: return nullptr;  // no outputs; its condition is input 2 of kCONDITIONAL_OUTPUT
    case LayerType::kCONDITIONAL_INPUT: return createIdentityKernel;
    case LayerType::kCONDITIONAL_OUTPUT: return createConditionalOutputKernel;
    case LayerType::kSCATTER: return createScatterKernel;
    case LayerType::kEINSUM: return createEinsumKernel;
    case LayerType::kASSERTION: return createAssertionKernel;
    case LayerType::kONE_HOT: return createOneHotKernel;
    case LayerType::kNON_ZERO: return createNonZeroKernel;
    case LayerType::kGRID_SAMPLE: return createGridSampleKernel;
    case LayerType::kNMS: return createNMSKernel;
    case LayerType::kREVERSE_SEQUENCE: return createReverseSequenceKernel;
    case LayerType::kNORMALIZATION: return createNormalizationKernel;
    case LayerType::kPLUGIN_V3: return nullptr; // plugin nodes: backends/common/pluginKernel.h, made by the runtime
    case LayerType::kSQUEEZE: return createSqueezeKernel;
    case LayerType::kUNSQUEEZE: return createUnsqueezeKernel;
    case LayerType::kCUMULATIVE: return createCumulativeKernel;
    case LayerType::kDYNAMIC_QUANTIZE: return nullptr; // not implemented on the CPU
    case LayerType::kATTENTION_INPUT: return nullptr;  // not implemented on the CPU
    case LayerType::kATTENTION_OUTPUT: return createAttentionOutputKernel; // fused attention (builder)
    case LayerType::kROTARY_EMBEDDING: return nullptr; // not implemented on the CPU
    case LayerType::kKVCACHE_UPDATE: return nullptr;   // not implemented on the CPU
    case LayerType::kMOE: return nullptr;              // not implemented on the CPU
    case LayerType::kDIST_COLLECTIVE: return nullptr;  // multi-device collectives need the CUDA backend (NCCL)
    }
    return nullptr; // a value outside the enum
}

CpuTacticsFn cpuKernelTactics(LayerType kind)
{
    switch (kind)
    {
    case LayerType::kCONVOLUTION: return convolutionTactics;
    case LayerType::kDECONVOLUTION: return deconvolutionTactics;
    case LayerType::kMATRIX_MULTIPLY: return matrixMultiplyTactics;
    case LayerType::kPOOLING: return poolingTactics;
    case LayerType::kNORMALIZATION: return normalizationTactics;
    case LayerType::kSOFTMAX: return softMaxTactics;
    // One implementation each.
    case LayerType::kCAST:
    case LayerType::kACTIVATION:
    case LayerType::kLRN:
    case LayerType::kSCALE:
    case LayerType::kCONCATENATION:
    case LayerType::kELEMENTWISE:
    case LayerType::kUNARY:
    case LayerType::kPADDING:
    case LayerType::kSHUFFLE:
    case LayerType::kREDUCE:
    case LayerType::kTOPK:
    case LayerType::kGATHER:
    case LayerType::kCONSTANT:
    case LayerType::kIDENTITY:
    case LayerType::kSLICE:
    case LayerType::kSHAPE:
    case LayerType::kPARAMETRIC_RELU:
    case LayerType::kRESIZE:
    case LayerType::kTRIP_LIMIT:
    case LayerType::kRECURRENCE:
    case LayerType::kITERATOR:
    case LayerType::kLOOP_OUTPUT:
    case LayerType::kSELECT:
    case LayerType::kFILL:
    case LayerType::kCONDITIONAL_INPUT:
    case LayerType::kCONDITIONAL_OUTPUT:
    case LayerType::kSCATTER:
    case LayerType::kEINSUM:
    case LayerType::kASSERTION:
    case LayerType::kONE_HOT:
    case LayerType::kNON_ZERO:
    case LayerType::kGRID_SAMPLE:
    case LayerType::kNMS:
    case LayerType::kREVERSE_SEQUENCE:
    case LayerType::kSQUEEZE:
    case LayerType::kUNSQUEEZE:
    case LayerType::kCUMULATIVE:
    case LayerType::kQUANTIZE:
    case LayerType::kDEQUANTIZE:
    case LayerType::kATTENTION_OUTPUT: return referenceOnly;
    // Plugin nodes: the builder records "plugin" or "plugin:<tactic>" itself (the backend answers for them).
    case LayerType::kPLUGIN_V2:
    case LayerType::kPLUGIN_V3: return nullptr;
    // Not implemented on the CPU (see cpuKernelFactory).
    case LayerType::kPLUGIN:
    case LayerType::kRAGGED_SOFTMAX:
    case LayerType::kCONDITION:
    case LayerType::kDYNAMIC_QUANTIZE:
    case LayerType::kATTENTION_INPUT:
    case LayerType::kROTARY_EMBEDDING:
    case LayerType::kKVCACHE_UPDATE:
    case LayerType::kMOE:
    case LayerType::kDIST_COLLECTIVE: return nullptr;
    }
    return nullptr; // a value outside the enum
}

std::string cpuNodeLabel(KernelSetup const& setup, char const* kind)
{
    return std::string(kind) + " node '" + (setup.node != nullptr ? setup.node->name : std::string("?")) + "'";
}

Status notReshaped(KernelSetup const& setup, char const* kind)
{
    return internalError(cpuNodeLabel(setup, kind) + ": run() without a successful reshape() for the current shapes");
}

} // namespace kiln
