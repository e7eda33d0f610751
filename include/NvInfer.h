// NvInfer.h — Kiln's network-definition and builder API (TensorRT 10.16 NvInfer.h): layer enums, ITensor,
// ILayer and every layer interface, INetworkDefinition, IBuilderConfig, IBuilder, timing cache and calibrators.
#ifndef NV_INFER_H
#define NV_INFER_H

#include "NvInferLegacyDims.h"
#include "NvInferRuntime.h"

// The header's own references to deprecated declarations must not warn in user builds.
KILN_IGNORE_DEPRECATED_BEGIN

namespace nvinfer1
{

//! Kind of a layer, as returned by ILayer::getType().
enum class LayerType : int32_t
{
    kCONVOLUTION = 0,
    kCAST = 1,
    kACTIVATION = 2,
    kPOOLING = 3,
    kLRN = 4,
    kSCALE = 5,
    kSOFTMAX = 6,
    kDECONVOLUTION = 7,
    kCONCATENATION = 8,
    kELEMENTWISE = 9,
    kPLUGIN = 10,
    kUNARY = 11,
    kPADDING = 12,
    kSHUFFLE = 13,
    kREDUCE = 14,
    kTOPK = 15,
    kGATHER = 16,
    kMATRIX_MULTIPLY = 17,
    kRAGGED_SOFTMAX = 18,
    kCONSTANT = 19,
    kIDENTITY = 20,
    kPLUGIN_V2 = 21,
    kSLICE = 22,
    kSHAPE = 23,
    kPARAMETRIC_RELU = 24,
    kRESIZE = 25,
    kTRIP_LIMIT = 26,
    kRECURRENCE = 27,
    kITERATOR = 28,
    kLOOP_OUTPUT = 29,
    kSELECT = 30,
    kFILL = 31,
    kQUANTIZE = 32,
    kDEQUANTIZE = 33,
    kCONDITION = 34,
    kCONDITIONAL_INPUT = 35,
    kCONDITIONAL_OUTPUT = 36,
    kSCATTER = 37,
    kEINSUM = 38,
    kASSERTION = 39,
    kONE_HOT = 40,
    kNON_ZERO = 41,
    kGRID_SAMPLE = 42,
    kNMS = 43,
    kREVERSE_SEQUENCE = 44,
    kNORMALIZATION = 45,
    kPLUGIN_V3 = 46,
    kSQUEEZE = 47,
    kUNSQUEEZE = 48,
    kCUMULATIVE = 49,
    kDYNAMIC_QUANTIZE = 50,
    kATTENTION_INPUT = 51,
    kATTENTION_OUTPUT = 52,
    kROTARY_EMBEDDING = 53,
    kKVCACHE_UPDATE = 54,
    kMOE = 55,
    kDIST_COLLECTIVE = 56,
};

//! Number of LayerType values.
template <>
constexpr inline int32_t EnumMax<LayerType>() noexcept
{
    return 57;
}

//! Bitmask of TensorFormat values: bit (1U << static_cast<int32_t>(format)) per allowed format.
using TensorFormats = uint32_t;

//! Function applied by IActivationLayer.
enum class ActivationType : int32_t
{
    kRELU = 0,              //!< max(x, 0)
    kSIGMOID = 1,           //!< 1 / (1 + exp(-x))
    kTANH = 2,              //!< tanh(x)
    kLEAKY_RELU = 3,        //!< x >= 0 ? x : alpha * x
    kELU = 4,               //!< x >= 0 ? x : alpha * (exp(x) - 1)
    kSELU = 5,              //!< x > 0 ? beta * x : beta * alpha * (exp(x) - 1)
    kSOFTSIGN = 6,          //!< x / (1 + |x|)
    kSOFTPLUS = 7,          //!< alpha * log(exp(beta * x) + 1)
    kCLIP = 8,              //!< max(alpha, min(beta, x))
    kHARD_SIGMOID = 9,      //!< max(0, min(1, alpha * x + beta))
    kSCALED_TANH = 10,      //!< alpha * tanh(beta * x)
    kTHRESHOLDED_RELU = 11, //!< x > alpha ? x : 0
    kGELU_ERF = 12,         //!< GELU, exact (erf) form
    kGELU_TANH = 13         //!< GELU, tanh approximation
};

namespace impl
{
//! Number of ActivationType values.
template <>
struct EnumMaxImpl<ActivationType>
{
    static constexpr int32_t kVALUE = 14;
};
} // namespace impl

//!
//! \class ITensor
//! \brief A tensor of a network definition. Owned by the network; never deleted by the user.
//!
class ITensor : public INoCopy
{
public:
    //! Set the tensor's name (copied). Input and output names must be unique.
    virtual void setName(char const* name) noexcept = 0;
    //! The tensor's name.
    virtual char const* getName() const noexcept = 0;
    //! Set the dimensions; meaningful only for network inputs (other shapes are inferred).
    virtual void setDimensions(Dims const& dimensions) noexcept = 0;
    //! The dimensions; -1 marks a runtime dimension.
    virtual Dims getDimensions() const noexcept = 0;
    //! Set the data type of a network input or output.
    //! \deprecated Since TensorRT 10.12 (strong typing).
    TRT_DEPRECATED virtual void setType(DataType type) noexcept = 0;
    //! The data type (set or inferred).
    virtual DataType getType() const noexcept = 0;
    //! Set a symmetric dynamic range for implicit INT8 quantization.
    //! \deprecated Since TensorRT 10.1 (explicit quantization).
    TRT_DEPRECATED virtual bool setDynamicRange(float min, float max) noexcept = 0;
    //! Whether the tensor is a network input.
    virtual bool isNetworkInput() const noexcept = 0;
    //! Whether the tensor is a network output.
    virtual bool isNetworkOutput() const noexcept = 0;
    //! No effect besides a warning.
    //! \deprecated Since TensorRT 10.0 (no implicit batch).
    TRT_DEPRECATED virtual void setBroadcastAcrossBatch(bool broadcastAcrossBatch) noexcept = 0;
    //! Always false.
    //! \deprecated Since TensorRT 10.0 (no implicit batch).
    TRT_DEPRECATED virtual bool getBroadcastAcrossBatch() const noexcept = 0;
    //! Where the tensor's data lives.
    virtual TensorLocation getLocation() const noexcept = 0;
    //! Set where the tensor's data lives.
    //! \deprecated Since TensorRT 10.0 (location is always kDEVICE).
    TRT_DEPRECATED virtual void setLocation(TensorLocation location) noexcept = 0;
    //! Whether setDynamicRange() was called.
    //! \deprecated Since TensorRT 10.1 (explicit quantization).
    TRT_DEPRECATED virtual bool dynamicRangeIsSet() const noexcept = 0;
    //! Forget the dynamic range.
    virtual void resetDynamicRange() noexcept = 0;
    //! Lower bound of the dynamic range, NaN if unset.
    virtual float getDynamicRangeMin() const noexcept = 0;
    //! Upper bound of the dynamic range, NaN if unset.
    virtual float getDynamicRangeMax() const noexcept = 0;
    //! Restrict the formats of an I/O tensor (bitmask of TensorFormat). All formats are allowed by default.
    virtual void setAllowedFormats(TensorFormats formats) noexcept = 0;
    //! The allowed formats.
    virtual TensorFormats getAllowedFormats() const noexcept = 0;
    //! Whether the tensor takes part in shape calculations (reliable once the network is complete).
    virtual bool isShapeTensor() const noexcept = 0;
    //! Whether the tensor's contents are needed at execution (reliable once the network is complete).
    virtual bool isExecutionTensor() const noexcept = 0;
    //! Give a symbolic name to dimension \p index of an input; equal names mean equal runtime extents.
    //! nullptr clears the name.
    virtual void setDimensionName(int32_t index, char const* name) noexcept = 0;
    //! The symbolic name of dimension \p index, or nullptr.
    virtual char const* getDimensionName(int32_t index) const noexcept = 0;

protected:
    virtual ~ITensor() noexcept = default;
};

//!
//! \class ILayer
//! \brief Base of every layer of a network definition. Owned by the network.
//!
class ILayer : public INoCopy
{
public:
    //! The layer's kind.
    virtual LayerType getType() const noexcept = 0;
    //! Set the layer's name (copied).
    virtual void setName(char const* name) noexcept = 0;
    //! The layer's name.
    virtual char const* getName() const noexcept = 0;
    //! Number of inputs.
    virtual int32_t getNbInputs() const noexcept = 0;
    //! Input \p index, or nullptr when out of range or an unset optional input.
    virtual ITensor* getInput(int32_t index) const noexcept = 0;
    //! Number of outputs.
    virtual int32_t getNbOutputs() const noexcept = 0;
    //! Output \p index, or nullptr when out of range.
    virtual ITensor* getOutput(int32_t index) const noexcept = 0;
    //! Replace input \p index. Only layers that document it may append inputs this way.
    virtual void setInput(int32_t index, ITensor& tensor) noexcept = 0;
    //! Ask for a computation precision (weakly typed networks only).
    //! \deprecated Since TensorRT 10.12 (strong typing).
    TRT_DEPRECATED virtual void setPrecision(DataType dataType) noexcept = 0;
    //! The computation precision.
    virtual DataType getPrecision() const noexcept = 0;
    //! Whether setPrecision() was called.
    //! \deprecated Since TensorRT 10.12 (strong typing).
    TRT_DEPRECATED virtual bool precisionIsSet() const noexcept = 0;
    //! Undo setPrecision().
    //! \deprecated Since TensorRT 10.12 (strong typing).
    TRT_DEPRECATED virtual void resetPrecision() noexcept = 0;
    //! Ask for an output type (weakly typed networks only).
    //! \deprecated Since TensorRT 10.12 (strong typing).
    TRT_DEPRECATED virtual void setOutputType(int32_t index, DataType dataType) noexcept = 0;
    //! The output type of output \p index.
    virtual DataType getOutputType(int32_t index) const noexcept = 0;
    //! Whether setOutputType() was called for output \p index.
    //! \deprecated Since TensorRT 10.12 (strong typing).
    TRT_DEPRECATED virtual bool outputTypeIsSet(int32_t index) const noexcept = 0;
    //! Undo setOutputType() for output \p index.
    //! \deprecated Since TensorRT 10.12 (strong typing).
    TRT_DEPRECATED virtual void resetOutputType(int32_t index) noexcept = 0;
    //! Attach a metadata string (copied), reported by the engine inspector.
    virtual void setMetadata(char const* metadata) noexcept = 0;
    //! The metadata string; "" when unset.
    virtual char const* getMetadata() const noexcept = 0;
    //! Number of ranks for multi-device execution; only IDistCollectiveLayer accepts more than 1.
    virtual bool setNbRanks(int32_t nbRanks) noexcept = 0;
    //! Number of ranks (default 1).
    virtual int32_t getNbRanks() const noexcept = 0;

protected:
    virtual ~ILayer() noexcept = default;
};

//! How convolution, deconvolution and pooling derive padding and output size.
enum class PaddingMode : int32_t
{
    kEXPLICIT_ROUND_DOWN = 0, //!< Explicit padding, output size rounded down.
    kEXPLICIT_ROUND_UP = 1,   //!< Explicit padding, output size rounded up.
    kSAME_UPPER = 2,          //!< SAME padding; any extra padding goes at the end.
    kSAME_LOWER = 3,          //!< SAME padding; any extra padding goes at the start.
};

namespace impl
{
//! Number of PaddingMode values.
template <>
struct EnumMaxImpl<PaddingMode>
{
    static constexpr int32_t kVALUE = 4;
};
} // namespace impl

//!
//! \class IConvolutionLayer
//! \brief N-dimensional convolution (cross-correlation) with optional bias.
//!
class IConvolutionLayer : public ILayer
{
public:
    //! Number of output feature maps.
    virtual void setNbOutputMaps(int64_t nbOutputMaps) noexcept = 0;
    virtual int64_t getNbOutputMaps() const noexcept = 0;
    //! Number of groups (default 1).
    virtual void setNbGroups(int64_t nbGroups) noexcept = 0;
    virtual int64_t getNbGroups() const noexcept = 0;
    //! Kernel weights in GKCRS order.
    virtual void setKernelWeights(Weights weights) noexcept = 0;
    virtual Weights getKernelWeights() const noexcept = 0;
    //! Per-output-channel bias; a count of 0 means no bias.
    virtual void setBiasWeights(Weights weights) noexcept = 0;
    virtual Weights getBiasWeights() const noexcept = 0;
    //! Zero padding at the start of each spatial dimension.
    virtual void setPrePadding(Dims const& padding) noexcept = 0;
    virtual Dims getPrePadding() const noexcept = 0;
    //! Zero padding at the end of each spatial dimension.
    virtual void setPostPadding(Dims const& padding) noexcept = 0;
    virtual Dims getPostPadding() const noexcept = 0;
    //! Padding mode; takes precedence over explicit padding (default kEXPLICIT_ROUND_DOWN).
    virtual void setPaddingMode(PaddingMode paddingMode) noexcept = 0;
    virtual PaddingMode getPaddingMode() const noexcept = 0;
    //! Kernel extents.
    virtual void setKernelSizeNd(Dims const& kernelSize) noexcept = 0;
    virtual Dims getKernelSizeNd() const noexcept = 0;
    //! Strides (default 1).
    virtual void setStrideNd(Dims const& stride) noexcept = 0;
    virtual Dims getStrideNd() const noexcept = 0;
    //! Symmetric padding; the getter returns the pre-padding.
    virtual void setPaddingNd(Dims const& padding) noexcept = 0;
    virtual Dims getPaddingNd() const noexcept = 0;
    //! Dilations (default 1).
    virtual void setDilationNd(Dims const& dilation) noexcept = 0;
    virtual Dims getDilationNd() const noexcept = 0;
    //! Input 0: data; input 1: kernel tensor (kernel weights must then be empty); input 2: bias tensor.
    using ILayer::setInput;

protected:
    virtual ~IConvolutionLayer() noexcept = default;
};

//!
//! \class IActivationLayer
//! \brief Elementwise activation function.
//!
class IActivationLayer : public ILayer
{
public:
    //! The activation function.
    virtual void setActivationType(ActivationType type) noexcept = 0;
    virtual ActivationType getActivationType() const noexcept = 0;
    //! First parameter of parametric activations (see ActivationType).
    virtual void setAlpha(float alpha) noexcept = 0;
    //! Second parameter of parametric activations (see ActivationType).
    virtual void setBeta(float beta) noexcept = 0;
    virtual float getAlpha() const noexcept = 0;
    virtual float getBeta() const noexcept = 0;

protected:
    virtual ~IActivationLayer() noexcept = default;
};

//! Reduction applied by IPoolingLayer.
enum class PoolingType : int32_t
{
    kMAX = 0,              //!< Maximum over the window.
    kAVERAGE = 1,          //!< Average over the window.
    kMAX_AVERAGE_BLEND = 2 //!< (1 - blendFactor) * max + blendFactor * average.
};

namespace impl
{
//! Number of PoolingType values.
template <>
struct EnumMaxImpl<PoolingType>
{
    static constexpr int32_t kVALUE = 3;
};
} // namespace impl

//!
//! \class IPoolingLayer
//! \brief N-dimensional windowed pooling.
//!
class IPoolingLayer : public ILayer
{
public:
    //! The pooling reduction.
    virtual void setPoolingType(PoolingType type) noexcept = 0;
    virtual PoolingType getPoolingType() const noexcept = 0;
    //! Blend factor in [0, 1] for kMAX_AVERAGE_BLEND (default 0).
    virtual void setBlendFactor(float blendFactor) noexcept = 0;
    virtual float getBlendFactor() const noexcept = 0;
    //! Whether averages divide by the unpadded window area (default true).
    virtual void setAverageCountExcludesPadding(bool exclusive) noexcept = 0;
    virtual bool getAverageCountExcludesPadding() const noexcept = 0;
    //! Padding at the start of each spatial dimension.
    virtual void setPrePadding(Dims const& padding) noexcept = 0;
    virtual Dims getPrePadding() const noexcept = 0;
    //! Padding at the end of each spatial dimension.
    virtual void setPostPadding(Dims const& padding) noexcept = 0;
    virtual Dims getPostPadding() const noexcept = 0;
    //! Padding mode; takes precedence over explicit padding.
    virtual void setPaddingMode(PaddingMode paddingMode) noexcept = 0;
    virtual PaddingMode getPaddingMode() const noexcept = 0;
    //! Window extents.
    virtual void setWindowSizeNd(Dims const& windowSize) noexcept = 0;
    virtual Dims getWindowSizeNd() const noexcept = 0;
    //! Strides (default 1).
    virtual void setStrideNd(Dims const& stride) noexcept = 0;
    virtual Dims getStrideNd() const noexcept = 0;
    //! Symmetric padding; the getter returns the pre-padding.
    virtual void setPaddingNd(Dims const& padding) noexcept = 0;
    virtual Dims getPaddingNd() const noexcept = 0;

protected:
    virtual ~IPoolingLayer() noexcept = default;
};

//!
//! \class ILRNLayer
//! \brief Local response normalization across channels.
//!
class ILRNLayer : public ILayer
{
public:
    //! Window size: odd, in [1, 15].
    virtual void setWindowSize(int64_t windowSize) noexcept = 0;
    virtual int64_t getWindowSize() const noexcept = 0;
    virtual void setAlpha(float alpha) noexcept = 0;
    virtual float getAlpha() const noexcept = 0;
    virtual void setBeta(float beta) noexcept = 0;
    virtual float getBeta() const noexcept = 0;
    virtual void setK(float k) noexcept = 0;
    virtual float getK() const noexcept = 0;

protected:
    virtual ~ILRNLayer() noexcept = default;
};

//! How IScaleLayer's coefficients are broadcast.
enum class ScaleMode : int32_t
{
    kUNIFORM = 0,    //!< One coefficient for the whole tensor.
    kCHANNEL = 1,    //!< One coefficient per channel.
    kELEMENTWISE = 2 //!< One coefficient per element.
};

//! Number of ScaleMode values.
template <>
constexpr inline int32_t EnumMax<ScaleMode>() noexcept
{
    return 3;
}

//!
//! \class IScaleLayer
//! \brief Computes (input * scale + shift) ^ power with uniform, per-channel or elementwise coefficients.
//! Empty weights stand for shift 0, scale 1, power 1.
//!
class IScaleLayer : public ILayer
{
public:
    virtual void setMode(ScaleMode mode) noexcept = 0;
    virtual ScaleMode getMode() const noexcept = 0;
    virtual void setShift(Weights shift) noexcept = 0;
    virtual Weights getShift() const noexcept = 0;
    virtual void setScale(Weights scale) noexcept = 0;
    virtual Weights getScale() const noexcept = 0;
    virtual void setPower(Weights power) noexcept = 0;
    virtual Weights getPower() const noexcept = 0;
    //! Index of the channel axis used by kCHANNEL and kELEMENTWISE.
    virtual int32_t getChannelAxis() const noexcept = 0;
    virtual void setChannelAxis(int32_t channelAxis) noexcept = 0;

protected:
    virtual ~IScaleLayer() noexcept = default;
};

//!
//! \class ISoftMaxLayer
//! \brief Softmax along one axis.
//!
class ISoftMaxLayer : public ILayer
{
public:
    //! Axis as a one-bit mask (1 << axis). Default: rank - 3, or 0 for rank < 3.
    virtual void setAxes(uint32_t axes) noexcept = 0;
    virtual uint32_t getAxes() const noexcept = 0;

protected:
    virtual ~ISoftMaxLayer() noexcept = default;
};

//!
//! \class IConcatenationLayer
//! \brief Concatenates its inputs along one axis.
//!
class IConcatenationLayer : public ILayer
{
public:
    //! Concatenation axis. Default: rank - 3, or 0 for rank < 3.
    virtual void setAxis(int32_t axis) noexcept = 0;
    virtual int32_t getAxis() const noexcept = 0;

protected:
    virtual ~IConcatenationLayer() noexcept = default;
};

//!
//! \class IDeconvolutionLayer
//! \brief N-dimensional transposed convolution with optional bias.
//!
class IDeconvolutionLayer : public ILayer
{
public:
    virtual void setNbOutputMaps(int64_t nbOutputMaps) noexcept = 0;
    virtual int64_t getNbOutputMaps() const noexcept = 0;
    virtual void setNbGroups(int64_t nbGroups) noexcept = 0;
    virtual int64_t getNbGroups() const noexcept = 0;
    //! Kernel weights in CKRS order.
    virtual void setKernelWeights(Weights weights) noexcept = 0;
    virtual Weights getKernelWeights() const noexcept = 0;
    //! Per-output-map bias; a count of 0 means no bias.
    virtual void setBiasWeights(Weights weights) noexcept = 0;
    virtual Weights getBiasWeights() const noexcept = 0;
    //! Elements trimmed from the start of each output dimension.
    virtual void setPrePadding(Dims const& padding) noexcept = 0;
    virtual Dims getPrePadding() const noexcept = 0;
    //! Elements trimmed from the end of each output dimension.
    virtual void setPostPadding(Dims const& padding) noexcept = 0;
    virtual Dims getPostPadding() const noexcept = 0;
    virtual void setPaddingMode(PaddingMode paddingMode) noexcept = 0;
    virtual PaddingMode getPaddingMode() const noexcept = 0;
    virtual void setKernelSizeNd(Dims const& kernelSize) noexcept = 0;
    virtual Dims getKernelSizeNd() const noexcept = 0;
    virtual void setStrideNd(Dims const& stride) noexcept = 0;
    virtual Dims getStrideNd() const noexcept = 0;
    virtual void setPaddingNd(Dims const& padding) noexcept = 0;
    virtual Dims getPaddingNd() const noexcept = 0;
    //! Input 0: data; input 1: kernel tensor; input 2: bias tensor.
    using ILayer::setInput;
    virtual void setDilationNd(Dims const& dilation) noexcept = 0;
    virtual Dims getDilationNd() const noexcept = 0;

protected:
    virtual ~IDeconvolutionLayer() noexcept = default;
};

//! Binary operation of IElementWiseLayer. kAND, kOR and kXOR take kBOOL inputs.
enum class ElementWiseOperation : int32_t
{
    kSUM = 0,       //!< a + b
    kPROD = 1,      //!< a * b
    kMAX = 2,       //!< max(a, b)
    kMIN = 3,       //!< min(a, b)
    kSUB = 4,       //!< a - b
    kDIV = 5,       //!< a / b
    kPOW = 6,       //!< a ^ b
    kFLOOR_DIV = 7, //!< floor(a / b)
    kAND = 8,       //!< a && b
    kOR = 9,        //!< a || b
    kXOR = 10,      //!< a != b for booleans
    kEQUAL = 11,    //!< a == b
    kGREATER = 12,  //!< a > b
    kLESS = 13      //!< a < b
};

namespace impl
{
//! Number of ElementWiseOperation values.
template <>
struct EnumMaxImpl<ElementWiseOperation>
{
    static constexpr int32_t kVALUE = 14;
};
} // namespace impl

//!
//! \class IElementWiseLayer
//! \brief Binary elementwise operation with broadcasting of size-1 dimensions (inputs of equal rank).
//!
class IElementWiseLayer : public ILayer
{
public:
    virtual void setOperation(ElementWiseOperation op) noexcept = 0;
    virtual ElementWiseOperation getOperation() const noexcept = 0;

protected:
    virtual ~IElementWiseLayer() noexcept = default;
};

//! Form of IGatherLayer.
enum class GatherMode : int32_t
{
    kDEFAULT = 0, //!< Like ONNX Gather.
    kELEMENT = 1, //!< Like ONNX GatherElements.
    kND = 2       //!< Like ONNX GatherND.
};

//! Number of GatherMode values.
template <>
constexpr inline int32_t EnumMax<GatherMode>() noexcept
{
    return 3;
}

//!
//! \class IGatherLayer
//! \brief Gathers elements of a data tensor (input 0) at the positions given by an index tensor (input 1).
//!
class IGatherLayer : public ILayer
{
public:
    //! Axis used by kDEFAULT and kELEMENT (default 0).
    virtual void setGatherAxis(int32_t axis) noexcept = 0;
    virtual int32_t getGatherAxis() const noexcept = 0;
    //! Number of leading index dimensions handled elementwise (default 0).
    virtual void setNbElementWiseDims(int32_t elementWiseDims) noexcept = 0;
    virtual int32_t getNbElementWiseDims() const noexcept = 0;
    virtual void setMode(GatherMode mode) noexcept = 0;
    virtual GatherMode getMode() const noexcept = 0;

protected:
    virtual ~IGatherLayer() noexcept = default;
};

//!
//! \class IPluginV2Layer
//! \brief Layer wrapping an IPluginV2.
//! \deprecated Since TensorRT 10.8; use IPluginV3Layer.
//!
class TRT_DEPRECATED IPluginV2Layer : public ILayer
{
public:
    //! The plugin of this layer.
    virtual IPluginV2& getPlugin() noexcept = 0;

protected:
    virtual ~IPluginV2Layer() noexcept = default;
};

//!
//! \class IPluginV3Layer
//! \brief Layer wrapping an IPluginV3.
//!
class IPluginV3Layer : public ILayer
{
public:
    //! The plugin of this layer.
    virtual IPluginV3& getPlugin() noexcept = 0;

protected:
    virtual ~IPluginV3Layer() noexcept = default;
};

//! Operation of IUnaryLayer. kNOT takes kBOOL; kSIGN and kABS also take integers; the rest take floats.
enum class UnaryOperation : int32_t
{
    kEXP = 0,    //!< e^x
    kLOG = 1,    //!< ln(x)
    kSQRT = 2,   //!< square root
    kRECIP = 3,  //!< 1 / x
    kABS = 4,    //!< |x|
    kNEG = 5,    //!< -x
    kSIN = 6,    //!< sine
    kCOS = 7,    //!< cosine
    kTAN = 8,    //!< tangent
    kSINH = 9,   //!< hyperbolic sine
    kCOSH = 10,  //!< hyperbolic cosine
    kASIN = 11,  //!< arcsine
    kACOS = 12,  //!< arccosine
    kATAN = 13,  //!< arctangent
    kASINH = 14, //!< inverse hyperbolic sine
    kACOSH = 15, //!< inverse hyperbolic cosine
    kATANH = 16, //!< inverse hyperbolic tangent
    kCEIL = 17,  //!< ceiling
    kFLOOR = 18, //!< floor
    kERF = 19,   //!< error function
    kNOT = 20,   //!< logical not
    kSIGN = 21,  //!< -1, 0 or 1
    kROUND = 22, //!< round half to even
    kISINF = 23, //!< true for +/- infinity
    kISNAN = 24, //!< true for NaN
};

//! Number of UnaryOperation values.
template <>
constexpr inline int32_t EnumMax<UnaryOperation>() noexcept
{
    return 25;
}

//!
//! \class IUnaryLayer
//! \brief Elementwise unary operation.
//!
class IUnaryLayer : public ILayer
{
public:
    virtual void setOperation(UnaryOperation op) noexcept = 0;
    virtual UnaryOperation getOperation() const noexcept = 0;

protected:
    virtual ~IUnaryLayer() noexcept = default;
};

//! Reduction of IReduceLayer (and of collectives). kNONE leaves the input unchanged (multi-device only).
enum class ReduceOperation : int32_t
{
    kSUM = 0,  //!< Sum.
    kPROD = 1, //!< Product.
    kMAX = 2,  //!< Maximum.
    kMIN = 3,  //!< Minimum.
    kAVG = 4,  //!< Mean.
    kNONE = 5, //!< No reduction.
};

//! Number of ReduceOperation values.
template <>
constexpr inline int32_t EnumMax<ReduceOperation>() noexcept
{
    return 6;
}

//! Collective of IDistCollectiveLayer.
enum class CollectiveOperation : int32_t
{
    kALL_REDUCE = 0,     //!< All-reduce.
    kALL_GATHER = 1,     //!< All-gather.
    kBROADCAST = 2,      //!< Broadcast from the root rank.
    kREDUCE = 3,         //!< Reduce onto the root rank.
    kREDUCE_SCATTER = 4, //!< Reduce-scatter.
};

namespace impl
{
//! Number of CollectiveOperation values.
template <>
struct EnumMaxImpl<CollectiveOperation>
{
    static constexpr int32_t kVALUE = 5;
};
} // namespace impl

//!
//! \class IReduceLayer
//! \brief Reduces a non-boolean tensor over a set of axes.
//!
class IReduceLayer : public ILayer
{
public:
    virtual void setOperation(ReduceOperation op) noexcept = 0;
    virtual ReduceOperation getOperation() const noexcept = 0;
    //! Axes to reduce, as a bitmask.
    virtual void setReduceAxes(uint32_t reduceAxes) noexcept = 0;
    virtual uint32_t getReduceAxes() const noexcept = 0;
    //! Whether reduced axes stay as extent-1 dimensions.
    virtual void setKeepDimensions(bool keepDimensions) noexcept = 0;
    virtual bool getKeepDimensions() const noexcept = 0;

protected:
    virtual ~IReduceLayer() noexcept = default;
};

//!
//! \class IPaddingLayer
//! \brief Zero-pads (or, with negative values, crops) the last two dimensions.
//!
class IPaddingLayer : public ILayer
{
public:
    //! Padding at the start of the last two dimensions.
    virtual void setPrePaddingNd(Dims const& padding) noexcept = 0;
    virtual Dims getPrePaddingNd() const noexcept = 0;
    //! Padding at the end of the last two dimensions.
    virtual void setPostPaddingNd(Dims const& padding) noexcept = 0;
    virtual Dims getPostPaddingNd() const noexcept = 0;

protected:
    virtual ~IPaddingLayer() noexcept = default;
};

//! A permutation of dimensions: output dimension order[i] takes input dimension i.
struct Permutation
{
    //! order[inputIndex] = outputIndex.
    int32_t order[Dims::MAX_DIMS];
};

//!
//! \class IShuffleLayer
//! \brief Transpose, then reshape, then transpose again.
//!
class IShuffleLayer : public ILayer
{
public:
    //! Permutation applied before the reshape (default identity).
    virtual void setFirstTranspose(Permutation permutation) noexcept = 0;
    virtual Permutation getFirstTranspose() const noexcept = 0;
    //! Reshape dimensions: 0 copies the input extent (see setZeroIsPlaceholder), -1 is inferred.
    //! Clears a shape tensor given as input 1.
    virtual void setReshapeDimensions(Dims const& dimensions) noexcept = 0;
    //! Reshape dimensions; nbDims == -1 when they come from input 1 or were never set.
    virtual Dims getReshapeDimensions() const noexcept = 0;
    //! Input 0: data; input 1 (optional, makes the layer dynamic): 1D Int32/Int64 reshape dimensions.
    using ILayer::setInput;
    //! Permutation applied after the reshape (default identity).
    virtual void setSecondTranspose(Permutation permutation) noexcept = 0;
    virtual Permutation getSecondTranspose() const noexcept = 0;
    //! Whether 0 in the reshape dimensions copies the input extent (default true) or means length 0.
    virtual void setZeroIsPlaceholder(bool zeroIsPlaceholder) noexcept = 0;
    virtual bool getZeroIsPlaceholder() const noexcept = 0;

protected:
    virtual ~IShuffleLayer() noexcept = default;
};

//! How ISliceLayer and IGridSampleLayer treat out-of-bounds coordinates.
enum class SampleMode : int32_t
{
    kSTRICT_BOUNDS = 0, //!< Out of bounds is an error.
    kWRAP = 1,          //!< Coordinates wrap around.
    kCLAMP = 2,         //!< Coordinates are clamped to the bounds.
    kFILL = 3,          //!< Out-of-bounds elements take the fill value (slice input 4).
    kREFLECT = 4,       //!< Coordinates reflect at the borders.
};

//! Number of SampleMode values.
template <>
constexpr inline int32_t EnumMax<SampleMode>() noexcept
{
    return 5;
}

//!
//! \class ISliceLayer
//! \brief Strided slice. Start, size, stride and axes may be static Dims or 1D Int32/Int64 tensors given as
//! inputs 1, 2, 3 and 5; input 4 is the fill value for SampleMode::kFILL.
//!
class ISliceLayer : public ILayer
{
public:
    //! Start offsets; clears input 1.
    virtual void setStart(Dims const& start) noexcept = 0;
    //! Start offsets; nbDims == -1 when given by input 1.
    virtual Dims getStart() const noexcept = 0;
    //! Output extents; clears input 2.
    virtual void setSize(Dims const& size) noexcept = 0;
    virtual Dims getSize() const noexcept = 0;
    //! Strides; clears input 3.
    virtual void setStride(Dims const& stride) noexcept = 0;
    virtual Dims getStride() const noexcept = 0;
    virtual void setMode(SampleMode mode) noexcept = 0;
    virtual SampleMode getMode() const noexcept = 0;
    //! Inputs 0-5: data, start, size, stride, fill value, axes.
    using ILayer::setInput;
    //! Axes that start, size and stride refer to; clears input 5.
    virtual void setAxes(Dims const& axes) noexcept = 0;
    virtual Dims getAxes() const noexcept = 0;

protected:
    virtual ~ISliceLayer() noexcept = default;
};

//!
//! \class IShapeLayer
//! \brief Outputs the dimensions of its input as a 1D Int64 tensor.
//!
class IShapeLayer : public ILayer
{
protected:
    virtual ~IShapeLayer() noexcept = default;
};

//! Whether ITopKLayer keeps the largest or the smallest elements.
enum class TopKOperation : int32_t
{
    kMAX = 0, //!< Largest elements.
    kMIN = 1, //!< Smallest elements.
};

//! Number of TopKOperation values.
template <>
constexpr inline int32_t EnumMax<TopKOperation>() noexcept
{
    return 2;
}

//!
//! \class ITopKLayer
//! \brief Top-k values (output 0) and their indices (output 1) along one axis; k is static or input 1.
//!
class ITopKLayer : public ILayer
{
public:
    virtual void setOperation(TopKOperation op) noexcept = 0;
    virtual TopKOperation getOperation() const noexcept = 0;
    //! Static k (at most 3840); clears input 1.
    virtual void setK(int32_t k) noexcept = 0;
    //! Static k, or -1 when k comes from input 1.
    virtual int32_t getK() const noexcept = 0;
    //! Axis to reduce, as a one-bit mask.
    virtual void setReduceAxes(uint32_t reduceAxes) noexcept = 0;
    virtual uint32_t getReduceAxes() const noexcept = 0;
    //! Input 0: data; input 1: scalar Int32 k.
    using ILayer::setInput;
    //! Type of the index output: kINT32 (default) or kINT64.
    virtual bool setIndicesType(DataType type) noexcept = 0;
    virtual DataType getIndicesType() const noexcept = 0;

protected:
    virtual ~ITopKLayer() noexcept = default;
};

//! How IMatrixMultiplyLayer treats an operand before multiplying.
enum class MatrixOperation : int32_t
{
    kNONE = 0,      //!< A matrix (or a batch of matrices in the last two dimensions).
    kTRANSPOSE = 1, //!< Like kNONE, with the two matrix dimensions swapped.
    kVECTOR = 2,    //!< A vector (or a batch of vectors in the last dimension).
};

//! Number of MatrixOperation values.
template <>
constexpr inline int32_t EnumMax<MatrixOperation>() noexcept
{
    return 3;
}

//!
//! \class IMatrixMultiplyLayer
//! \brief Batched matrix/vector product with broadcasting of batch dimensions.
//!
class IMatrixMultiplyLayer : public ILayer
{
public:
    //! Operation for input \p index (0 or 1).
    virtual void setOperation(int32_t index, MatrixOperation op) noexcept = 0;
    virtual MatrixOperation getOperation(int32_t index) const noexcept = 0;

protected:
    virtual ~IMatrixMultiplyLayer() noexcept = default;
};

//!
//! \class INonZeroLayer
//! \brief Coordinates of the non-zero (true) elements as an [rank, count] index matrix.
//!
class INonZeroLayer : public ILayer
{
public:
    //! Index type: kINT32 (default) or kINT64.
    virtual bool setIndicesType(DataType type) noexcept = 0;
    virtual DataType getIndicesType() const noexcept = 0;

protected:
    virtual ~INonZeroLayer() noexcept = default;
};

//!
//! \class IRaggedSoftMaxLayer
//! \brief Softmax over each of Z sequences of a ZxS input, with lengths from a Zx1 bounds tensor.
//!
class IRaggedSoftMaxLayer : public ILayer
{
protected:
    virtual ~IRaggedSoftMaxLayer() noexcept = default;
};

//!
//! \class IIdentityLayer
//! \brief Copies its input; in weakly typed networks it may also convert the type.
//!
class IIdentityLayer : public ILayer
{
protected:
    virtual ~IIdentityLayer() noexcept = default;
};

//!
//! \class ICastLayer
//! \brief Converts its input to another data type.
//!
class ICastLayer : public ILayer
{
public:
    virtual void setToType(DataType toType) noexcept = 0;
    virtual DataType getToType() const noexcept = 0;

protected:
    virtual ~ICastLayer() noexcept = default;
};

//!
//! \class IConstantLayer
//! \brief Outputs a constant tensor built from weights.
//!
class IConstantLayer : public ILayer
{
public:
    //! The weights; their type is the output type.
    virtual void setWeights(Weights weights) noexcept = 0;
    virtual Weights getWeights() const noexcept = 0;
    virtual void setDimensions(Dims const& dimensions) noexcept = 0;
    virtual Dims getDimensions() const noexcept = 0;

protected:
    virtual ~IConstantLayer() noexcept = default;
};

//!
//! \class IParametricReLULayer
//! \brief x >= 0 ? x : slope * x, with the slope tensor broadcast to the input.
//!
class IParametricReLULayer : public ILayer
{
protected:
    virtual ~IParametricReLULayer() noexcept = default;
};

//! Interpolation of IResizeLayer and IGridSampleLayer.
enum class InterpolationMode : int32_t
{
    kNEAREST = 0, //!< Nearest neighbour, up to 8 dimensions.
    kLINEAR = 1,  //!< Linear, bilinear or trilinear.
    kCUBIC = 2    //!< Bicubic (2D).
};

namespace impl
{
//! Number of InterpolationMode values.
template <>
struct EnumMaxImpl<InterpolationMode>
{
    static constexpr int32_t kVALUE = 3;
};
} // namespace impl

//! How IResizeLayer maps an output coordinate to an input coordinate.
enum class ResizeCoordinateTransformation : int32_t
{
    kALIGN_CORNERS = 0, //!< in = out * (inLength - 1) / (outLength - 1)
    kASYMMETRIC = 1,    //!< in = out * inLength / outLength
    kHALF_PIXEL = 2,    //!< in = (out + 0.5) * inLength / outLength - 0.5
};

namespace impl
{
//! Number of ResizeCoordinateTransformation values.
template <>
struct EnumMaxImpl<ResizeCoordinateTransformation>
{
    static constexpr int32_t kVALUE = 3;
};
} // namespace impl

//! Coordinate choice when IResizeLayer resizes a dimension to a single element.
enum class ResizeSelector : int32_t
{
    kFORMULA = 0, //!< Use the coordinate transformation.
    kUPPER = 1,   //!< Take the first (upper-left) element.
};

namespace impl
{
//! Number of ResizeSelector values.
template <>
struct EnumMaxImpl<ResizeSelector>
{
    static constexpr int32_t kVALUE = 2;
};
} // namespace impl

//! Rounding of nearest-neighbour resizing.
enum class ResizeRoundMode : int32_t
{
    kHALF_UP = 0,   //!< Round half up.
    kHALF_DOWN = 1, //!< Round half down.
    kFLOOR = 2,     //!< Round down.
    kCEIL = 3,      //!< Round up.
};

namespace impl
{
//! Number of ResizeRoundMode values.
template <>
struct EnumMaxImpl<ResizeRoundMode>
{
    static constexpr int32_t kVALUE = 4;
};
} // namespace impl

//!
//! \class IResizeLayer
//! \brief Resizes the trailing dimensions of a tensor by interpolation. Output size comes from static
//! dimensions, static scales, or a shape tensor given as input 1.
//!
class IResizeLayer : public ILayer
{
public:
    //! Output dimensions (same rank as the input); an error when input 1 is set.
    virtual void setOutputDimensions(Dims const& dimensions) noexcept = 0;
    virtual Dims getOutputDimensions() const noexcept = 0;
    //! One scale per input dimension: out = floor(in * scale); an error when input 1 is set.
    virtual void setScales(float const* scales, int32_t nbScales) noexcept = 0;
    //! Copies the scales when \p size matches their count; returns the count, or -1 when none are set.
    virtual int32_t getScales(int32_t size, float* scales) const noexcept = 0;
    //! Interpolation (default kNEAREST).
    virtual void setResizeMode(InterpolationMode interpolationMode) noexcept = 0;
    virtual InterpolationMode getResizeMode() const noexcept = 0;
    //! Input 0: data; input 1 (makes the layer dynamic): 1D Int32/Int64 output dimensions.
    using ILayer::setInput;
    //! Coordinate transformation (default kASYMMETRIC).
    virtual void setCoordinateTransformation(ResizeCoordinateTransformation coordTransform) noexcept = 0;
    virtual ResizeCoordinateTransformation getCoordinateTransformation() const noexcept = 0;
    //! Selector for single-element outputs (default kFORMULA).
    virtual void setSelectorForSinglePixel(ResizeSelector selector) noexcept = 0;
    virtual ResizeSelector getSelectorForSinglePixel() const noexcept = 0;
    //! Nearest-neighbour rounding (default kFLOOR).
    virtual void setNearestRounding(ResizeRoundMode value) noexcept = 0;
    virtual ResizeRoundMode getNearestRounding() const noexcept = 0;
    //! Cubic coefficient A (default -0.75).
    virtual void setCubicCoeff(float A) noexcept = 0;
    virtual float getCubicCoeff() const noexcept = 0;
    //! Whether samples outside the input get weight 0, with the weights renormalized (default false).
    virtual void setExcludeOutside(bool excludeFlag) noexcept = 0;
    virtual bool getExcludeOutside() const noexcept = 0;

protected:
    virtual ~IResizeLayer() noexcept = default;
};

//! What an ILoopOutputLayer produces.
enum class LoopOutput : int32_t
{
    kLAST_VALUE = 0,  //!< The value of the last iteration.
    kCONCATENATE = 1, //!< Values of all iterations, concatenated in order.
    kREVERSE = 2      //!< Values of all iterations, concatenated in reverse order.
};

//! Number of LoopOutput values.
template <>
constexpr inline int32_t EnumMax<LoopOutput>() noexcept
{
    return 3;
}

//! Kind of loop trip limit.
enum class TripLimit : int32_t
{
    kCOUNT = 0, //!< Scalar kINT32/kINT64 trip count.
    kWHILE = 1  //!< Scalar kBOOL; the loop stops when it is false.
};

//! Number of TripLimit values.
template <>
constexpr inline int32_t EnumMax<TripLimit>() noexcept
{
    return 2;
}

class ILoop;
class IIfConditional;

//!
//! \class ILoopBoundaryLayer
//! \brief Base of the layers that delimit a loop (trip limit, iterator, recurrence, loop output).
//!
class ILoopBoundaryLayer : public ILayer
{
public:
    //! The loop this layer belongs to.
    virtual ILoop* getLoop() const noexcept = 0;

protected:
    virtual ~ILoopBoundaryLayer() noexcept = default;
};

//!
//! \class IIfConditionalBoundaryLayer
//! \brief Base of the layers that delimit an if-conditional.
//!
class IIfConditionalBoundaryLayer : public ILayer
{
public:
    //! The conditional this layer belongs to.
    virtual IIfConditional* getConditional() const noexcept = 0;

protected:
    virtual ~IIfConditionalBoundaryLayer() noexcept = default;
};

//!
//! \class IConditionLayer
//! \brief The condition input of an IIfConditional.
//!
class IConditionLayer : public IIfConditionalBoundaryLayer
{
public:
protected:
    virtual ~IConditionLayer() noexcept = default;
};

//!
//! \class IIfConditionalOutputLayer
//! \brief An output of an IIfConditional: input 0 from the true branch, input 1 from the false branch.
//!
class IIfConditionalOutputLayer : public IIfConditionalBoundaryLayer
{
public:
protected:
    virtual ~IIfConditionalOutputLayer() noexcept = default;
};

//!
//! \class IIfConditionalInputLayer
//! \brief An input of an IIfConditional.
//!
class IIfConditionalInputLayer : public IIfConditionalBoundaryLayer
{
public:
protected:
    virtual ~IIfConditionalInputLayer() noexcept = default;
};

//!
//! \class IIfConditional
//! \brief Builder of a conditionally executed pair of subgraphs selected by a 0D kBOOL condition.
//!
class IIfConditional : public INoCopy
{
public:
    //! Set the condition: a 0D kBOOL execution tensor.
    virtual IConditionLayer* setCondition(ITensor& condition) noexcept = 0;
    //! Add an output taking \p trueSubgraphOutput or \p falseSubgraphOutput depending on the condition.
    virtual IIfConditionalOutputLayer* addOutput(ITensor& trueSubgraphOutput, ITensor& falseSubgraphOutput) noexcept
        = 0;
    //! Add an input usable by both branches.
    virtual IIfConditionalInputLayer* addInput(ITensor& input) noexcept = 0;
    //! Name used in diagnostics (copied).
    virtual void setName(char const* name) noexcept = 0;
    virtual char const* getName() const noexcept = 0;

protected:
    virtual ~IIfConditional() noexcept = default;
};

//!
//! \class IRecurrenceLayer
//! \brief Loop-carried value: input 0 is the initial value (from outside the loop), input 1 the next value.
//!
class IRecurrenceLayer : public ILoopBoundaryLayer
{
public:
    //! Input 0: initial value; input 1: next value.
    using ILayer::setInput;

protected:
    virtual ~IRecurrenceLayer() noexcept = default;
};

//!
//! \class ILoopOutputLayer
//! \brief The only way out of a loop. For kCONCATENATE and kREVERSE, input 1 is a 0D shape tensor giving the
//! concatenated length.
//!
class ILoopOutputLayer : public ILoopBoundaryLayer
{
public:
    virtual LoopOutput getLoopOutput() const noexcept = 0;
    //! Position of the concatenation axis in the output (default 0); ignored for kLAST_VALUE.
    virtual void setAxis(int32_t axis) noexcept = 0;
    virtual int32_t getAxis() const noexcept = 0;
    //! Input 0: value from inside the loop; input 1: concatenation length.
    using ILayer::setInput;

protected:
    virtual ~ILoopOutputLayer() noexcept = default;
};

//!
//! \class ITripLimitLayer
//! \brief Limits the number of iterations of a loop (by count or by condition).
//!
class ITripLimitLayer : public ILoopBoundaryLayer
{
public:
    virtual TripLimit getTripLimit() const noexcept = 0;

protected:
    virtual ~ITripLimitLayer() noexcept = default;
};

//!
//! \class IIteratorLayer
//! \brief Gives each iteration the next slice of a tensor along an axis.
//!
class IIteratorLayer : public ILoopBoundaryLayer
{
public:
    virtual void setAxis(int32_t axis) noexcept = 0;
    virtual int32_t getAxis() const noexcept = 0;
    //! Iterate from the end (default false).
    virtual void setReverse(bool reverse) noexcept = 0;
    virtual bool getReverse() const noexcept = 0;

protected:
    virtual ~IIteratorLayer() noexcept = default;
};

//!
//! \class ILoop
//! \brief Builder of a recurrent subgraph.
//!
class ILoop : public INoCopy
{
public:
    //! Add a recurrence whose input 0 is \p initialValue; input 1 must be set before building.
    virtual IRecurrenceLayer* addRecurrence(ITensor& initialValue) noexcept = 0;
    //! Add a trip limit (at most one kCOUNT and one kWHILE per loop).
    virtual ITripLimitLayer* addTripLimit(ITensor& tensor, TripLimit limit) noexcept = 0;
    //! Add an iterator over \p tensor along \p axis.
    virtual IIteratorLayer* addIterator(ITensor& tensor, int32_t axis = 0, bool reverse = false) noexcept = 0;
    //! Add a loop output; kCONCATENATE and kREVERSE need input 1 set afterwards.
    virtual ILoopOutputLayer* addLoopOutput(ITensor& tensor, LoopOutput outputKind, int32_t axis = 0) noexcept = 0;
    //! Name used in diagnostics (copied).
    virtual void setName(char const* name) noexcept = 0;
    virtual char const* getName() const noexcept = 0;

protected:
    virtual ~ILoop() noexcept = default;
};

//!
//! \class ISelectLayer
//! \brief Elementwise choice between inputs 1 and 2 by the kBOOL condition input 0, with broadcasting.
//!
class ISelectLayer : public ILayer
{
protected:
    virtual ~ISelectLayer() noexcept = default;
};

//!
//! \class IAssertionLayer
//! \brief Fails the build or the run when its boolean shape-tensor input has a false element.
//!
class IAssertionLayer : public ILayer
{
public:
    //! Message reported when the assertion fails (copied).
    virtual void setMessage(char const* message) noexcept = 0;
    virtual char const* getMessage() const noexcept = 0;

protected:
    virtual ~IAssertionLayer() noexcept = default;
};

//! How IFillLayer generates values.
enum class FillOperation : int32_t
{
    kLINSPACE = 0,       //!< alpha + sum(beta[d] * index[d]); Int32, Int64 or Float output.
    kRANDOM_UNIFORM = 1, //!< Uniform in [alpha, beta]; Float or Half output.
    kRANDOM_NORMAL = 2   //!< Normal with mean alpha and deviation beta; Float or Half output.
};

//! Number of FillOperation values.
template <>
constexpr inline int32_t EnumMax<FillOperation>() noexcept
{
    return 3;
}

//!
//! \class IFillLayer
//! \brief Generates a tensor. Inputs 0-2 (optional) replace the static dimensions, alpha and beta.
//!
class IFillLayer : public ILayer
{
public:
    //! Output dimensions; clears input 0.
    virtual void setDimensions(Dims const& dimensions) noexcept = 0;
    //! Output dimensions; nbDims == -1 when given by input 0.
    virtual Dims getDimensions() const noexcept = 0;
    virtual void setOperation(FillOperation op) noexcept = 0;
    virtual FillOperation getOperation() const noexcept = 0;
    //! Start (kLINSPACE), minimum (uniform) or mean (normal); clears input 1.
    virtual void setAlpha(double alpha) noexcept = 0;
    virtual double getAlpha() const noexcept = 0;
    //! Delta (kLINSPACE), maximum (uniform) or deviation (normal); clears input 2.
    virtual void setBeta(double beta) noexcept = 0;
    virtual double getBeta() const noexcept = 0;
    //! Input 0: shape; input 1: alpha; input 2: beta.
    using ILayer::setInput;
    //! Integer alpha.
    virtual void setAlphaInt64(int64_t alpha) noexcept = 0;
    virtual int64_t getAlphaInt64() const noexcept = 0;
    //! Integer beta.
    virtual void setBetaInt64(int64_t beta) noexcept = 0;
    virtual int64_t getBetaInt64() const noexcept = 0;
    //! Whether alpha and beta are int64 rather than double.
    virtual bool isAlphaBetaInt64() const noexcept = 0;
    //! Output type (default kFLOAT).
    virtual void setToType(DataType toType) noexcept = 0;
    virtual DataType getToType() const noexcept = 0;

protected:
    virtual ~IFillLayer() noexcept = default;
};

//!
//! \class IQuantizeLayer
//! \brief Quantizes a floating-point input: output = clamp(round(input / scale) + zeroPt). Inputs: data, scale,
//! optional zero point (zeros only). Per-tensor, per-axis or block quantization.
//!
class IQuantizeLayer : public ILayer
{
public:
    //! Quantization axis; -1 (default) means per-tensor.
    virtual int32_t getAxis() const noexcept = 0;
    virtual void setAxis(int32_t axis) noexcept = 0;
    //! Block shape for block quantization (-1 = whole dimension); false when invalid. Default: empty Dims.
    virtual bool setBlockShape(Dims const& blockShape) noexcept = 0;
    TRT_NODISCARD virtual Dims getBlockShape() const noexcept = 0;
    //! Output type: kINT8 (default), kFP8, kINT4 or kFP4.
    virtual void setToType(DataType toType) noexcept = 0;
    virtual DataType getToType() const noexcept = 0;

protected:
    virtual ~IQuantizeLayer() noexcept = default;
};

//!
//! \class IDequantizeLayer
//! \brief Dequantizes: output = (input - zeroPt) * scale. Inputs: data, scale, optional zero point.
//!
class IDequantizeLayer : public ILayer
{
public:
    //! Quantization axis; -1 (default) means per-tensor.
    virtual int32_t getAxis() const noexcept = 0;
    virtual void setAxis(int32_t axis) noexcept = 0;
    //! Block shape for block dequantization; false when invalid. Default: empty Dims.
    virtual bool setBlockShape(Dims const& blockShape) noexcept = 0;
    TRT_NODISCARD virtual Dims getBlockShape() const noexcept = 0;
    //! Output type: kFLOAT (default), kHALF or kBF16.
    virtual void setToType(DataType toType) noexcept = 0;
    virtual DataType getToType() const noexcept = 0;

protected:
    virtual ~IDequantizeLayer() noexcept = default;
};

//!
//! \class IDynamicQuantizeLayer
//! \brief Computes block scales at runtime and quantizes: output 0 is the quantized data, output 1 the scales.
//! Input 1 (optional) is a scalar double-quantization scale.
//!
class IDynamicQuantizeLayer : public ILayer
{
public:
    //! Input 0: data; input 1: double-quantization scale.
    using ILayer::setInput;
    //! Quantized type: kFP4 (default) or kFP8.
    virtual void setToType(DataType toType) noexcept = 0;
    virtual DataType getToType() const noexcept = 0;
    //! Scale type: kFP8 (default), kE8M0 or kFLOAT.
    virtual void setScaleType(DataType scaleType) noexcept = 0;
    virtual DataType getScaleType() const noexcept = 0;
    //! Blocked axis (last or second to last). \deprecated Use setBlockShape().
    TRT_DEPRECATED virtual void setAxis(int32_t axis) noexcept = 0;
    //! \deprecated Use getBlockShape().
    TRT_DEPRECATED virtual int32_t getAxis() const noexcept = 0;
    //! Block size (16 or 32). \deprecated Use setBlockShape().
    TRT_DEPRECATED virtual void setBlockSize(int32_t size) noexcept = 0;
    //! \deprecated Use getBlockShape().
    TRT_DEPRECATED virtual int32_t getBlockSize() const noexcept = 0;
    //! Block shape, of the input's rank. Default: empty Dims.
    virtual void setBlockShape(Dims const& blockShape) noexcept = 0;
    virtual Dims getBlockShape() const noexcept = 0;

protected:
    virtual ~IDynamicQuantizeLayer() noexcept = default;
};

//!
//! \class IEinsumLayer
//! \brief Einstein summation over one or more inputs, described by an equation such as "ij,jk->ik".
//!
class IEinsumLayer : public ILayer
{
public:
    //! Set the equation; false when it is malformed.
    virtual bool setEquation(char const* equation) noexcept = 0;
    virtual char const* getEquation() const noexcept = 0;

protected:
    virtual ~IEinsumLayer() noexcept = default;
};

//! Form of IScatterLayer.
enum class ScatterMode : int32_t
{
    kELEMENT = 0, //!< Like ONNX ScatterElements.
    kND = 1,      //!< Like ONNX ScatterND.
};

//! Number of ScatterMode values.
template <>
constexpr inline int32_t EnumMax<ScatterMode>() noexcept
{
    return 2;
}

//!
//! \class IScatterLayer
//! \brief Copies data (input 0) and writes updates (input 2) at the positions given by indices (input 1).
//!
class IScatterLayer : public ILayer
{
public:
    virtual void setMode(ScatterMode mode) noexcept = 0;
    virtual ScatterMode getMode() const noexcept = 0;
    //! Axis used by kELEMENT (default 0).
    virtual void setAxis(int32_t axis) noexcept = 0;
    virtual int32_t getAxis() const noexcept = 0;

protected:
    virtual ~IScatterLayer() noexcept = default;
};

//!
//! \class IOneHotLayer
//! \brief One-hot encoding of indices (input 0) with [off, on] values (input 1) and depth (input 2).
//!
class IOneHotLayer : public ILayer
{
public:
    //! Output axis of the encoding, in [-rank(indices) - 1, rank(indices)].
    virtual void setAxis(int32_t axis) noexcept = 0;
    virtual int32_t getAxis() const noexcept = 0;

protected:
    virtual ~IOneHotLayer() noexcept = default;
};

//!
//! \class IGridSampleLayer
//! \brief Samples a 4D input at the coordinates of a 4D grid.
//!
class IGridSampleLayer : public ILayer
{
public:
    //! Interpolation (default kLINEAR).
    virtual void setInterpolationMode(InterpolationMode mode) noexcept = 0;
    virtual InterpolationMode getInterpolationMode() const noexcept = 0;
    //! Whether -1 and 1 refer to corner pixel centers (default false).
    virtual void setAlignCorners(bool alignCorners) noexcept = 0;
    virtual bool getAlignCorners() const noexcept = 0;
    //! Out-of-bounds handling: kCLAMP, kFILL (default) or kREFLECT; false for other modes.
    virtual bool setSampleMode(SampleMode mode) noexcept = 0;
    virtual SampleMode getSampleMode() const noexcept = 0;

protected:
    virtual ~IGridSampleLayer() noexcept = default;
};

//! Layout of the boxes given to INMSLayer.
enum class BoundingBoxFormat : int32_t
{
    kCORNER_PAIRS = 0, //!< (x1, y1, x2, y2): two diagonal corners.
    kCENTER_SIZES = 1  //!< (xCenter, yCenter, width, height).
};

//! Number of BoundingBoxFormat values.
template <>
constexpr inline int32_t EnumMax<BoundingBoxFormat>() noexcept
{
    return 2;
}

//!
//! \class INMSLayer
//! \brief Non-maximum suppression per batch item and class. Inputs: boxes, scores, max output boxes per class,
//! optional IoU threshold, optional score threshold. Outputs: selected (batch, class, box) indices and their count.
//!
class INMSLayer : public ILayer
{
public:
    //! Box layout (default kCORNER_PAIRS).
    virtual void setBoundingBoxFormat(BoundingBoxFormat fmt) noexcept = 0;
    virtual BoundingBoxFormat getBoundingBoxFormat() const noexcept = 0;
    //! Maximum number of candidate boxes per batch item.
    virtual void setTopKBoxLimit(int32_t limit) noexcept = 0;
    virtual int32_t getTopKBoxLimit() const noexcept = 0;
    //! Inputs 0-4: boxes, scores, maxOutputBoxesPerClass, iouThreshold, scoreThreshold.
    using ILayer::setInput;
    //! Type of the index output: kINT32 (default) or kINT64.
    virtual bool setIndicesType(DataType type) noexcept = 0;
    virtual DataType getIndicesType() const noexcept = 0;

protected:
    virtual ~INMSLayer() noexcept = default;
};

//!
//! \class IReverseSequenceLayer
//! \brief For each slice along the batch axis, reverses the first sequenceLens[i] elements along the sequence axis.
//!
class IReverseSequenceLayer : public ILayer
{
public:
    //! Batch axis (default 1).
    virtual void setBatchAxis(int32_t batchAxis) noexcept = 0;
    virtual int32_t getBatchAxis() const noexcept = 0;
    //! Sequence axis (default 0).
    virtual void setSequenceAxis(int32_t sequenceAxis) noexcept = 0;
    virtual int32_t getSequenceAxis() const noexcept = 0;

protected:
    virtual ~IReverseSequenceLayer() noexcept = default;
};

//!
//! \class INormalizationLayer
//! \brief (x - mean(x)) / sqrt(var(x) + epsilon) * scale + bias over a set of axes, optionally per channel group.
//!
class INormalizationLayer : public ILayer
{
public:
    //! Epsilon (default 1e-5).
    virtual void setEpsilon(float eps) noexcept = 0;
    virtual float getEpsilon() const noexcept = 0;
    //! Reduction axes as a bitmask.
    virtual void setAxes(uint32_t axesMask) noexcept = 0;
    virtual uint32_t getAxes() const noexcept = 0;
    //! Number of channel groups (default 1); must divide the channel count.
    virtual void setNbGroups(int64_t nbGroups) noexcept = 0;
    virtual int64_t getNbGroups() const noexcept = 0;
    //! Compute precision (kFLOAT or kHALF) for weakly typed networks.
    //! \deprecated Since TensorRT 10.16 (strong typing).
    TRT_DEPRECATED virtual void setComputePrecision(DataType type) noexcept = 0;
    //! \deprecated Since TensorRT 10.16 (strong typing).
    TRT_DEPRECATED virtual DataType getComputePrecision() const noexcept = 0;
    //! Whether the layer was created by addNormalizationV2().
    TRT_NODISCARD virtual bool isV2() const noexcept = 0;

protected:
    virtual ~INormalizationLayer() noexcept = default;
};

//!
//! \class ISqueezeLayer
//! \brief Removes the unit dimensions listed by a constant 1D axes tensor (input 1).
//!
class ISqueezeLayer : public ILayer
{
public:
    //! Input 0: data; input 1: axes.
    using ILayer::setInput;

protected:
    virtual ~ISqueezeLayer() noexcept = default;
};

//!
//! \class IUnsqueezeLayer
//! \brief Inserts unit dimensions at the output axes listed by a constant 1D axes tensor (input 1).
//!
class IUnsqueezeLayer : public ILayer
{
public:
    //! Input 0: data; input 1: axes.
    using ILayer::setInput;

protected:
    virtual ~IUnsqueezeLayer() noexcept = default;
};

//! Operation of ICumulativeLayer.
enum class CumulativeOperation : int32_t
{
    kSUM = 0, //!< Cumulative sum.
};

namespace impl
{
//! Number of CumulativeOperation values.
template <>
struct EnumMaxImpl<CumulativeOperation>
{
    static constexpr int32_t kVALUE = 1;
};
} // namespace impl

//!
//! \class ICumulativeLayer
//! \brief Running reduction along an axis (input 1, a scalar); the output has the input's shape.
//!
class ICumulativeLayer : public ILayer
{
public:
    //! The operation; false when invalid.
    virtual bool setOperation(CumulativeOperation op) noexcept = 0;
    virtual CumulativeOperation getOperation() const noexcept = 0;
    //! Whether element j is left out of result j.
    virtual void setExclusive(bool exclusive) noexcept = 0;
    virtual bool getExclusive() const noexcept = 0;
    //! Whether the accumulation runs from the last element.
    virtual void setReverse(bool reverse) noexcept = 0;
    virtual bool getReverse() const noexcept = 0;

protected:
    virtual ~ICumulativeLayer() noexcept = default;
};

//! Normalization applied to attention scores.
enum class AttentionNormalizationOp : int32_t
{
    kNONE = 0,    //!< No normalization.
    kSOFTMAX = 1, //!< Softmax over the key/value sequence dimension.
};

namespace impl
{
//! Number of AttentionNormalizationOp values.
template <>
struct EnumMaxImpl<AttentionNormalizationOp>
{
    static constexpr int32_t kVALUE = 2;
};
} // namespace impl

class IAttention;

//!
//! \class IAttentionBoundaryLayer
//! \brief Base of the layers that delimit an IAttention.
//!
class IAttentionBoundaryLayer : public ILayer
{
public:
    //! The attention this layer belongs to.
    virtual IAttention* getAttention() const noexcept = 0;

protected:
    virtual ~IAttentionBoundaryLayer() noexcept = default;
};

//!
//! \class IAttentionInputLayer
//! \brief Input boundary of an IAttention: query, key, value, optional mask, optional normalization scale.
//!
class IAttentionInputLayer : public IAttentionBoundaryLayer
{
public:
    //! Inputs 0-4: query, key, value, mask, normalization quantize scale.
    using ILayer::setInput;

protected:
    virtual ~IAttentionInputLayer() noexcept = default;
};

//!
//! \class IAttentionOutputLayer
//! \brief Output boundary of an IAttention.
//!
class IAttentionOutputLayer : public IAttentionBoundaryLayer
{
public:
protected:
    virtual ~IAttentionOutputLayer() noexcept = default;
};

//!
//! \class IAttention
//! \brief Builder of a fused attention block: BMM1(query, key^T), optional mask, normalization, BMM2 with value.
//! Query: [batch, headsQ, seqQ, dimHead]; key and value: [batch, headsKV, seqKV, dimHead].
//!
class IAttention : public INoCopy
{
public:
    //! Normalization (default kSOFTMAX).
    virtual bool setNormalizationOperation(AttentionNormalizationOp op) noexcept = 0;
    virtual AttentionNormalizationOp getNormalizationOperation() const noexcept = 0;
    //! Boolean (true = attend) or additive mask, broadcastable to [batch, headsQ, seqQ, seqKV].
    virtual bool setMask(ITensor& mask) noexcept = 0;
    //! The mask, or nullptr.
    virtual ITensor* getMask() noexcept = 0;
    //! Causal masking (default false); exclusive with setMask().
    virtual bool setCausal(bool isCausal) noexcept = 0;
    virtual bool getCausal() const noexcept = 0;
    //! Whether the attention may run as several kernels when no fused kernel fits (default false).
    virtual bool setDecomposable(bool decomposable) noexcept = 0;
    virtual bool getDecomposable() const noexcept = 0;
    //! Replace input 0 (query), 1 (key) or 2 (value).
    virtual bool setInput(int32_t index, ITensor& input) noexcept = 0;
    //! Number of inputs (3).
    virtual int32_t getNbInputs() const noexcept = 0;
    virtual ITensor* getInput(int32_t index) const noexcept = 0;
    //! Number of outputs (1).
    virtual int32_t getNbOutputs() const noexcept = 0;
    virtual ITensor* getOutput(int32_t index) const noexcept = 0;
    //! Name used in diagnostics (copied).
    virtual bool setName(char const* name) noexcept = 0;
    virtual char const* getName() const noexcept = 0;
    //! Scale (0D/1D kFLOAT, kHALF or kBF16) quantizing the normalization output.
    virtual bool setNormalizationQuantizeScale(ITensor& tensor) noexcept = 0;
    virtual ITensor* getNormalizationQuantizeScale() const noexcept = 0;
    //! Type the normalization output is quantized to: kFP8 or kINT8 (default kFLOAT: none).
    virtual bool setNormalizationQuantizeToType(DataType type) noexcept = 0;
    virtual DataType getNormalizationQuantizeToType() const noexcept = 0;
    //! Metadata reported by the engine inspector (copied).
    virtual bool setMetadata(char const* metadata) noexcept = 0;
    virtual char const* getMetadata() const noexcept = 0;
    //! Number of ranks for multi-device attention (default 1).
    virtual bool setNbRanks(int32_t nbRanks) noexcept = 0;
    virtual int32_t getNbRanks() const noexcept = 0;

protected:
    virtual ~IAttention() noexcept = default;
};

//!
//! \class IRotaryEmbeddingLayer
//! \brief Rotary position embedding (RoPE). Inputs: data [B, N, S, H], cos cache, sin cache, optional position ids.
//!
class IRotaryEmbeddingLayer : public ILayer
{
public:
    //! Whether rotated pairs are adjacent elements (default false: the two halves).
    virtual void setInterleaved(bool interleaved) noexcept = 0;
    TRT_NODISCARD virtual bool getInterleaved() const noexcept = 0;
    //! Number of leading hidden dimensions that are rotated; 0 (default) means all. Even and non-negative.
    TRT_NODISCARD virtual bool setRotaryEmbeddingDim(int32_t rotaryEmbeddingDim) noexcept = 0;
    TRT_NODISCARD virtual int32_t getRotaryEmbeddingDim() const noexcept = 0;
    //! Inputs 0-3: data, cos cache, sin cache, position ids.
    using ILayer::setInput;

protected:
    virtual ~IRotaryEmbeddingLayer() noexcept = default;
};

//! Update mode of IKVCacheUpdateLayer.
enum class KVCacheMode : int32_t
{
    kLINEAR = 0, //!< Write the update at writeIndices[i] of each batch element.
};

namespace impl
{
//! Number of KVCacheMode values.
template <>
struct EnumMaxImpl<KVCacheMode>
{
    static constexpr int32_t kVALUE = 1;
};
} // namespace impl

//!
//! \class IKVCacheUpdateLayer
//! \brief Writes an update into a key or value cache in place. Inputs: cache, update, writeIndices; the output
//! aliases the cache.
//!
class IKVCacheUpdateLayer : public ILayer
{
public:
    //! Inputs 0-2: cache, update, writeIndices.
    using ILayer::setInput;
    //! Update mode (kLINEAR only).
    virtual bool setCacheMode(KVCacheMode cacheMode) noexcept = 0;
    virtual KVCacheMode getCacheMode() const noexcept = 0;

protected:
    virtual ~IKVCacheUpdateLayer() noexcept = default;
};

//! Activation inside the experts of IMoELayer.
enum class MoEActType : int32_t
{
    kNONE = 0, //!< No activation.
    kSILU = 1, //!< SiLU (swish).
};

namespace impl
{
//! Number of MoEActType values.
template <>
struct EnumMaxImpl<MoEActType>
{
    static constexpr int32_t kVALUE = 2;
};
} // namespace impl

//!
//! \class IMoELayer
//! \brief Mixture of experts. Inputs: hidden states [B, S, hidden], selected experts [B, S, topK] and their scores
//! [B, S, topK]. Each expert is a gated linear unit fcDown(fcUp(x) * act(fcGate(x))); the output is the
//! score-weighted sum of the selected experts and has the shape of the hidden states.
//!
class IMoELayer : public ILayer
{
public:
    //! Expert weights: gate and up [experts, hidden, inter], down [experts, inter, hidden], and the activation.
    virtual void setGatedWeights(
        ITensor& fcGateWeights, ITensor& fcUpWeights, ITensor& fcDownWeights, MoEActType activationType) noexcept
        = 0;
    //! Expert biases: gate and up [experts, inter], down [experts, hidden]. All or none.
    virtual void setGatedBiases(ITensor& fcGateBiases, ITensor& fcUpBiases, ITensor& fcDownBiases) noexcept = 0;
    virtual void setActivationType(MoEActType activationType) noexcept = 0;
    virtual MoEActType getActivationType() const noexcept = 0;
    //! Static quantization of the product before fcDown, with a scale tensor and target type.
    virtual void setQuantizationStatic(ITensor& fcDownActivationScale, DataType dataType) noexcept = 0;
    //! Dynamic (double) quantization of the product before fcDown.
    virtual void setQuantizationDynamicDblQ(ITensor& fcDownActivationDblQScale, DataType dataType,
        Dims const& blockShape, DataType dynQOutputScaleType) noexcept
        = 0;
    //! Type the product is quantized to: kFP8 or kFP4 (default kFLOAT: not quantized).
    virtual void setQuantizationToType(DataType type) noexcept = 0;
    virtual DataType getQuantizationToType() const noexcept = 0;
    //! Rank-3 block shape of the product quantization.
    virtual void setQuantizationBlockShape(Dims const& blockShape) noexcept = 0;
    virtual Dims getQuantizationBlockShape() const noexcept = 0;
    //! Scale type of the dynamic quantization.
    virtual void setDynQOutputScaleType(DataType type) noexcept = 0;
    virtual DataType getDynQOutputScaleType() const noexcept = 0;
    //! SwiGLU limit, alpha and beta (defaults +inf, 1, 0).
    virtual void setSwigluParams(float limit, float alpha, float beta) noexcept = 0;
    virtual void setSwigluParamLimit(float limit) noexcept = 0;
    virtual float getSwigluParamLimit() const noexcept = 0;
    virtual void setSwigluParamAlpha(float alpha) noexcept = 0;
    virtual float getSwigluParamAlpha() const noexcept = 0;
    virtual void setSwigluParamBeta(float beta) noexcept = 0;
    virtual float getSwigluParamBeta() const noexcept = 0;
    //! Inputs 0-2: hidden states, selected experts, scores.
    using ILayer::setInput;

protected:
    virtual ~IMoELayer() noexcept = default;
};

//!
//! \class IDistCollectiveLayer
//! \brief A collective operation across ranks (see INetworkDefinition::addDistCollective()).
//!
class IDistCollectiveLayer : public ILayer
{
protected:
    virtual ~IDistCollectiveLayer() noexcept = default;
};

class IBuilder;
enum class NetworkDefinitionCreationFlag : int32_t;
using NetworkDefinitionCreationFlags = uint32_t;

//!
//! \class INetworkDefinition
//! \brief A network under construction: tensors and layers, built into an engine by IBuilder.
//! Every add* method returns nullptr on failure. The user deletes the network (before its builder).
//!
class INetworkDefinition : public INoCopy
{
public:
    virtual ~INetworkDefinition() noexcept = default;

