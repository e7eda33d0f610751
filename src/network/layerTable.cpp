// Maps each layer kind to its inference function and shape-input slots.
#include "network/layerTable.h"

namespace kiln
{
using nvinfer1::LayerType;

InferFn inferFunction(LayerType kind)
{
    // Every kind, in the list's order (core/layerKinds.h), and no default: a new kind must be named here. A kind
    // without an inference function returns nullptr, which networkAnalysis reports as "not supported" by name.
    switch (kind)
    {
    case LayerType::kCONVOLUTION: return inferConvolution;
    case LayerType::kCAST: return inferCast;
    case LayerType::kACTIVATION: return inferActivation;
    case LayerType::kPOOLING: return inferPooling;
    case LayerType::kLRN: return inferLRN;
    case LayerType::kSCALE: return inferScale;
    case LayerType::kSOFTMAX: return inferSoftMax;
    case LayerType::kDECONVOLUTION: return inferDeconvolution;
    case LayerType::kCONCATENATION: return inferConcatenation;
    case LayerType::kELEMENTWISE: return inferElementWise;
    case LayerType::kPLUGIN: return nullptr; // IPluginLayer is gone from TensorRT 10: no layer has this kind
    case LayerType::kUNARY: return inferUnary;
    case LayerType::kPADDING: return inferPadding;
    case LayerType::kSHUFFLE: return inferShuffle;
    case LayerType::kREDUCE: return inferReduce;
    case LayerType::kTOPK: return inferTopK;
    case LayerType::kGATHER: return inferGather;
    case LayerType::kMATRIX_MULTIPLY: return inferMatrixMultiply;
    case LayerType::kRAGGED_SOFTMAX: return nullptr; // not supported yet (the network refuses to add it)
    case LayerType::kCONSTANT: return inferConstant;
    case LayerType::kIDENTITY: return inferIdentity;
    case LayerType::kPLUGIN_V2: return nullptr; // needs the layer's plugin: networkAnalysis calls inferPluginLayer
    case LayerType::kSLICE: return inferSlice;
    case LayerType::kSHAPE: return inferShape;
    case LayerType::kPARAMETRIC_RELU: return inferParametricReLU;
    case LayerType::kRESIZE: return inferResize;
    case LayerType::kTRIP_LIMIT: return inferTripLimit;
    case LayerType::kRECURRENCE: return inferRecurrence;
    case LayerType::kITERATOR: return inferIterator;
    case LayerType::kLOOP_OUTPUT: return inferLoopOutput;
    case LayerType::kSELECT: return inferSelect;
    case LayerType::kFILL: return inferFill;
    case LayerType::kQUANTIZE: return inferQuantize;
    case LayerType::kDEQUANTIZE: return inferDequantize;
    case LayerType::kCONDITION: return inferCondition;
    case LayerType::kCONDITIONAL_INPUT: return inferConditionalInput;
    case LayerType::kCONDITIONAL_OUTPUT: return inferConditionalOutput;
    case LayerType::kSCATTER: return inferScatter;
    case LayerType::kEINSUM: return inferEinsum;
    case LayerType::kASSERTION: return inferAssertion;
    case LayerType::kONE_HOT: return inferOneHot;
    case LayerType::kNON_ZERO: return inferNonZero;
    case LayerType::kGRID_SAMPLE: return inferGridSample;
    case LayerType::kNMS: return inferNMS;
    case LayerType::kREVERSE_SEQUENCE: return inferReverseSequence;
    case LayerType::kNORMALIZATION: return inferNormalization;
    case LayerType::kPLUGIN_V3: return nullptr; // needs the layer's plugin: networkAnalysis calls inferPluginLayer
    case LayerType::kSQUEEZE: return inferSqueeze;
    case LayerType::kUNSQUEEZE: return inferUnsqueeze;
    case LayerType::kCUMULATIVE: return inferCumulative;
    case LayerType::kDYNAMIC_QUANTIZE: return nullptr; // not supported yet (the network refuses to add it)
    case LayerType::kATTENTION_INPUT: return nullptr; // not supported yet (the network refuses to add it)
    case LayerType::kATTENTION_OUTPUT: return nullptr; // not supported yet (the network refuses to add it)
    case LayerType::kROTARY_EMBEDDING: return nullptr; // not supported yet (the network refuses to add it)
    case LayerType::kKVCACHE_UPDATE: return nullptr; // not supported yet (the network refuses to add it)
    case LayerType::kMOE: return nullptr; // not supported yet (the network refuses to add it)
    case LayerType::kDIST_COLLECTIVE: return nullptr; // not supported yet (the network refuses to add it)
    }
    return nullptr; // a value outside the enum
}

bool isShapeInputSlot(LayerType kind, int32_t slot, nvinfer1::DataType slotType)
{
    bool const isInt = slotType == nvinfer1::DataType::kINT32 || slotType == nvinfer1::DataType::kINT64;
    switch (kind)
    {
    case LayerType::kSHUFFLE: return slot == 1;                       // reshape dimensions
    case LayerType::kSLICE: return (slot >= 1 && slot <= 3) || slot == 5; // start, size, stride, axes
    case LayerType::kFILL: return slot == 0 || (slot >= 1 && isInt);  // dimensions; int alpha/beta
    case LayerType::kRESIZE: return slot == 1;                        // output dimensions or FLOAT scales
    case LayerType::kTOPK: return slot == 1;                          // k
    case LayerType::kNMS: return slot == 2;                           // maxOutputBoxesPerClass
    case LayerType::kONE_HOT: return slot == 2;                       // depth
    case LayerType::kSQUEEZE:
    case LayerType::kUNSQUEEZE: return slot == 1;                     // axes
    case LayerType::kTRIP_LIMIT: return slot == 0 && slotType != nvinfer1::DataType::kBOOL; // kCOUNT trip count
    case LayerType::kLOOP_OUTPUT: return slot == 1;                   // concatenation length
    // kPLUGIN_V3: the layer's last nbShapeInputs() inputs (networkAnalysis asks the layer, see pluginLayer.h).
    default: return false;
    }
}

} // namespace kiln
