// The one list of layer kinds. Every nvinfer1::LayerType appears here once, with the name Kiln uses for it (the
// stem of its file names, its factories and its display name) and the public interface of its layers. Tables per
// kind are generated from this list or written as a `switch` without `default` (compiled with -Werror=switch), so
// that a kind added here and forgotten elsewhere is a compile error; docs/adding-a-layer.md walks through it.
#pragma once

#include "NvInfer.h"

#include <cstdint>

//! KILN_FOR_EACH_LAYER_KIND(X) calls X(kKIND, Name, IInterface) for every layer kind, in LayerType order.
//! IInterface is the class a layer of that kind is (ILayer for kinds without their own interface).
#define KILN_FOR_EACH_LAYER_KIND(X)                                                                                   \
    X(kCONVOLUTION, Convolution, IConvolutionLayer)                                                                    \
    X(kCAST, Cast, ICastLayer)                                                                                         \
    X(kACTIVATION, Activation, IActivationLayer)                                                                       \
    X(kPOOLING, Pooling, IPoolingLayer)                                                                                \
    X(kLRN, LRN, ILRNLayer)                                                                                            \
    X(kSCALE, Scale, IScaleLayer)                                                                                      \
    X(kSOFTMAX, SoftMax, ISoftMaxLayer)                                                                                \
    X(kDECONVOLUTION, Deconvolution, IDeconvolutionLayer)                                                              \
    X(kCONCATENATION, Concatenation, IConcatenationLayer)                                                              \
    X(kELEMENTWISE, ElementWise, IElementWiseLayer)                                                                    \
    X(kPLUGIN, Plugin, ILayer)                                                                                         \
    X(kUNARY, Unary, IUnaryLayer)                                                                                      \
    X(kPADDING, Padding, IPaddingLayer)                                                                                \
    X(kSHUFFLE, Shuffle, IShuffleLayer)                                                                                \
    X(kREDUCE, Reduce, IReduceLayer)                                                                                   \
    X(kTOPK, TopK, ITopKLayer)                                                                                         \
    X(kGATHER, Gather, IGatherLayer)                                                                                   \
    X(kMATRIX_MULTIPLY, MatrixMultiply, IMatrixMultiplyLayer)                                                          \
    X(kRAGGED_SOFTMAX, RaggedSoftMax, IRaggedSoftMaxLayer)                                                             \
    X(kCONSTANT, Constant, IConstantLayer)                                                                             \
    X(kIDENTITY, Identity, IIdentityLayer)                                                                             \
    X(kPLUGIN_V2, PluginV2, IPluginV2Layer)                                                                            \
    X(kSLICE, Slice, ISliceLayer)                                                                                      \
    X(kSHAPE, Shape, IShapeLayer)                                                                                      \
    X(kPARAMETRIC_RELU, ParametricReLU, IParametricReLULayer)                                                          \
    X(kRESIZE, Resize, IResizeLayer)                                                                                   \
    X(kTRIP_LIMIT, TripLimit, ITripLimitLayer)                                                                         \
    X(kRECURRENCE, Recurrence, IRecurrenceLayer)                                                                       \
    X(kITERATOR, Iterator, IIteratorLayer)                                                                             \
    X(kLOOP_OUTPUT, LoopOutput, ILoopOutputLayer)                                                                      \
    X(kSELECT, Select, ISelectLayer)                                                                                   \
    X(kFILL, Fill, IFillLayer)                                                                                         \
    X(kQUANTIZE, Quantize, IQuantizeLayer)                                                                             \
    X(kDEQUANTIZE, Dequantize, IDequantizeLayer)                                                                       \
    X(kCONDITION, Condition, IConditionLayer)                                                                          \
    X(kCONDITIONAL_INPUT, ConditionalInput, IIfConditionalInputLayer)                                                  \
    X(kCONDITIONAL_OUTPUT, ConditionalOutput, IIfConditionalOutputLayer)                                               \
    X(kSCATTER, Scatter, IScatterLayer)                                                                                \
    X(kEINSUM, Einsum, IEinsumLayer)                                                                                   \
    X(kASSERTION, Assertion, IAssertionLayer)                                                                          \
    X(kONE_HOT, OneHot, IOneHotLayer)                                                                                  \
    X(kNON_ZERO, NonZero, INonZeroLayer)                                                                               \
    X(kGRID_SAMPLE, GridSample, IGridSampleLayer)                                                                      \
    X(kNMS, NMS, INMSLayer)                                                                                            \
    X(kREVERSE_SEQUENCE, ReverseSequence, IReverseSequenceLayer)                                                       \
    X(kNORMALIZATION, Normalization, INormalizationLayer)                                                              \
    X(kPLUGIN_V3, PluginV3, IPluginV3Layer)                                                                            \
    X(kSQUEEZE, Squeeze, ISqueezeLayer)                                                                                \
    X(kUNSQUEEZE, Unsqueeze, IUnsqueezeLayer)                                                                          \
    X(kCUMULATIVE, Cumulative, ICumulativeLayer)                                                                       \
    X(kDYNAMIC_QUANTIZE, DynamicQuantize, IDynamicQuantizeLayer)                                                       \
    X(kATTENTION_INPUT, AttentionInput, IAttentionInputLayer)                                                          \
    X(kATTENTION_OUTPUT, AttentionOutput, IAttentionOutputLayer)                                                       \
    X(kROTARY_EMBEDDING, RotaryEmbedding, IRotaryEmbeddingLayer)                                                       \
    X(kKVCACHE_UPDATE, KVCacheUpdate, IKVCacheUpdateLayer)                                                             \
    X(kMOE, MoE, IMoELayer)                                                                                            \
    X(kDIST_COLLECTIVE, DistCollective, IDistCollectiveLayer)

namespace kiln
{

#define KILN_COUNT_LAYER_KIND(kind, name, iface) +1
//! Number of entries in the list; equal to EnumMax<LayerType>() (checked below).
constexpr int32_t kNB_LAYER_KINDS = 0 KILN_FOR_EACH_LAYER_KIND(KILN_COUNT_LAYER_KIND);
#undef KILN_COUNT_LAYER_KIND
static_assert(kNB_LAYER_KINDS == nvinfer1::EnumMax<nvinfer1::LayerType>(),
    "KILN_FOR_EACH_LAYER_KIND must list every nvinfer1::LayerType");

//! The kind's name from the list ("Convolution", "ElementWise", ...); "Layer" for a value outside the enum.
char const* layerKindName(nvinfer1::LayerType kind);

} // namespace kiln