    //! Add a network input. -1 extents are runtime dimensions covered by an optimization profile.
    virtual ITensor* addInput(char const* name, DataType type, Dims const& dimensions) noexcept = 0;
    //! Mark a tensor as a network output.
    virtual void markOutput(ITensor& tensor) noexcept = 0;
    //! Mark a tensor as a debug tensor (observable at runtime through IDebugListener).
    virtual bool markDebug(ITensor& tensor) noexcept = 0;
    virtual bool unmarkDebug(ITensor& tensor) noexcept = 0;
    virtual bool isDebugTensor(ITensor const& tensor) const noexcept = 0;
    //! Mark every tensor that survives fusion as a debug tensor, without preventing fusion.
    virtual bool markUnfusedTensorsAsDebugTensors() noexcept = 0;
    virtual bool unmarkUnfusedTensorsAsDebugTensors() noexcept = 0;
    virtual IActivationLayer* addActivation(ITensor& input, ActivationType type) noexcept = 0;
    virtual ILRNLayer* addLRN(ITensor& input, int64_t window, float alpha, float beta, float k) noexcept = 0;
    virtual IScaleLayer* addScale(ITensor& input, ScaleMode mode, Weights shift, Weights scale, Weights power) noexcept
        = 0;
    virtual ISoftMaxLayer* addSoftMax(ITensor& input) noexcept = 0;
    virtual IConcatenationLayer* addConcatenation(ITensor* const* inputs, int32_t nbInputs) noexcept = 0;
    virtual IElementWiseLayer* addElementWise(ITensor& input1, ITensor& input2, ElementWiseOperation op) noexcept = 0;
    virtual IUnaryLayer* addUnary(ITensor& input, UnaryOperation operation) noexcept = 0;
    virtual IShuffleLayer* addShuffle(ITensor& input) noexcept = 0;
    virtual IOneHotLayer* addOneHot(ITensor& indices, ITensor& values, ITensor& depth, int32_t axis) noexcept = 0;
    virtual int32_t getNbLayers() const noexcept = 0;
    virtual ILayer* getLayer(int32_t index) const noexcept = 0;
    virtual int32_t getNbInputs() const noexcept = 0;
    virtual ITensor* getInput(int32_t index) const noexcept = 0;
    //! Number of outputs, including shape outputs.
    virtual int32_t getNbOutputs() const noexcept = 0;
    virtual ITensor* getOutput(int32_t index) const noexcept = 0;
    //! Reduce over the axes of the bitmask \p reduceAxes.
    virtual IReduceLayer* addReduce(
        ITensor& input, ReduceOperation operation, uint32_t reduceAxes, bool keepDimensions) noexcept
        = 0;
    //! \deprecated Since TensorRT 10.14; use the overload taking the index type.
    TRT_DEPRECATED virtual ITopKLayer* addTopK(
        ITensor& input, TopKOperation op, int32_t k, uint32_t reduceAxes) noexcept
        = 0;
    //! Top-k along the one axis in \p reduceAxes, with kINT32 or kINT64 indices.
    virtual ITopKLayer* addTopK(
        ITensor& input, TopKOperation op, int32_t k, uint32_t reduceAxes, DataType indicesType) noexcept
        = 0;
    //! Gather with GatherMode::kDEFAULT along \p axis.
    virtual IGatherLayer* addGather(ITensor& data, ITensor& indices, int32_t axis) noexcept = 0;
    //! Gather with the given mode, axis 0.
    virtual IGatherLayer* addGatherV2(ITensor& data, ITensor& indices, GatherMode mode) noexcept = 0;
    virtual IRaggedSoftMaxLayer* addRaggedSoftMax(ITensor& input, ITensor& bounds) noexcept = 0;
    virtual IMatrixMultiplyLayer* addMatrixMultiply(
        ITensor& input0, MatrixOperation op0, ITensor& input1, MatrixOperation op1) noexcept
        = 0;
    //! \deprecated Since TensorRT 10.14; use the overload taking the index type.
    TRT_DEPRECATED virtual INonZeroLayer* addNonZero(ITensor& input) noexcept = 0;
    virtual INonZeroLayer* addNonZero(ITensor& input, DataType indicesType) noexcept = 0;
    virtual IConstantLayer* addConstant(Dims const& dimensions, Weights weights) noexcept = 0;
    virtual IIdentityLayer* addIdentity(ITensor& input) noexcept = 0;
    virtual ICastLayer* addCast(ITensor& input, DataType toType) noexcept = 0;
    //! Remove a tensor that no layer uses (a warning otherwise).
    virtual void removeTensor(ITensor& tensor) noexcept = 0;
    virtual void unmarkOutput(ITensor& tensor) noexcept = 0;
    //! \deprecated Since TensorRT 10.8; use addPluginV3().
    TRT_DEPRECATED virtual IPluginV2Layer* addPluginV2(
        ITensor* const* inputs, int32_t nbInputs, IPluginV2& plugin) noexcept
        = 0;
    //! Add a V3 plugin layer with data inputs and shape-tensor inputs.
    virtual IPluginV3Layer* addPluginV3(ITensor* const* inputs, int32_t nbInputs, ITensor* const* shapeInputs,
        int32_t nbShapeInputs, IPluginV3& plugin) noexcept
        = 0;
    virtual ISliceLayer* addSlice(ITensor& input, Dims const& start, Dims const& size, Dims const& stride) noexcept
        = 0;
    //! Name of the network (copied), stored in the engine.
    virtual void setName(char const* name) noexcept = 0;
    virtual char const* getName() const noexcept = 0;
    virtual IShapeLayer* addShape(ITensor& input) noexcept = 0;
    //! Always false.
    //! \deprecated Since TensorRT 10.0 (no implicit batch).
    TRT_DEPRECATED virtual bool hasImplicitBatchDimension() const noexcept = 0;
    //! The creation flags.
    virtual NetworkDefinitionCreationFlags getFlags() const noexcept = 0;
    virtual bool getFlag(NetworkDefinitionCreationFlag networkDefinitionCreationFlag) const noexcept = 0;
    //! Mark a shape tensor as a shape output; false when already an output.
    virtual bool markOutputForShapes(ITensor& tensor) noexcept = 0;
    virtual bool unmarkOutputForShapes(ITensor& tensor) noexcept = 0;
    virtual IParametricReLULayer* addParametricReLU(ITensor& input, ITensor& slope) noexcept = 0;
    //! Convolution; empty \p biasWeights means no bias.
    virtual IConvolutionLayer* addConvolutionNd(ITensor& input, int64_t nbOutputMaps, Dims const& kernelSize,
        Weights kernelWeights, Weights biasWeights) noexcept
        = 0;
    virtual IPoolingLayer* addPoolingNd(ITensor& input, PoolingType type, Dims const& windowSize) noexcept = 0;
    //! Deconvolution; empty \p biasWeights means no bias.
    virtual IDeconvolutionLayer* addDeconvolutionNd(
        ITensor& input, int64_t nbOutputMaps, Dims kernelSize, Weights kernelWeights, Weights biasWeights) noexcept
        = 0;
    virtual IScaleLayer* addScaleNd(
        ITensor& input, ScaleMode mode, Weights shift, Weights scale, Weights power, int32_t channelAxis) noexcept
        = 0;
    virtual IResizeLayer* addResize(ITensor& input) noexcept = 0;
    virtual ILoop* addLoop() noexcept = 0;
    virtual IIfConditional* addIfConditional() noexcept = 0;
    //! Elementwise select with broadcasting; \p condition is kBOOL.
    virtual ISelectLayer* addSelect(ITensor& condition, ITensor& thenInput, ITensor& elseInput) noexcept = 0;
    virtual IAssertionLayer* addAssertion(ITensor& condition, char const* message) noexcept = 0;
    //! \deprecated Since TensorRT 9.0; use the overload taking the output type.
    TRT_DEPRECATED virtual IFillLayer* addFill(Dims const& dimensions, FillOperation op) noexcept = 0;
    virtual IFillLayer* addFill(Dims const& dimensions, FillOperation op, DataType outputType) noexcept = 0;
    virtual IPaddingLayer* addPaddingNd(ITensor& input, Dims const& prePadding, Dims const& postPadding) noexcept = 0;
    //! Name every use of \p weights (matched by type, pointer and count); nullptr clears the name.
    virtual bool setWeightsName(Weights weights, char const* name) noexcept = 0;
    virtual void setErrorRecorder(IErrorRecorder* recorder) noexcept = 0;
    virtual IErrorRecorder* getErrorRecorder() const noexcept = 0;
    //! \deprecated Since TensorRT 9.0; use the overload taking the output type.
    TRT_DEPRECATED virtual IDequantizeLayer* addDequantize(ITensor& input, ITensor& scale) noexcept = 0;
    virtual IDequantizeLayer* addDequantize(ITensor& input, ITensor& scale, DataType outputType) noexcept = 0;
    virtual IScatterLayer* addScatter(ITensor& data, ITensor& indices, ITensor& updates, ScatterMode mode) noexcept
        = 0;
    //! \deprecated Since TensorRT 9.0; use the overload taking the output type.
    TRT_DEPRECATED virtual IQuantizeLayer* addQuantize(ITensor& input, ITensor& scale) noexcept = 0;
    virtual IQuantizeLayer* addQuantize(ITensor& input, ITensor& scale, DataType outputType) noexcept = 0;
    //! \deprecated Use addDynamicQuantizeV2().
    TRT_DEPRECATED virtual IDynamicQuantizeLayer* addDynamicQuantize(
        ITensor& input, int32_t axis, int32_t blockSize, DataType outputType, DataType scaleType) noexcept
        = 0;
    //! Dynamic block quantization with a block shape of the input's rank.
    virtual IDynamicQuantizeLayer* addDynamicQuantizeV2(
        ITensor& input, Dims const& blockShape, DataType outputType, DataType scaleType) noexcept
        = 0;
    virtual IEinsumLayer* addEinsum(ITensor* const* inputs, int32_t nbInputs, char const* equation) noexcept = 0;
    virtual IGridSampleLayer* addGridSample(ITensor& input, ITensor& grid) noexcept = 0;
    //! \deprecated Since TensorRT 10.14; use the overload taking the index type.
    TRT_DEPRECATED virtual INMSLayer* addNMS(ITensor& boxes, ITensor& scores, ITensor& maxOutputBoxesPerClass) noexcept
        = 0;
    virtual INMSLayer* addNMS(
        ITensor& boxes, ITensor& scores, ITensor& maxOutputBoxesPerClass, DataType indicesType) noexcept
        = 0;
    virtual IReverseSequenceLayer* addReverseSequence(ITensor& input, ITensor& sequenceLens) noexcept = 0;
    //! \deprecated Since TensorRT 10.15; use addNormalizationV2().
    TRT_DEPRECATED virtual INormalizationLayer* addNormalization(
        ITensor& input, ITensor& scale, ITensor& bias, uint32_t axesMask) noexcept
        = 0;
    //! Cumulative operation along the axis given by the 0D constant shape tensor \p axis.
    virtual ICumulativeLayer* addCumulative(
        ITensor& input, ITensor& axis, CumulativeOperation operation, bool exclusive, bool reverse) noexcept
        = 0;
    virtual IAttention* addAttention(
        ITensor& query, ITensor& key, ITensor& value, AttentionNormalizationOp normOp, bool causal) noexcept
        = 0;
    virtual IRotaryEmbeddingLayer* addRotaryEmbedding(
        ITensor& input, ITensor& cosCache, ITensor& sinCache, bool interleaved, int32_t rotaryEmbeddingDim) noexcept
        = 0;
    virtual IKVCacheUpdateLayer* addKVCacheUpdate(
        ITensor& cache, ITensor& update, ITensor& writeIndices, KVCacheMode cacheMode) noexcept
        = 0;
    virtual IMoELayer* addMoE(
        ITensor& hiddenStates, ITensor& selectedExpertsForTokens, ITensor& scoresForSelectedExperts) noexcept
        = 0;
    //! Collective across ranks. \p groups lists the participating ranks (nullptr and 0: all ranks);
    //! \p root is used by kBROADCAST and kREDUCE; \p reduceOp is kNONE for non-reducing collectives.
    TRT_NODISCARD virtual IDistCollectiveLayer* addDistCollective(ITensor& input, CollectiveOperation distCollectiveOp,
        ReduceOperation reduceOp, int64_t root, int64_t* groups, int64_t groupSize) noexcept
        = 0;
    //! The builder that created this network.
    virtual IBuilder& getBuilder() const noexcept = 0;
    //! Per-weights refit control under BuilderFlag::kREFIT_INDIVIDUAL.
    virtual bool markWeightsRefittable(char const* name) noexcept = 0;
    virtual bool unmarkWeightsRefittable(char const* name) noexcept = 0;
    virtual bool areWeightsMarkedRefittable(char const* name) const noexcept = 0;
    virtual ISqueezeLayer* addSqueeze(ITensor& input, ITensor& axes) noexcept = 0;
    virtual IUnsqueezeLayer* addUnsqueeze(ITensor& input, ITensor& axes) noexcept = 0;
    //! Normalization whose scale and bias have per-channel shape [1, C, 1, 1] also for group normalization.
    TRT_NODISCARD virtual INormalizationLayer* addNormalizationV2(
        ITensor& input, ITensor& scale, ITensor& bias, uint32_t axesMask) noexcept
        = 0;
};

//! Implicit INT8 calibration algorithm.
//! \deprecated Since TensorRT 10.1 (explicit quantization).
enum class CalibrationAlgoType : int32_t
{
    kLEGACY_CALIBRATION TRT_DEPRECATED_ENUM = 0,
    kENTROPY_CALIBRATION TRT_DEPRECATED_ENUM = 1,
    kENTROPY_CALIBRATION_2 TRT_DEPRECATED_ENUM = 2,
    kMINMAX_CALIBRATION TRT_DEPRECATED_ENUM = 3,
};

//! Number of CalibrationAlgoType values.
template <>
constexpr inline int32_t EnumMax<CalibrationAlgoType>() noexcept
{
    return 4;
}

//!
//! \class IInt8Calibrator
//! \brief Application-implemented source of calibration batches and cache for implicit INT8.
//! \deprecated Since TensorRT 10.1 (explicit quantization).
//!
class TRT_DEPRECATED IInt8Calibrator : public IVersionedInterface
{
public:
    //! \deprecated Since TensorRT 10.0 (no implicit batch).
    TRT_DEPRECATED virtual int32_t getBatchSize() const noexcept = 0;
    //! Point each binding at device memory holding the next batch of the named input; false when done.
    virtual bool getBatch(void* bindings[], char const* names[], int32_t nbBindings) noexcept = 0;
    //! Return a cached calibration table and its length, or nullptr.
    virtual void const* readCalibrationCache(std::size_t& length) noexcept = 0;
    //! Store a calibration table.
    virtual void writeCalibrationCache(void const* ptr, std::size_t length) noexcept = 0;
    //! The algorithm of this calibrator.
    virtual CalibrationAlgoType getAlgorithm() noexcept = 0;

