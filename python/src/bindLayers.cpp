// Python bindings of the layer classes (I*Layer): this file holds the ILayer downcast hook and calls the per-family
// binders (bindLayersNn.cpp, bindLayersShape.cpp, bindLayersControl.cpp).
#include "bindNetworkCommon.h"
#include "bindings.h"

KILN_IGNORE_DEPRECATED_BEGIN

namespace pybind11
{

using namespace nvinfer1;

namespace
{

template <typename T>
void const* as(ILayer const* src, std::type_info const*& type)
{
    type = &typeid(T);
    return static_cast<T const*>(src);
}

} // namespace

void const* polymorphic_type_hook<ILayer>::get(ILayer const* src, std::type_info const*& type)
{
    type = nullptr;
    if (src == nullptr)
    {
        return src;
    }
    switch (src->getType())
    {
    case LayerType::kCONVOLUTION: return as<IConvolutionLayer>(src, type);
    case LayerType::kCAST: return as<ICastLayer>(src, type);
    case LayerType::kACTIVATION: return as<IActivationLayer>(src, type);
    case LayerType::kPOOLING: return as<IPoolingLayer>(src, type);
    case LayerType::kLRN: return as<ILRNLayer>(src, type);
    case LayerType::kSCALE: return as<IScaleLayer>(src, type);
    case LayerType::kSOFTMAX: return as<ISoftMaxLayer>(src, type);
    case LayerType::kDECONVOLUTION: return as<IDeconvolutionLayer>(src, type);
    case LayerType::kCONCATENATION: return as<IConcatenationLayer>(src, type);
    case LayerType::kELEMENTWISE: return as<IElementWiseLayer>(src, type);
    case LayerType::kUNARY: return as<IUnaryLayer>(src, type);
    case LayerType::kPADDING: return as<IPaddingLayer>(src, type);
    case LayerType::kSHUFFLE: return as<IShuffleLayer>(src, type);
    case LayerType::kREDUCE: return as<IReduceLayer>(src, type);
    case LayerType::kTOPK: return as<ITopKLayer>(src, type);
    case LayerType::kGATHER: return as<IGatherLayer>(src, type);
    case LayerType::kMATRIX_MULTIPLY: return as<IMatrixMultiplyLayer>(src, type);
    case LayerType::kRAGGED_SOFTMAX: return as<IRaggedSoftMaxLayer>(src, type);
    case LayerType::kCONSTANT: return as<IConstantLayer>(src, type);
    case LayerType::kIDENTITY: return as<IIdentityLayer>(src, type);
    case LayerType::kPLUGIN_V2: return as<IPluginV2Layer>(src, type);
    case LayerType::kSLICE: return as<ISliceLayer>(src, type);
    case LayerType::kSHAPE: return as<IShapeLayer>(src, type);
    case LayerType::kPARAMETRIC_RELU: return as<IParametricReLULayer>(src, type);
    case LayerType::kRESIZE: return as<IResizeLayer>(src, type);
    case LayerType::kTRIP_LIMIT: return as<ITripLimitLayer>(src, type);
    case LayerType::kRECURRENCE: return as<IRecurrenceLayer>(src, type);
    case LayerType::kITERATOR: return as<IIteratorLayer>(src, type);
    case LayerType::kLOOP_OUTPUT: return as<ILoopOutputLayer>(src, type);
    case LayerType::kSELECT: return as<ISelectLayer>(src, type);
    case LayerType::kFILL: return as<IFillLayer>(src, type);
    case LayerType::kQUANTIZE: return as<IQuantizeLayer>(src, type);
    case LayerType::kDEQUANTIZE: return as<IDequantizeLayer>(src, type);
    case LayerType::kCONDITION: return as<IConditionLayer>(src, type);
    case LayerType::kCONDITIONAL_INPUT: return as<IIfConditionalInputLayer>(src, type);
    case LayerType::kCONDITIONAL_OUTPUT: return as<IIfConditionalOutputLayer>(src, type);
    case LayerType::kSCATTER: return as<IScatterLayer>(src, type);
    case LayerType::kEINSUM: return as<IEinsumLayer>(src, type);
    case LayerType::kASSERTION: return as<IAssertionLayer>(src, type);
    case LayerType::kONE_HOT: return as<IOneHotLayer>(src, type);
    case LayerType::kNON_ZERO: return as<INonZeroLayer>(src, type);
    case LayerType::kGRID_SAMPLE: return as<IGridSampleLayer>(src, type);
    case LayerType::kNMS: return as<INMSLayer>(src, type);
    case LayerType::kREVERSE_SEQUENCE: return as<IReverseSequenceLayer>(src, type);
    case LayerType::kNORMALIZATION: return as<INormalizationLayer>(src, type);
    case LayerType::kPLUGIN_V3: return as<IPluginV3Layer>(src, type);
    case LayerType::kSQUEEZE: return as<ISqueezeLayer>(src, type);
    case LayerType::kUNSQUEEZE: return as<IUnsqueezeLayer>(src, type);
    case LayerType::kCUMULATIVE: return as<ICumulativeLayer>(src, type);
    default: break;
    }
    // Kinds Kiln does not implement (attention, MoE, ...) stay ILayer.
    return src;
}

} // namespace pybind11

namespace kiln::python
{

void bindLayers(py::module_& m)
{
    bindLayersNn(m);
    bindLayersShape(m);
    bindLayersControl(m);
}

} // namespace kiln::python

KILN_IGNORE_DEPRECATED_END
