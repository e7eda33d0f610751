// Python bindings of the layer enums of NvInfer.h (LayerType, ActivationType, ElementWiseOperation, ...), with
// TensorRT's Python member names (the C++ names without the leading 'k'), and the deprecated aliases ResizeMode and
// SliceMode that TensorRT's Python module still exports.
#include "bindNetworkCommon.h"
#include "core/layerKinds.h"

namespace kiln::python
{

using namespace nvinfer1;

void bindLayerEnums(py::module_& m)
{
    // Every kind of the one list (core/layerKinds.h), named as in TensorRT's Python module: the C++ enumerator
    // without its leading 'k'.
    py::enum_<LayerType> layerType(m, "LayerType", "Kind of a layer (ILayer.type).");
#define KILN_LAYER_TYPE_VALUE(kind, name, iface) layerType.value(&#kind[1], LayerType::kind);
    KILN_FOR_EACH_LAYER_KIND(KILN_LAYER_TYPE_VALUE)
#undef KILN_LAYER_TYPE_VALUE
    py::enum_<ActivationType>(m, "ActivationType", "Function of IActivationLayer.")
        .value("RELU", ActivationType::kRELU)
        .value("SIGMOID", ActivationType::kSIGMOID)
        .value("TANH", ActivationType::kTANH)
        .value("LEAKY_RELU", ActivationType::kLEAKY_RELU)
        .value("ELU", ActivationType::kELU)
        .value("SELU", ActivationType::kSELU)
        .value("SOFTSIGN", ActivationType::kSOFTSIGN)
        .value("SOFTPLUS", ActivationType::kSOFTPLUS)
        .value("CLIP", ActivationType::kCLIP)
        .value("HARD_SIGMOID", ActivationType::kHARD_SIGMOID)
        .value("SCALED_TANH", ActivationType::kSCALED_TANH)
        .value("THRESHOLDED_RELU", ActivationType::kTHRESHOLDED_RELU)
        .value("GELU_ERF", ActivationType::kGELU_ERF)
        .value("GELU_TANH", ActivationType::kGELU_TANH);
    py::enum_<PaddingMode>(m, "PaddingMode", "Padding rule of convolution, deconvolution and pooling.")
        .value("EXPLICIT_ROUND_DOWN", PaddingMode::kEXPLICIT_ROUND_DOWN)
        .value("EXPLICIT_ROUND_UP", PaddingMode::kEXPLICIT_ROUND_UP)
        .value("SAME_UPPER", PaddingMode::kSAME_UPPER)
        .value("SAME_LOWER", PaddingMode::kSAME_LOWER);
    py::enum_<PoolingType>(m, "PoolingType", "Reduction of IPoolingLayer.")
        .value("MAX", PoolingType::kMAX)
        .value("AVERAGE", PoolingType::kAVERAGE)
        .value("MAX_AVERAGE_BLEND", PoolingType::kMAX_AVERAGE_BLEND);
    py::enum_<ScaleMode>(m, "ScaleMode", "Coefficient broadcast of IScaleLayer.")
        .value("UNIFORM", ScaleMode::kUNIFORM)
        .value("CHANNEL", ScaleMode::kCHANNEL)
        .value("ELEMENTWISE", ScaleMode::kELEMENTWISE);
    py::enum_<ElementWiseOperation>(m, "ElementWiseOperation", "Binary operation of IElementWiseLayer.")
        .value("SUM", ElementWiseOperation::kSUM)
        .value("PROD", ElementWiseOperation::kPROD)
        .value("MAX", ElementWiseOperation::kMAX)
        .value("MIN", ElementWiseOperation::kMIN)
        .value("SUB", ElementWiseOperation::kSUB)
        .value("DIV", ElementWiseOperation::kDIV)
        .value("POW", ElementWiseOperation::kPOW)
        .value("FLOOR_DIV", ElementWiseOperation::kFLOOR_DIV)
        .value("AND", ElementWiseOperation::kAND)
        .value("OR", ElementWiseOperation::kOR)
        .value("XOR", ElementWiseOperation::kXOR)
        .value("EQUAL", ElementWiseOperation::kEQUAL)
        .value("GREATER", ElementWiseOperation::kGREATER)
        .value("LESS", ElementWiseOperation::kLESS);
    py::enum_<GatherMode>(m, "GatherMode", "Form of IGatherLayer.")
        .value("DEFAULT", GatherMode::kDEFAULT)
        .value("ELEMENT", GatherMode::kELEMENT)
        .value("ND", GatherMode::kND);
    py::enum_<UnaryOperation>(m, "UnaryOperation", "Operation of IUnaryLayer.")
        .value("EXP", UnaryOperation::kEXP)
        .value("LOG", UnaryOperation::kLOG)
        .value("SQRT", UnaryOperation::kSQRT)
        .value("RECIP", UnaryOperation::kRECIP)
        .value("ABS", UnaryOperation::kABS)
        .value("NEG", UnaryOperation::kNEG)
        .value("SIN", UnaryOperation::kSIN)
        .value("COS", UnaryOperation::kCOS)
        .value("TAN", UnaryOperation::kTAN)
        .value("SINH", UnaryOperation::kSINH)
        .value("COSH", UnaryOperation::kCOSH)
        .value("ASIN", UnaryOperation::kASIN)
        .value("ACOS", UnaryOperation::kACOS)
        .value("ATAN", UnaryOperation::kATAN)
        .value("ASINH", UnaryOperation::kASINH)
        .value("ACOSH", UnaryOperation::kACOSH)
        .value("ATANH", UnaryOperation::kATANH)
        .value("CEIL", UnaryOperation::kCEIL)
        .value("FLOOR", UnaryOperation::kFLOOR)
        .value("ERF", UnaryOperation::kERF)
        .value("NOT", UnaryOperation::kNOT)
        .value("SIGN", UnaryOperation::kSIGN)
        .value("ROUND", UnaryOperation::kROUND)
        .value("ISINF", UnaryOperation::kISINF)
        .value("ISNAN", UnaryOperation::kISNAN);
    py::enum_<ReduceOperation>(m, "ReduceOperation", "Reduction of IReduceLayer.")
        .value("SUM", ReduceOperation::kSUM)
        .value("PROD", ReduceOperation::kPROD)
        .value("MAX", ReduceOperation::kMAX)
        .value("MIN", ReduceOperation::kMIN)
        .value("AVG", ReduceOperation::kAVG)
        .value("NONE", ReduceOperation::kNONE);
    py::enum_<CollectiveOperation>(m, "CollectiveOperation", "Collective of multi-device layers (not implemented by Kiln).")
        .value("ALL_REDUCE", CollectiveOperation::kALL_REDUCE)
        .value("ALL_GATHER", CollectiveOperation::kALL_GATHER)
        .value("BROADCAST", CollectiveOperation::kBROADCAST)
        .value("REDUCE", CollectiveOperation::kREDUCE)
        .value("REDUCE_SCATTER", CollectiveOperation::kREDUCE_SCATTER);
    py::enum_<SampleMode>(m, "SampleMode", "Out-of-bounds rule of ISliceLayer and IGridSampleLayer.")
        .value("STRICT_BOUNDS", SampleMode::kSTRICT_BOUNDS)
        .value("WRAP", SampleMode::kWRAP)
        .value("CLAMP", SampleMode::kCLAMP)
        .value("FILL", SampleMode::kFILL)
        .value("REFLECT", SampleMode::kREFLECT);
    py::enum_<TopKOperation>(m, "TopKOperation", "Whether ITopKLayer keeps the largest or smallest elements.")
        .value("MAX", TopKOperation::kMAX)
        .value("MIN", TopKOperation::kMIN);
    py::enum_<MatrixOperation>(m, "MatrixOperation", "Operand treatment of IMatrixMultiplyLayer.")
        .value("NONE", MatrixOperation::kNONE)
        .value("TRANSPOSE", MatrixOperation::kTRANSPOSE)
        .value("VECTOR", MatrixOperation::kVECTOR);
    py::enum_<InterpolationMode>(m, "InterpolationMode", "Interpolation of IResizeLayer and IGridSampleLayer.")
        .value("NEAREST", InterpolationMode::kNEAREST)
        .value("LINEAR", InterpolationMode::kLINEAR)
        .value("CUBIC", InterpolationMode::kCUBIC);
    py::enum_<ResizeCoordinateTransformation>(m, "ResizeCoordinateTransformation", "Coordinate mapping of IResizeLayer.")
        .value("ALIGN_CORNERS", ResizeCoordinateTransformation::kALIGN_CORNERS)
        .value("ASYMMETRIC", ResizeCoordinateTransformation::kASYMMETRIC)
        .value("HALF_PIXEL", ResizeCoordinateTransformation::kHALF_PIXEL);
    py::enum_<ResizeSelector>(m, "ResizeSelector", "Single-pixel rule of IResizeLayer.")
        .value("FORMULA", ResizeSelector::kFORMULA)
        .value("UPPER", ResizeSelector::kUPPER);
    py::enum_<ResizeRoundMode>(m, "ResizeRoundMode", "Nearest rounding of IResizeLayer.")
        .value("HALF_UP", ResizeRoundMode::kHALF_UP)
        .value("HALF_DOWN", ResizeRoundMode::kHALF_DOWN)
        .value("FLOOR", ResizeRoundMode::kFLOOR)
        .value("CEIL", ResizeRoundMode::kCEIL);
    py::enum_<LoopOutput>(m, "LoopOutput", "What an ILoopOutputLayer produces.")
        .value("LAST_VALUE", LoopOutput::kLAST_VALUE)
        .value("CONCATENATE", LoopOutput::kCONCATENATE)
        .value("REVERSE", LoopOutput::kREVERSE);
    py::enum_<TripLimit>(m, "TripLimit", "Kind of loop trip limit.")
        .value("COUNT", TripLimit::kCOUNT)
        .value("WHILE", TripLimit::kWHILE);
    py::enum_<FillOperation>(m, "FillOperation", "Generator of IFillLayer.")
        .value("LINSPACE", FillOperation::kLINSPACE)
        .value("RANDOM_UNIFORM", FillOperation::kRANDOM_UNIFORM)
        .value("RANDOM_NORMAL", FillOperation::kRANDOM_NORMAL);
    py::enum_<ScatterMode>(m, "ScatterMode", "Form of IScatterLayer.")
        .value("ELEMENT", ScatterMode::kELEMENT)
        .value("ND", ScatterMode::kND);
    py::enum_<BoundingBoxFormat>(m, "BoundingBoxFormat", "Box layout of INMSLayer.")
        .value("CORNER_PAIRS", BoundingBoxFormat::kCORNER_PAIRS)
        .value("CENTER_SIZES", BoundingBoxFormat::kCENTER_SIZES);
    py::enum_<CumulativeOperation>(m, "CumulativeOperation", "Operation of ICumulativeLayer.")
        .value("SUM", CumulativeOperation::kSUM);
    py::enum_<AttentionNormalizationOp>(m, "AttentionNormalizationOp", "Attention normalization (IAttention is not implemented by Kiln).")
        .value("NONE", AttentionNormalizationOp::kNONE)
        .value("SOFTMAX", AttentionNormalizationOp::kSOFTMAX);
    py::enum_<KVCacheMode>(m, "KVCacheMode", "KV-cache update mode (not implemented by Kiln).")
        .value("LINEAR", KVCacheMode::kLINEAR);
    py::enum_<MoEActType>(m, "MoEActType", "Expert activation of IMoELayer (not implemented by Kiln).")
        .value("NONE", MoEActType::kNONE)
        .value("SILU", MoEActType::kSILU);
    m.attr("ResizeMode") = m.attr("InterpolationMode");
    m.attr("SliceMode") = m.attr("SampleMode");
}

} // namespace kiln::python