    ~IInt8Calibrator() noexcept override = default;
};

namespace v_1_0
{
//! Legacy entropy calibrator.
class TRT_DEPRECATED IInt8EntropyCalibrator : public IInt8Calibrator
{
public:
    //! Interface identity; not to be overridden.
    InterfaceInfo getInterfaceInfo() const noexcept override
    {
        return InterfaceInfo{"IInt8EntropyCalibrator", 1, 0};
    }

    CalibrationAlgoType getAlgorithm() noexcept override
    {
        return CalibrationAlgoType::kENTROPY_CALIBRATION;
    }

    ~IInt8EntropyCalibrator() noexcept override = default;
};
} // namespace v_1_0

//! Legacy entropy calibrator. \deprecated Since TensorRT 10.1 (explicit quantization).
using IInt8EntropyCalibrator = v_1_0::IInt8EntropyCalibrator;

namespace v_1_0
{
//! Entropy calibrator 2 (the one DLA requires).
class TRT_DEPRECATED IInt8EntropyCalibrator2 : public IInt8Calibrator
{
public:
    //! Interface identity; not to be overridden.
    InterfaceInfo getInterfaceInfo() const noexcept override
    {
        return InterfaceInfo{"IInt8EntropyCalibrator2", 1, 0};
    }

    CalibrationAlgoType getAlgorithm() noexcept override
    {
        return CalibrationAlgoType::kENTROPY_CALIBRATION_2;
    }

