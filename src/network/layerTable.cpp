// Maps each layer kind to its inference function and shape-input slots.
#include "network/layerTable.h"

namespace kiln
{
using nvinfer1::LayerType;

InferFn inferFunction(LayerType kind)
{
    switch (kind)
    {
    case LayerType::kACTIVATION: return inferActivation;
    case LayerType::kASSERTION: return inferAssertion;
    case LayerType::kCAST: return inferCast;
    case LayerType::kCONCATENATION: return inferConcatenation;
    case LayerType::kCONSTANT: return inferConstant;
    case LayerType::kCONVOLUTION: return inferConvolution;
    case LayerType::kCUMULATIVE: return inferCumulative;
    case LayerType::kDECONVOLUTION: return inferDeconvolution;
    case LayerType::kEINSUM: return inferEinsum;
    case LayerType::kELEMENTWISE: return inferElementWise;
    case LayerType::kFILL: return inferFill;
    case LayerType::kGATHER: return inferGather;
    case LayerType::kGRID_SAMPLE: return inferGridSample;
    case LayerType::kIDENTITY: return inferIdentity;
    case LayerType::kLRN: return inferLRN;
    case LayerType::kMATRIX_MULTIPLY: return inferMatrixMultiply;
    case LayerType::kNMS: return inferNMS;
    case LayerType::kNON_ZERO: return inferNonZero;
    case LayerType::kNORMALIZATION: return inferNormalization;
    case LayerType::kONE_HOT: return inferOneHot;
    case LayerType::kPADDING: return inferPadding;
    case LayerType::kPARAMETRIC_RELU: return inferParametricReLU;
    case LayerType::kPOOLING: return inferPooling;
    case LayerType::kREDUCE: return inferReduce;
    case LayerType::kRESIZE: return inferResize;
    case LayerType::kREVERSE_SEQUENCE: return inferReverseSequence;
    case LayerType::kSCALE: return inferScale;
    case LayerType::kSCATTER: return inferScatter;
    case LayerType::kSELECT: return inferSelect;
    case LayerType::kSHAPE: return inferShape;
    case LayerType::kSHUFFLE: return inferShuffle;
    case LayerType::kSLICE: return inferSlice;
    case LayerType::kSOFTMAX: return inferSoftMax;
    case LayerType::kSQUEEZE: return inferSqueeze;
    case LayerType::kTOPK: return inferTopK;
    case LayerType::kUNARY: return inferUnary;
    case LayerType::kUNSQUEEZE: return inferUnsqueeze;
    case LayerType::kTRIP_LIMIT: return inferTripLimit;
    case LayerType::kRECURRENCE: return inferRecurrence;
    case LayerType::kITERATOR: return inferIterator;
    case LayerType::kLOOP_OUTPUT: return inferLoopOutput;
    case LayerType::kCONDITION: return inferCondition;
    case LayerType::kCONDITIONAL_INPUT: return inferConditionalInput;
    case LayerType::kCONDITIONAL_OUTPUT: return inferConditionalOutput;
    case LayerType::kPLUGIN_V2:
    case LayerType::kPLUGIN_V3: return nullptr; // need the layer's plugin: networkAnalysis calls inferPluginLayer
    default: return nullptr; // not implemented yet: the builder reports the kind by name
    }
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