    ~IInt8EntropyCalibrator2() noexcept override = default;
};
} // namespace v_1_0

//! Entropy calibrator 2. \deprecated Since TensorRT 10.1 (explicit quantization).
using IInt8EntropyCalibrator2 = v_1_0::IInt8EntropyCalibrator2;

namespace v_1_0
{
//! Min-max calibrator.
class TRT_DEPRECATED IInt8MinMaxCalibrator : public IInt8Calibrator
{
public:
    //! Interface identity; not to be overridden.
    InterfaceInfo getInterfaceInfo() const noexcept override
    {
        return InterfaceInfo{"IInt8MinMaxCalibrator", 1, 0};
    }

    CalibrationAlgoType getAlgorithm() noexcept override
    {
        return CalibrationAlgoType::kMINMAX_CALIBRATION;
    }

    ~IInt8MinMaxCalibrator() noexcept override = default;
};
} // namespace v_1_0

//! Min-max calibrator. \deprecated Since TensorRT 10.1 (explicit quantization).
using IInt8MinMaxCalibrator = v_1_0::IInt8MinMaxCalibrator;

namespace v_1_0
{
//! Legacy calibrator with user-chosen quantile, regression cutoff and histogram cache.
class TRT_DEPRECATED IInt8LegacyCalibrator : public IInt8Calibrator
{
public:
    //! Interface identity; not to be overridden.
    InterfaceInfo getInterfaceInfo() const noexcept override
    {
        return InterfaceInfo{"IInt8Calibrator", 1, 0};
    }

    CalibrationAlgoType getAlgorithm() noexcept override
    {
        return CalibrationAlgoType::kLEGACY_CALIBRATION;
    }

    //! Quantile in [0, 1] selecting the region maximum.
    virtual double getQuantile() const noexcept = 0;
    //! Fraction in [0, 1] of the maximum used as regression cutoff.
    virtual double getRegressionCutoff() const noexcept = 0;
    //! Return a cached histogram and its length, or nullptr.
    virtual void const* readHistogramCache(std::size_t& length) noexcept = 0;
    //! Store a histogram.
    virtual void writeHistogramCache(void const* ptr, std::size_t length) noexcept = 0;

    ~IInt8LegacyCalibrator() noexcept override = default;
};
} // namespace v_1_0

//! Legacy calibrator. \deprecated Since TensorRT 10.1 (explicit quantization).
using IInt8LegacyCalibrator = v_1_0::IInt8LegacyCalibrator;

//!
//! \class IAlgorithmIOInfo
//! \brief Format of one input or output of an algorithm choice.
//! \deprecated Since TensorRT 10.8; use the editable timing cache.
//!
class TRT_DEPRECATED IAlgorithmIOInfo : public INoCopy
{
public:
    virtual DataType getDataType() const noexcept = 0;
    //! Strides, in vectors for vectorized formats.
    virtual Dims getStrides() const noexcept = 0;
    //! Vectorized dimension, or -1.
    virtual int64_t getVectorizedDim() const noexcept = 0;
    //! Components per element (1 for non-vectorized formats).
    virtual int64_t getComponentsPerElement() const noexcept = 0;

protected:
    virtual ~IAlgorithmIOInfo() noexcept = default;
};

//!
//! \class IAlgorithmVariant
//! \brief Implementation and tactic identifying an algorithm.
//! \deprecated Since TensorRT 10.8; use the editable timing cache.
//!
class TRT_DEPRECATED IAlgorithmVariant : public INoCopy
{
public:
    virtual int64_t getImplementation() const noexcept = 0;
    virtual int64_t getTactic() const noexcept = 0;

protected:
    virtual ~IAlgorithmVariant() noexcept = default;
};

//!
//! \class IAlgorithmContext
//! \brief The node an algorithm choice is made for.
//! \deprecated Since TensorRT 10.8; use the editable timing cache.
//!
class TRT_DEPRECATED IAlgorithmContext : public INoCopy
{
public:
    //! Unique name of the node.
    virtual char const* getName() const noexcept = 0;
    //! Min/opt/max dimensions of input or output \p index (inputs first).
    virtual Dims getDimensions(int32_t index, OptProfileSelector select) const noexcept = 0;
    virtual int32_t getNbInputs() const noexcept = 0;
    virtual int32_t getNbOutputs() const noexcept = 0;

protected:
    virtual ~IAlgorithmContext() noexcept = default;
};

//!
//! \class IAlgorithm
//! \brief One way of executing a node: a variant plus the formats of its inputs and outputs.
//! \deprecated Since TensorRT 10.8; use the editable timing cache.
//!
class TRT_DEPRECATED IAlgorithm : public INoCopy
{
public:
    virtual IAlgorithmVariant const& getAlgorithmVariant() const noexcept = 0;
    //! Measured time in milliseconds.
    virtual float getTimingMSec() const noexcept = 0;
    //! Scratch memory in bytes.
    virtual std::size_t getWorkspaceSize() const noexcept = 0;
    //! Format of input or output \p index (inputs first), or nullptr.
    virtual IAlgorithmIOInfo const* getAlgorithmIOInfoByIndex(int32_t index) const noexcept = 0;

protected:
    virtual ~IAlgorithm() noexcept = default;
};

namespace v_1_0
{
//! Application-implemented chooser of algorithms.
class TRT_DEPRECATED IAlgorithmSelector : public IVersionedInterface
{
public:
    //! Interface identity; not to be overridden.
    InterfaceInfo getInterfaceInfo() const noexcept override
    {
        return InterfaceInfo{"IAlgorithmSelector", 1, 0};
    }
    //! Write the indices of the acceptable choices into \p selection; return how many were written.
    virtual int32_t selectAlgorithms(IAlgorithmContext const& context, IAlgorithm const* const* choices,
        int32_t nbChoices, int32_t* selection) noexcept
        = 0;
    //! Receive the final choice for every context.
    virtual void reportAlgorithms(IAlgorithmContext const* const* algoContexts, IAlgorithm const* const* algoChoices,
        int32_t nbAlgorithms) noexcept
        = 0;

    virtual ~IAlgorithmSelector() noexcept = default;
};
} // namespace v_1_0

//! Algorithm selector. \deprecated Since TensorRT 10.8; use the editable timing cache.
using IAlgorithmSelector = v_1_0::IAlgorithmSelector;

//! Bitmask of QuantizationFlag values.
using QuantizationFlags = uint32_t;

//! Implicit INT8 quantization options.
//! \deprecated Since TensorRT 10.1 (explicit quantization).
enum class QuantizationFlag : int32_t
{
    //! Calibrate before layer fusion (legacy and entropy calibrators only).
    kCALIBRATE_BEFORE_FUSION TRT_DEPRECATED_ENUM = 0
};

//! Number of QuantizationFlag values.
template <>
constexpr inline int32_t EnumMax<QuantizationFlag>() noexcept
{
    return 1;
}

//! Platform an engine is built to run on.
enum class RuntimePlatform : int32_t
{
    kSAME_AS_BUILD = 0, //!< The build platform.
    kWINDOWS_AMD64 = 1, //!< Windows on x86-64 (built on Linux x86-64).
};

namespace impl
{
//! Number of RuntimePlatform values.
template <>
struct EnumMaxImpl<RuntimePlatform>
{
    static constexpr int32_t kVALUE = 2;
};
} // namespace impl

//! Bitmask of BuilderFlag values.
using BuilderFlags = uint32_t;

//! Builder options.
enum class BuilderFlag : int32_t
{
    kFP16 TRT_DEPRECATED_ENUM = 0,                          //!< \deprecated Since 10.12 (strong typing).
    kINT8 TRT_DEPRECATED_ENUM = 1,                          //!< \deprecated Since 10.12 (strong typing).
    kDEBUG = 2,                                             //!< Synchronize after every layer.
    kGPU_FALLBACK = 3,                                      //!< Run on the GPU what DLA cannot run.
    kREFIT = 4,                                             //!< Build a refittable engine.
    kDISABLE_TIMING_CACHE = 5,                              //!< Do not reuse timings across identical layers.
    kTF32 = 6,                                              //!< Allow TF32 for float math (default on).
    kSPARSE_WEIGHTS = 7,                                    //!< Allow structured-sparsity kernels.
    kSAFETY_SCOPE TRT_DEPRECATED_ENUM = 8,                  //!< \deprecated Since 10.16; ignored.
    kOBEY_PRECISION_CONSTRAINTS TRT_DEPRECATED_ENUM = 9,    //!< \deprecated Since 10.12 (strong typing).
    kPREFER_PRECISION_CONSTRAINTS TRT_DEPRECATED_ENUM = 10, //!< \deprecated Since 10.12 (strong typing).
    kDIRECT_IO TRT_DEPRECATED_ENUM = 11,                    //!< \deprecated Since 10.7.
    kREJECT_EMPTY_ALGORITHMS TRT_DEPRECATED_ENUM = 12,      //!< \deprecated Since 10.10.
    kVERSION_COMPATIBLE = 13,                               //!< Restrict to lean-runtime operators.
    kEXCLUDE_LEAN_RUNTIME = 14,                             //!< Leave the lean runtime out of the plan.
    kFP8 TRT_DEPRECATED_ENUM = 15,                          //!< \deprecated Since 10.12 (strong typing).
    kERROR_ON_TIMING_CACHE_MISS = 16,                       //!< Fail when a timed tactic is not in the cache.
    kBF16 TRT_DEPRECATED_ENUM = 17,                         //!< \deprecated Since 10.12 (strong typing).
    kDISABLE_COMPILATION_CACHE = 18,                        //!< Do not store JIT results in the timing cache.
    kSTRIP_PLAN = 19,                                       //!< Leave refittable weights out of the plan.
    kWEIGHTLESS TRT_DEPRECATED_ENUM = kSTRIP_PLAN,          //!< \deprecated Since 10.0; use kSTRIP_PLAN.
    kREFIT_IDENTICAL = 20,                                  //!< Refittable, assuming identical refit weights.
    kWEIGHT_STREAMING = 21,                                 //!< Stream weights from host memory.
    kINT4 TRT_DEPRECATED_ENUM = 22,                         //!< \deprecated Since 10.12 (strong typing).
    kREFIT_INDIVIDUAL = 23,                                 //!< Refit only weights marked refittable.
    kSTRICT_NANS = 24,                                      //!< No 0*x, x-x, x/x simplifications.
    kMONITOR_MEMORY = 25,                                   //!< Monitor memory during the build.
    kFP4 TRT_DEPRECATED_ENUM = 26,                          //!< \deprecated Since 10.12 (strong typing).
    kEDITABLE_TIMING_CACHE = 27,                            //!< Allow editing the timing cache.
    kDISTRIBUTIVE_INDEPENDENCE = 28,                        //!< Identical math along distributive axes.
};

//! Number of BuilderFlag values.
template <>
constexpr inline int32_t EnumMax<BuilderFlag>() noexcept
{
    return 29;
}

namespace v_1_0
{
//! 128-bit key of a timing-cache entry.
struct TimingCacheKey
{
    uint8_t data[16];
};

//! Value of a timing-cache entry.
struct TimingCacheValue
{
    //! Hash of the chosen tactic.
    uint64_t tacticHash;
    //! Time in milliseconds; negative or NaN is invalid.
    float timingMSec;
    //! tacticHash of an invalid entry.
    static constexpr uint64_t kINVALID_TACTIC_HASH = UINT64_MAX;
};
} // namespace v_1_0

//! Timing-cache key.
using TimingCacheKey = v_1_0::TimingCacheKey;
//! Timing-cache value.
using TimingCacheValue = v_1_0::TimingCacheValue;

//!
//! \class ITimingCache
//! \brief Tactic timings collected by the builder; shareable across builds. The user deletes it.
//!
class ITimingCache : public INoCopy
{
public:
    virtual ~ITimingCache() noexcept = default;

    //! Serialize the cache.
    virtual nvinfer1::IHostMemory* serialize() const noexcept = 0;
    //! Merge \p inputCache into this one; skips conflicting entries.
    virtual bool combine(ITimingCache const& inputCache, bool ignoreMismatch) noexcept = 0;
    //! Empty the cache.
    virtual bool reset() noexcept = 0;
    //! Number of entries (or -1 on error); copies up to \p capacity keys when \p keyBuffer is non-null.
    virtual int64_t queryKeys(TimingCacheKey* keyBuffer, int64_t capacity) const noexcept = 0;
    //! The value for \p key, or an invalid value.
    virtual TimingCacheValue query(TimingCacheKey const& key) const noexcept = 0;
    //! Update an existing entry; a NaN time deletes it.
    virtual bool update(TimingCacheKey const& key, TimingCacheValue const& value) noexcept = 0;
};

//! Memory pools whose limits IBuilderConfig controls.
enum class MemoryPoolType : int32_t
{
    kWORKSPACE = 0,            //!< Scratch memory of layers.
    kDLA_MANAGED_SRAM = 1,     //!< DLA on-chip SRAM.
    kDLA_LOCAL_DRAM = 2,       //!< DLA intermediate tensors.
    kDLA_GLOBAL_DRAM = 3,      //!< DLA weights and metadata.
    kTACTIC_DRAM = 4,          //!< Device memory for running tactics during the build.
    kTACTIC_SHARED_MEMORY = 5, //!< Shared memory available to kernels.
};

//! Number of MemoryPoolType values.
template <>
constexpr inline int32_t EnumMax<MemoryPoolType>() noexcept
{
    return 6;
}

//! Opt-in preview features.
enum class PreviewFeature : int32_t
{
    kPROFILE_SHARING_0806 TRT_DEPRECATED_ENUM = 0, //!< \deprecated Since 10.0; always on.
    kALIASED_PLUGIN_IO_10_03 = 1,                  //!< Aliased plugin I/O (IPluginV3OneBuildV2).
    kRUNTIME_ACTIVATION_RESIZE_10_10 = 2,          //!< Shrink activation memory to the actual shapes.
    kMULTIDEVICE_RUNTIME_10_16 = 3                 //!< Multi-device layers (IDistCollectiveLayer).
};

namespace impl
{
//! Number of PreviewFeature values.
template <>
struct EnumMaxImpl<PreviewFeature>
{
    static constexpr int32_t kVALUE = 4;
};
} // namespace impl

//! GPU architectures an engine must run on besides the one it was built on.
enum class HardwareCompatibilityLevel : int32_t
{
    kNONE = 0,                    //!< Only the build GPU's architecture.
    kAMPERE_PLUS = 1,             //!< Ampere and newer.
    kSAME_COMPUTE_CAPABILITY = 2, //!< GPUs of the same compute capability.
};

namespace impl
{
//! Number of HardwareCompatibilityLevel values.
template <>
struct EnumMaxImpl<HardwareCompatibilityLevel>
{
    static constexpr int32_t kVALUE = 3;
};
} // namespace impl

//! Effort spent on tiling (on-chip caching) optimization.
enum class TilingOptimizationLevel : int32_t
{
    kNONE = 0,     //!< No tiling.
    kFAST = 1,     //!< Heuristic, fast.
    kMODERATE = 2, //!< Wider search, some profiling.
    kFULL = 3      //!< Widest search.
};

namespace impl
{
//! Number of TilingOptimizationLevel values.
template <>
struct EnumMaxImpl<TilingOptimizationLevel>
{
    static constexpr int32_t kVALUE = 4;
};
} // namespace impl

namespace v_1_0
{
//! Application-implemented receiver of build progress. Must be thread-safe and outlive its users.
class IProgressMonitor : public IVersionedInterface
{
public:
    IProgressMonitor() = default;
    virtual ~IProgressMonitor() noexcept = default;

    //! Interface identity; not to be overridden.
    InterfaceInfo getInterfaceInfo() const noexcept override
    {
        return InterfaceInfo{"IProgressMonitor", 1, 0};
    }

    //! A phase of \p nbSteps steps starts, nested in \p parentPhase (nullptr at top level).
    virtual void phaseStart(char const* phaseName, char const* parentPhase, int32_t nbSteps) noexcept = 0;
    //! Step \p step of the innermost phase finished; return false to cancel the build.
    virtual bool stepComplete(char const* phaseName, int32_t step) noexcept = 0;
    //! A phase finished (possibly before all its steps were reported).
    virtual void phaseFinish(char const* phaseName) noexcept = 0;
};
} // namespace v_1_0

//! Build progress monitor.
using IProgressMonitor = v_1_0::IProgressMonitor;

//!
//! \class IBuilderConfig
//! \brief Options for building an engine. The user deletes it (before its builder).
//!
class IBuilderConfig : public INoCopy
{
public:
    virtual ~IBuilderConfig() noexcept = default;

    //! Number of iterations averaged when timing a tactic (default 1).
    virtual void setAvgTimingIterations(int32_t avgTiming) noexcept = 0;
    virtual int32_t getAvgTimingIterations() const noexcept = 0;
    //! Target flow (default kSTANDARD).
    virtual void setEngineCapability(EngineCapability capability) noexcept = 0;
    virtual EngineCapability getEngineCapability() const noexcept = 0;
    //! \deprecated Since TensorRT 10.1 (explicit quantization).
    TRT_DEPRECATED virtual void setInt8Calibrator(IInt8Calibrator* calibrator) noexcept = 0;
    //! \deprecated Since TensorRT 10.1 (explicit quantization).
    TRT_DEPRECATED virtual IInt8Calibrator* getInt8Calibrator() const noexcept = 0;
    //! Replace all builder flags.
    virtual void setFlags(BuilderFlags builderFlags) noexcept = 0;
    virtual BuilderFlags getFlags() const noexcept = 0;
    virtual void clearFlag(BuilderFlag builderFlag) noexcept = 0;
    virtual void setFlag(BuilderFlag builderFlag) noexcept = 0;
    virtual bool getFlag(BuilderFlag builderFlag) const noexcept = 0;
    //! Device a layer must run on.
    virtual void setDeviceType(ILayer const* layer, DeviceType deviceType) noexcept = 0;
    virtual DeviceType getDeviceType(ILayer const* layer) const noexcept = 0;
    virtual bool isDeviceTypeSet(ILayer const* layer) const noexcept = 0;
    virtual void resetDeviceType(ILayer const* layer) noexcept = 0;
    virtual bool canRunOnDLA(ILayer const* layer) const noexcept = 0;
    //! DLA core to use (default -1).
    virtual void setDLACore(int32_t dlaCore) noexcept = 0;
    virtual int32_t getDLACore() const noexcept = 0;
    //! Default device of layers (default kGPU).
    virtual void setDefaultDeviceType(DeviceType deviceType) noexcept = 0;
    virtual DeviceType getDefaultDeviceType() const noexcept = 0;
    //! Restore all defaults.
    virtual void reset() noexcept = 0;
    //! Stream used to time tactics.
    virtual void setProfileStream(const cudaStream_t stream) noexcept = 0;
    virtual cudaStream_t getProfileStream() const noexcept = 0;
    //! Add a valid optimization profile; returns its index or -1.
    virtual int32_t addOptimizationProfile(IOptimizationProfile const* profile) noexcept = 0;
    virtual int32_t getNbOptimizationProfiles() const noexcept = 0;
    //! Layer detail exposed to NVTX and IEngineInspector (default kLAYER_NAMES_ONLY).
    virtual void setProfilingVerbosity(ProfilingVerbosity verbosity) noexcept = 0;
    virtual ProfilingVerbosity getProfilingVerbosity() const noexcept = 0;
    //! \deprecated Since TensorRT 10.8; use the editable timing cache.
    TRT_DEPRECATED virtual void setAlgorithmSelector(IAlgorithmSelector* selector) noexcept = 0;
    //! \deprecated Since TensorRT 10.8; use the editable timing cache.
    TRT_DEPRECATED virtual IAlgorithmSelector* getAlgorithmSelector() const noexcept = 0;
    //! \deprecated Since TensorRT 10.1 (explicit quantization).
    TRT_DEPRECATED virtual bool setCalibrationProfile(IOptimizationProfile const* profile) noexcept = 0;
    //! \deprecated Since TensorRT 10.1 (explicit quantization).
    TRT_DEPRECATED virtual IOptimizationProfile const* getCalibrationProfile() noexcept = 0;
    //! \deprecated Since TensorRT 10.10 (explicit quantization).
    TRT_DEPRECATED virtual void setQuantizationFlags(QuantizationFlags flags) noexcept = 0;
    //! \deprecated Since TensorRT 10.10 (explicit quantization).
    TRT_DEPRECATED virtual QuantizationFlags getQuantizationFlags() const noexcept = 0;
    //! \deprecated Since TensorRT 10.10 (explicit quantization).
    TRT_DEPRECATED virtual void clearQuantizationFlag(QuantizationFlag flag) noexcept = 0;
    //! \deprecated Since TensorRT 10.10 (explicit quantization).
    TRT_DEPRECATED virtual void setQuantizationFlag(QuantizationFlag flag) noexcept = 0;
    //! \deprecated Since TensorRT 10.10 (explicit quantization).
    TRT_DEPRECATED virtual bool getQuantizationFlag(QuantizationFlag flag) const noexcept = 0;
    //! Allowed tactic sources (bitmask of TacticSource); false when invalid.
    virtual bool setTacticSources(TacticSources tacticSources) noexcept = 0;
    virtual TacticSources getTacticSources() const noexcept = 0;
    //! Create a timing cache from serialized data (size 0: empty cache). The user deletes it.
    virtual nvinfer1::ITimingCache* createTimingCache(void const* blob, std::size_t size) const noexcept = 0;
    //! Attach a timing cache, which must outlive the build.
    virtual bool setTimingCache(ITimingCache const& cache, bool ignoreMismatch) noexcept = 0;
    virtual nvinfer1::ITimingCache const* getTimingCache() const noexcept = 0;
    //! Size limit of a memory pool, in bytes.
    virtual void setMemoryPoolLimit(MemoryPoolType pool, std::size_t poolSize) noexcept = 0;
    virtual std::size_t getMemoryPoolLimit(MemoryPoolType pool) const noexcept = 0;
    virtual void setPreviewFeature(PreviewFeature feature, bool enable) noexcept = 0;
    virtual bool getPreviewFeature(PreviewFeature feature) const noexcept = 0;
    //! Optimization effort, 0 to 5 (default 3).
    virtual void setBuilderOptimizationLevel(int32_t level) noexcept = 0;
    virtual int32_t getBuilderOptimizationLevel() noexcept = 0;
    //! Hardware compatibility (default kNONE).
    virtual void setHardwareCompatibilityLevel(HardwareCompatibilityLevel hardwareCompatibilityLevel) noexcept = 0;
    virtual HardwareCompatibilityLevel getHardwareCompatibilityLevel() const noexcept = 0;
    //! Plugin libraries to embed in version-compatible engines.
    virtual void setPluginsToSerialize(char const* const* paths, int32_t nbPaths) noexcept = 0;
    virtual char const* getPluginToSerialize(int32_t index) const noexcept = 0;
    virtual int32_t getNbPluginsToSerialize() const noexcept = 0;
    //! Maximum number of auxiliary streams (0: single stream).
    virtual void setMaxAuxStreams(int32_t nbStreams) noexcept = 0;
    virtual int32_t getMaxAuxStreams() const noexcept = 0;
    //! Progress monitor (nullptr to unset).
    virtual void setProgressMonitor(IProgressMonitor* monitor) noexcept = 0;
    virtual IProgressMonitor* getProgressMonitor() const noexcept = 0;
    //! Target runtime platform (default kSAME_AS_BUILD).
    virtual void setRuntimePlatform(RuntimePlatform runtimePlatform) noexcept = 0;
    virtual RuntimePlatform getRuntimePlatform() const noexcept = 0;
    //! Maximum number of tactics timed per choice (default -1: heuristic).
    virtual void setMaxNbTactics(int32_t maxNbTactics) noexcept = 0;
    virtual int32_t getMaxNbTactics() const noexcept = 0;
    //! Tiling optimization effort (default kNONE).
    virtual bool setTilingOptimizationLevel(TilingOptimizationLevel level) noexcept = 0;
    virtual TilingOptimizationLevel getTilingOptimizationLevel() const noexcept = 0;
    //! L2 cache budget for tiling.
    virtual bool setL2LimitForTiling(int64_t size) noexcept = 0;
    virtual int64_t getL2LimitForTiling() const noexcept = 0;
    //! Configuration string for remote auto-tuning (kSAFETY engines).
    virtual bool setRemoteAutoTuningConfig(char const* config) noexcept = 0;
    virtual char const* getRemoteAutoTuningConfig() const noexcept = 0;
};

//! Properties of a network fixed at creation (IBuilder::createNetworkV2()).
enum class NetworkDefinitionCreationFlag : int32_t
{
    kEXPLICIT_BATCH TRT_DEPRECATED_ENUM = 0, //!< \deprecated Since 10.0; ignored (always explicit batch).
    kSTRONGLY_TYPED = 1,                     //!< Types follow from inputs and type-setting layers only.
    kPREFER_JIT_PYTHON_PLUGINS = 2,          //!< Prefer JIT implementations of Python plugins.
    kPREFER_AOT_PYTHON_PLUGINS = 3,          //!< Prefer AOT implementations of Python plugins.
};

//! Number of NetworkDefinitionCreationFlag values.
template <>
constexpr inline int32_t EnumMax<NetworkDefinitionCreationFlag>() noexcept
{
    return 4;
}

//!
//! \class IBuilder
//! \brief Creates networks, configurations and optimization profiles, and builds engines. The user deletes it.
//!
class IBuilder : public INoCopy
{
public:
    virtual ~IBuilder() noexcept = default;

    //! \deprecated Since TensorRT 10.5; query CUDA instead.
    TRT_DEPRECATED virtual bool platformHasFastFp16() const noexcept = 0;
    //! \deprecated Since TensorRT 10.5; query CUDA instead.
    TRT_DEPRECATED virtual bool platformHasFastInt8() const noexcept = 0;
    virtual int32_t getMaxDLABatchSize() const noexcept = 0;
    virtual int32_t getNbDLACores() const noexcept = 0;
    //! Device allocator for the builder and its engines (nullptr: default).
    virtual void setGpuAllocator(IGpuAllocator* allocator) noexcept = 0;
    //! New configuration, owned by the caller.
    virtual nvinfer1::IBuilderConfig* createBuilderConfig() noexcept = 0;
    //! New network (flags: bitmask of NetworkDefinitionCreationFlag), owned by the caller.
    virtual nvinfer1::INetworkDefinition* createNetworkV2(NetworkDefinitionCreationFlags flags) noexcept = 0;
    //! New optimization profile, owned by the builder.
    virtual nvinfer1::IOptimizationProfile* createOptimizationProfile() noexcept = 0;
    virtual void setErrorRecorder(IErrorRecorder* recorder) noexcept = 0;
    virtual IErrorRecorder* getErrorRecorder() const noexcept = 0;
    //! Restore the builder's defaults.
    virtual void reset() noexcept = 0;
    //! \deprecated Since TensorRT 10.5; query CUDA instead.
    TRT_DEPRECATED virtual bool platformHasTf32() const noexcept = 0;
    //! Build and serialize an engine; nullptr on failure.
    virtual nvinfer1::IHostMemory* buildSerializedNetwork(INetworkDefinition& network, IBuilderConfig& config) noexcept
        = 0;
    //! Build and write the serialized engine to \p writer.
    virtual bool buildSerializedNetworkToStream(
        INetworkDefinition& network, IBuilderConfig& config, IStreamWriter& writer) noexcept
        = 0;
    //! Build and serialize; also returns kernel source text for safety engines (else nullptr).
    virtual nvinfer1::IHostMemory* buildSerializedNetwork(
        INetworkDefinition& network, IBuilderConfig& config, IHostMemory*& kernelText) noexcept
        = 0;
    //! Build an engine directly.
    virtual nvinfer1::ICudaEngine* buildEngineWithConfig(INetworkDefinition& network, IBuilderConfig& config) noexcept
        = 0;
    //! Quick check that \p network fits the constraints of \p config.
    virtual bool isNetworkSupported(INetworkDefinition const& network, IBuilderConfig const& config) const noexcept
        = 0;
    //! The logger given to createInferBuilder().
    virtual ILogger* getLogger() const noexcept = 0;
    //! Maximum number of builder threads (default 1).
    virtual bool setMaxThreads(int32_t maxThreads) noexcept = 0;
    virtual int32_t getMaxThreads() const noexcept = 0;
    //! The builder's local plugin registry.
    virtual IPluginRegistry& getPluginRegistry() noexcept = 0;
};

} // namespace nvinfer1

//! Library entry point behind createInferBuilder(); returns an IBuilder*.
extern "C" TENSORRTAPI void* createInferBuilder_INTERNAL(void* logger, int32_t version) noexcept;

namespace nvinfer1
{
namespace
{
//! Create a builder that logs through \p logger.
inline IBuilder* createInferBuilder(ILogger& logger) noexcept
{
    return static_cast<IBuilder*>(createInferBuilder_INTERNAL(&logger, NV_TENSORRT_VERSION));
}
} // namespace

//! The plugin registry used when building engines of \p capability (kSTANDARD only), or nullptr.
extern "C" TENSORRTAPI nvinfer1::IPluginRegistry* getBuilderPluginRegistry(
    nvinfer1::EngineCapability capability) noexcept;

//! Directory from which internal libraries are loaded when building ("" resets). Process-wide.
extern "C" TENSORRTAPI bool setInternalLibraryPath(AsciiChar const* path) noexcept;

namespace safe
{
class IPluginRegistry;
} // namespace safe

//! The safety plugin registry (kSAFETY only), or nullptr.
//! \deprecated Not supported by Kiln.
extern "C" TRT_DEPRECATED_API nvinfer1::safe::IPluginRegistry* getBuilderSafePluginRegistry(
    nvinfer1::EngineCapability capability) noexcept;

} // namespace nvinfer1

KILN_IGNORE_DEPRECATED_END

#endif // NV_INFER_H
