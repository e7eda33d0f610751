// NvInferRuntime.h — Kiln's TensorRT 10.16-compatible runtime API: shape expressions, the IPluginV2DynamicExt and
// IPluginV3One plugin interfaces, application callbacks (logger, allocators, streams, profiler) and the runtime
// objects (IRuntime, ICudaEngine, IExecutionContext, ...), plus the factory functions that create them.
#ifndef NV_INFER_RUNTIME_H
#define NV_INFER_RUNTIME_H

#include "NvInferImpl.h"
#include "NvInferPluginBase.h"
#include "NvInferRuntimeCommon.h"

namespace nvinfer1
{

class IExecutionContext;
class ICudaEngine;
class IPluginFactory;
class IEngineInspector;

//!
//! \class INoCopy
//! \brief Base of the library-implemented objects: neither copyable nor movable, handled through pointers.
//!
class INoCopy
{
protected:
    INoCopy() = default;
    virtual ~INoCopy() = default;
    INoCopy(INoCopy const& other) = delete;
    INoCopy& operator=(INoCopy const& other) = delete;
    INoCopy(INoCopy&& other) = delete;
    INoCopy& operator=(INoCopy&& other) = delete;
};

//!
//! \enum EngineCapability
//! \brief Which runtime an engine targets and, therefore, which restrictions apply while building it.
//!
enum class EngineCapability : int32_t
{
    kSTANDARD = 0,       //!< The standard runtime; no restrictions.
    kSAFETY = 1,         //!< The safety-certified runtime subset (not supported by Kiln).
    kDLA_STANDALONE = 2, //!< Standalone DLA runtimes (not supported by Kiln).
};

namespace impl
{
template <>
struct EnumMaxImpl<EngineCapability>
{
    static constexpr int32_t kVALUE = 3;
};
} // namespace impl

//!
//! \class Weights
//! \brief A typed, non-owning array of weight values. The data must stay valid until the engine is built.
//!
//! "Empty weights" have count == 0 and values == nullptr.
//!
class Weights
{
public:
    DataType type;      //!< Element type.
    void const* values; //!< Contiguous values.
    int64_t count;      //!< Number of elements.
};

//!
//! \class IHostMemory
//! \brief A library-owned host buffer (e.g. a serialized engine). Delete it to free the memory.
//!
class IHostMemory : public INoCopy
{
public:
    virtual ~IHostMemory() noexcept = default;

    //! Start of the buffer.
    virtual void* data() const noexcept = 0;

    //! Size of the buffer in bytes.
    virtual std::size_t size() const noexcept = 0;

    //! Element type of the buffer (kUINT8 for serialized engines).
    virtual DataType type() const noexcept = 0;
};

//!
//! \enum DimensionOperation
//! \brief Binary operations available to build shape expressions (see IExprBuilder::operation()).
//!
enum class DimensionOperation : int32_t
{
    kSUM = 0,       //!< first + second
    kPROD = 1,      //!< first * second
    kMAX = 2,       //!< max(first, second)
    kMIN = 3,       //!< min(first, second)
    kSUB = 4,       //!< first - second
    kEQUAL = 5,     //!< 1 if equal, else 0
    kLESS = 6,      //!< 1 if first < second, else 0
    kFLOOR_DIV = 7, //!< floor(first / second)
    kCEIL_DIV = 8   //!< ceil(first / second)
};

template <>
constexpr inline int32_t EnumMax<DimensionOperation>() noexcept
{
    return 9;
}

//!
//! \enum TensorLocation
//! \brief Where tensor (or weights) data lives.
//!
enum class TensorLocation : int32_t
{
    kDEVICE = 0, //!< Device memory.
    kHOST = 1,   //!< Host memory.
};

namespace impl
{
template <>
struct EnumMaxImpl<TensorLocation>
{
    static constexpr int32_t kVALUE = 2;
};
} // namespace impl

//!
//! \class IDimensionExpr
//! \brief An integer expression over constants, input extents and binary operations, used by plugins to describe
//! output shapes symbolically. Created only by IExprBuilder; valid until the shape callback returns.
//!
class IDimensionExpr : public INoCopy
{
public:
    //! True if the expression is a build-time constant.
    bool isConstant() const noexcept
    {
        return mImpl->isConstant();
    }

    //! Value of a constant expression; std::numeric_limits<int64_t>::min() otherwise.
    int64_t getConstantValue() const noexcept
    {
        return mImpl->getConstantValue();
    }

protected:
    apiv::VDimensionExpr* mImpl;
    virtual ~IDimensionExpr() noexcept = default;

public:
    //! True if this expression was created by IExprBuilder::declareSizeTensor().
    bool isSizeTensor() const noexcept
    {
        return mImpl->isSizeTensor();
    }
};

//!
//! \class IExprBuilder
//! \brief Factory for IDimensionExpr, handed to plugin shape callbacks.
//!
class IExprBuilder : public INoCopy
{
public:
    //! Expression for a constant value.
    IDimensionExpr const* constant(int64_t value) noexcept
    {
        return mImpl->constant(value);
    }

    //! Expression for `op` applied to first and second; nullptr if op is invalid.
    IDimensionExpr const* operation(
        DimensionOperation op, IDimensionExpr const& first, IDimensionExpr const& second) noexcept
    {
        return mImpl->operation(op, first, second);
    }

protected:
    apiv::VExprBuilder* mImpl;
    virtual ~IExprBuilder() noexcept = default;

public:
    //! Declare that plugin output `outputIndex` is a size tensor whose value is a data-dependent extent.
    //! `opt` (which must not depend on a size tensor) is used for auto-tuning and `upper` bounds the value.
    //! The returned expression denotes that value and can be used in the shapes of other outputs.
    IDimensionExpr const* declareSizeTensor(int32_t outputIndex, IDimensionExpr const& opt, IDimensionExpr const& upper)
    {
        return mImpl->declareSizeTensor(outputIndex, opt, upper);
    }
};

//!
//! \class DimsExprs
//! \brief Like Dims, but each extent is a shape expression.
//!
class DimsExprs
{
public:
    int32_t nbDims;                          //!< Rank.
    IDimensionExpr const* d[Dims::MAX_DIMS]; //!< Extent expressions.
};

//!
//! \struct DynamicPluginTensorDesc
//! \brief A plugin input/output as seen at build time: the descriptor (runtime extents are -1) and the
//! min/max/opt shapes of the optimization profile being built.
//!
struct DynamicPluginTensorDesc
{
    PluginTensorDesc desc; //!< Type, format, scale and shape (with -1 for runtime extents).
    Dims min;              //!< Lower bounds of the extents.
    Dims max;              //!< Upper bounds of the extents.
    Dims opt;              //!< Extents used for auto-tuning.
};

KILN_IGNORE_DEPRECATED_BEGIN

//!
//! \class IPluginV2DynamicExt
//! \brief IPluginV2Ext with dynamic shapes: output shapes are expressions of input shapes.
//! \deprecated Deprecated in TensorRT 10.0; implement IPluginV3.
//!
class TRT_DEPRECATED IPluginV2DynamicExt : public nvinfer1::IPluginV2Ext
{
public:
    IPluginV2DynamicExt* clone() const noexcept override = 0;

    //! Shape of output `outputIndex` as expressions of the input shapes.
    virtual DimsExprs getOutputDimensions(
        int32_t outputIndex, DimsExprs const* inputs, int32_t nbInputs, IExprBuilder& exprBuilder) noexcept = 0;

    //! Maximum number of format combinations timed.
    static constexpr int32_t kFORMAT_COMBINATION_LIMIT = 100;

    //! Whether inOut[pos] (inputs first, then outputs) has a supported type/format, given inOut[0..pos-1].
    //! Must only look at inOut[0..pos].
    virtual bool supportsFormatCombination(
        int32_t pos, PluginTensorDesc const* inOut, int32_t nbInputs, int32_t nbOutputs) noexcept = 0;

    //! Configure for the given profile bounds (build time) or concrete shapes (before execution).
    virtual void configurePlugin(DynamicPluginTensorDesc const* in, int32_t nbInputs,
        DynamicPluginTensorDesc const* out, int32_t nbOutputs) noexcept = 0;

    //! Device workspace in bytes for these (or smaller) I/O shapes.
    virtual size_t getWorkspaceSize(PluginTensorDesc const* inputs, int32_t nbInputs, PluginTensorDesc const* outputs,
        int32_t nbOutputs) const noexcept = 0;

    //! Run the layer on `stream`. Return 0 on success.
    virtual int32_t enqueue(PluginTensorDesc const* inputDesc, PluginTensorDesc const* outputDesc,
        void const* const* inputs, void* const* outputs, void* workspace, cudaStream_t stream) noexcept = 0;

protected:
    //! API version with PluginVersion::kV2_DYNAMICEXT in the top byte. Do not override.
    int32_t getTensorRTVersion() const noexcept override
    {
        return static_cast<int32_t>((static_cast<uint32_t>(PluginVersion::kV2_DYNAMICEXT) << 24U)
            | (static_cast<uint32_t>(NV_TENSORRT_VERSION) & 0xFFFFFFU));
    }

    virtual ~IPluginV2DynamicExt() noexcept {}

private:
    // Implicit-batch entry points of the base classes, sealed off for this generation.
    void configurePlugin(Dims const*, int32_t, Dims const*, int32_t, DataType const*, DataType const*, bool const*,
        bool const*, PluginFormat, int32_t) noexcept override final
    {
    }

    bool supportsFormat(DataType, PluginFormat) const noexcept override final
    {
        return false;
    }

    Dims getOutputDimensions(int32_t, Dims const*, int32_t) noexcept override final
    {
        return Dims{-1, {}};
    }

    TRT_DEPRECATED bool isOutputBroadcastAcrossBatch(int32_t, bool const*, int32_t) const noexcept override final
    {
        return false;
    }

    TRT_DEPRECATED bool canBroadcastInputAcrossBatch(int32_t) const noexcept override final
    {
        return true;
    }

    size_t getWorkspaceSize(int32_t) const noexcept override final
    {
        return 0;
    }

    int32_t enqueue(int32_t, void const* const*, void* const*, void*, cudaStream_t) noexcept override final
    {
        return 1;
    }
};

KILN_IGNORE_DEPRECATED_END

namespace v_1_0
{
//!
//! \brief Application-implemented sequential reader used to deserialize an engine from a stream.
//!
class IStreamReader : public IVersionedInterface
{
public:
    //! The library never deletes an application's reader.
    ~IStreamReader() override = default;
    IStreamReader() = default;

    InterfaceInfo getInterfaceInfo() const noexcept override
    {
        return InterfaceInfo{"IStreamReader", 1, 0};
    }

    //! Read up to nbBytes into destination; return the number read (negative means error).
    virtual int64_t read(void* destination, int64_t nbBytes) = 0;

protected:
    IStreamReader(IStreamReader const&) = default;
    IStreamReader(IStreamReader&&) = default;
    IStreamReader& operator=(IStreamReader const&) & = default;
    IStreamReader& operator=(IStreamReader&&) & = default;
};

//!
//! \brief Application-implemented sink used to write a serialized engine as a stream.
//!
class IStreamWriter : public IVersionedInterface
{
public:
    //! The library never deletes an application's writer.
    ~IStreamWriter() override = default;
    IStreamWriter() = default;

    InterfaceInfo getInterfaceInfo() const noexcept final
    {
        return InterfaceInfo{"IStreamWriter", 1, 0};
    }

    //! Write nbBytes from data; return the number written. A short or negative count aborts serialization.
    virtual int64_t write(void const* data, int64_t nbBytes) = 0;

protected:
    IStreamWriter(IStreamWriter const&) = default;
    IStreamWriter(IStreamWriter&&) = default;
    IStreamWriter& operator=(IStreamWriter const&) & = default;
    IStreamWriter& operator=(IStreamWriter&&) & = default;
};
} // namespace v_1_0

using IStreamReader = v_1_0::IStreamReader;
using IStreamWriter = v_1_0::IStreamWriter;

//!
//! \enum SeekPosition
//! \brief Origin of an IStreamReaderV2::seek() offset.
//!
enum class SeekPosition : int32_t
{
    kSET = 0, //!< From the start of the stream.
    kCUR = 1, //!< From the current position.
    kEND = 2, //!< From the end of the stream.
};

namespace v_1_0
{
//!
//! \brief Application-implemented seekable reader that can fill host or device memory (stream-ordered).
//!
class IStreamReaderV2 : public IVersionedInterface
{
public:
    //! The library never deletes an application's reader.
    ~IStreamReaderV2() override = default;
    IStreamReaderV2() = default;

    InterfaceInfo getInterfaceInfo() const noexcept override
    {
        return InterfaceInfo{"IStreamReaderV2", 1, 0};
    }

    //! Read up to nbBytes into destination (host or device memory) ordered on `stream`. Returns bytes read,
    //! 0 at end of stream, negative on error.
    virtual int64_t read(void* destination, int64_t nbBytes, cudaStream_t stream) noexcept = 0;

    //! Move the read position; true on success.
    virtual bool seek(int64_t offset, SeekPosition where) noexcept = 0;

protected:
    IStreamReaderV2(IStreamReaderV2 const&) = default;
    IStreamReaderV2(IStreamReaderV2&&) = default;
    IStreamReaderV2& operator=(IStreamReaderV2 const&) & = default;
    IStreamReaderV2& operator=(IStreamReaderV2&&) & = default;
};
} // namespace v_1_0

using IStreamReaderV2 = v_1_0::IStreamReaderV2;

//!
//! \class IPluginResourceContext
//! \brief Per-execution-context resources offered to IPluginV3OneRuntime::attachToContext(). Library-implemented.
//!
class IPluginResourceContext
{
public:
    //! Allocator of the execution context.
    virtual IGpuAllocator* getGpuAllocator() const noexcept = 0;

    //! Error recorder of the execution context.
    virtual IErrorRecorder* getErrorRecorder() const noexcept = 0;

    virtual ~IPluginResourceContext() noexcept = default;

protected:
    IPluginResourceContext() = default;
    IPluginResourceContext(IPluginResourceContext const&) = default;
    IPluginResourceContext(IPluginResourceContext&&) = default;
    IPluginResourceContext& operator=(IPluginResourceContext const&) & = default;
    IPluginResourceContext& operator=(IPluginResourceContext&&) & = default;
};

namespace v_1_0
{
//!
//! \brief Core capability of a V3 plugin: its identity.
//!
class IPluginV3OneCore : public IPluginCapability
{
public:
    InterfaceInfo getInterfaceInfo() const noexcept override
    {
        return InterfaceInfo{"PLUGIN_V3ONE_CORE", 1, 0};
    }

    //! Plugin name; must equal the creator's.
    virtual AsciiChar const* getPluginName() const noexcept = 0;

    //! Plugin version; must equal the creator's.
    virtual AsciiChar const* getPluginVersion() const noexcept = 0;

    //! Plugin namespace; must equal the creator's.
    virtual AsciiChar const* getPluginNamespace() const noexcept = 0;
};

//!
//! \brief Build capability of a V3 plugin: shapes, types, formats, workspace and tactics.
//!
class IPluginV3OneBuild : public IPluginCapability
{
public:
    //! Default for getFormatCombinationLimit().
    static constexpr int32_t kDEFAULT_FORMAT_COMBINATION_LIMIT = 100;

    InterfaceInfo getInterfaceInfo() const noexcept override
    {
        return InterfaceInfo{"PLUGIN_V3ONE_BUILD", 1, 0};
    }

    //! Configure for the profile being built (min/opt/max in each descriptor). Return 0 on success.
    virtual int32_t configurePlugin(DynamicPluginTensorDesc const* in, int32_t nbInputs,
        DynamicPluginTensorDesc const* out, int32_t nbOutputs) noexcept = 0;

    //! Write the output types for the given input types. Size-tensor outputs must be kINT32 (or kINT64).
    //! Return 0 on success.
    virtual int32_t getOutputDataTypes(
        DataType* outputTypes, int32_t nbOutputs, const DataType* inputTypes, int32_t nbInputs) const noexcept = 0;

    //! Write the output shapes as expressions of the input shapes. shapeInputs holds the *values* of shape-tensor
    //! inputs, flattened row-major. Size-tensor outputs are 0-D. Return 0 on success.
    virtual int32_t getOutputShapes(DimsExprs const* inputs, int32_t nbInputs, DimsExprs const* shapeInputs,
        int32_t nbShapeInputs, DimsExprs* outputs, int32_t nbOutputs, IExprBuilder& exprBuilder) noexcept = 0;

    //! Whether inOut[pos] (inputs first, then outputs) has a supported type/format, given inOut[0..pos-1].
    //! Must only look at inOut[0..pos].
    virtual bool supportsFormatCombination(
        int32_t pos, DynamicPluginTensorDesc const* inOut, int32_t nbInputs, int32_t nbOutputs) noexcept = 0;

    //! Number of outputs (positive).
    virtual int32_t getNbOutputs() const noexcept = 0;

    //! Device workspace in bytes for these (or smaller) I/O shapes.
    virtual size_t getWorkspaceSize(DynamicPluginTensorDesc const* /*inputs*/, int32_t /*nbInputs*/,
        DynamicPluginTensorDesc const* /*outputs*/, int32_t /*nbOutputs*/) const noexcept
    {
        return 0;
    }

    //! Write getNbTactics() custom tactic ids (unique, non-zero; 0 is the default tactic) for the format
    //! combination of the preceding configurePlugin(). Return 0 on success.
    virtual int32_t getValidTactics(int32_t* /*tactics*/, int32_t /*nbTactics*/) noexcept
    {
        return 0;
    }

    //! Number of custom tactics.
    virtual int32_t getNbTactics() noexcept
    {
        return 0;
    }

    //! Suffix identifying the plugin's creation state in the timing cache; nullptr disables timing caching.
    virtual char const* getTimingCacheID() noexcept
    {
        return nullptr;
    }

    //! Maximum number of format combinations that are timed.
    virtual int32_t getFormatCombinationLimit() noexcept
    {
        return kDEFAULT_FORMAT_COMBINATION_LIMIT;
    }

    //! Human-readable description of the plugin's configuration (shown by engine inspection), or nullptr.
    virtual char const* getMetadataString() noexcept
    {
        return nullptr;
    }
};

//!
//! \brief Runtime capability of a V3 plugin: execution and serialization.
//!
class IPluginV3OneRuntime : public IPluginCapability
{
public:
    InterfaceInfo getInterfaceInfo() const noexcept override
    {
        return InterfaceInfo{"PLUGIN_V3ONE_RUNTIME", 1, 0};
    }

    //! Select the tactic for the following enqueue() calls (0 = default). Return 0 on success.
    virtual int32_t setTactic(int32_t /*tactic*/) noexcept
    {
        return 0;
    }

    //! Called before execution whenever the concrete I/O shapes may have changed. Return 0 on success.
    virtual int32_t onShapeChange(
        PluginTensorDesc const* in, int32_t nbInputs, PluginTensorDesc const* out, int32_t nbOutputs) noexcept = 0;

    //! Run the layer on `stream`. Return 0 on success.
    virtual int32_t enqueue(PluginTensorDesc const* inputDesc, PluginTensorDesc const* outputDesc,
        void const* const* inputs, void* const* outputs, void* workspace, cudaStream_t stream) noexcept = 0;

    //! Return a clone of the whole plugin bound to an execution context's resources (one per context).
    virtual IPluginV3* attachToContext(IPluginResourceContext* context) noexcept = 0;

    //! Fields that capture the plugin's state; passed back to the creator (phase kRUNTIME) on deserialization.
    virtual PluginFieldCollection const* getFieldsToSerialize() noexcept = 0;
};
} // namespace v_1_0

namespace v_2_0
{
//!
//! \brief Build capability, version 2: adds in-place (aliased) input/output.
//!
class IPluginV3OneBuild : public v_1_0::IPluginV3OneBuild
{
public:
    InterfaceInfo getInterfaceInfo() const noexcept override
    {
        return InterfaceInfo{"PLUGIN_V3ONE_BUILD", 2, 0};
    }

    //! Index of the input that output `outputIndex` aliases (read-modify-write), or -1 for none. Only honoured
    //! with PreviewFeature::kALIASED_PLUGIN_IO_10_03. An input may be aliased by at most one output.
    virtual int32_t getAliasedInput(int32_t /*outputIndex*/) noexcept
    {
        return -1;
    }
};
} // namespace v_2_0

using IPluginV3OneCore = v_1_0::IPluginV3OneCore;
using IPluginV3OneBuild = v_1_0::IPluginV3OneBuild;
using IPluginV3OneRuntime = v_1_0::IPluginV3OneRuntime;
using IPluginV3OneBuildV2 = v_2_0::IPluginV3OneBuild;

namespace v_1_0
{
//!
//! \brief Application-implemented per-layer timing callback for execution contexts.
//!
class IProfiler
{
public:
    //! Report the time of one layer (name, or decimal index when profiling verbosity is kNONE) in milliseconds.
    virtual void reportLayerTime(char const* layerName, float ms) noexcept = 0;

    virtual ~IProfiler() noexcept {}
};
} // namespace v_1_0

using IProfiler = v_1_0::IProfiler;

//!
//! \enum WeightsRole
//! \brief How a layer uses a set of weights (for refitting).
//!
enum class WeightsRole : int32_t
{
    kKERNEL = 0,   //!< Convolution/deconvolution kernel.
    kBIAS = 1,     //!< Convolution/deconvolution bias.
    kSHIFT = 2,    //!< Scale layer shift.
    kSCALE = 3,    //!< Scale layer scale.
    kCONSTANT = 4, //!< Constant layer weights.
    kANY = 5,      //!< Any other role.
};

template <>
constexpr inline int32_t EnumMax<WeightsRole>() noexcept
{
    return 6;
}

//!
//! \enum DeviceType
//! \brief Kind of device a layer or network runs on.
//!
enum class DeviceType : int32_t
{
    kGPU = 0, //!< GPU (or, in Kiln, the default backend device).
    kDLA = 1, //!< DLA core (not supported by Kiln).
};

template <>
constexpr inline int32_t EnumMax<DeviceType>() noexcept
{
    return 2;
}

//!
//! \enum TempfileControlFlag
//! \brief Permissions for the runtime to create executable temporary files.
//!
enum class TempfileControlFlag : int32_t
{
    kALLOW_IN_MEMORY_FILES = 0, //!< Allow anonymous in-memory files.
    kALLOW_TEMPORARY_FILES = 1, //!< Allow named files in the temporary directory.
};

template <>
constexpr inline int32_t EnumMax<TempfileControlFlag>() noexcept
{
    return 2;
}

//! Bit set of TempfileControlFlag values (bit i = 1U << flag).
using TempfileControlFlags = uint32_t;

//!
//! \enum TensorFormat
//! \brief Memory layout of a tensor.
//!
//! "Vector-major" formats split the vectorized dimension C into ceil(C/V) and append an axis of V scalars;
//! "vector-minor" formats move the (padded) vectorized dimension last. V is the components-per-element count.
//!
enum class TensorFormat : int32_t
{
    kLINEAR = 0,     //!< Row-major; the last dimension has unit stride. All types.
    kCHW2 = 1,       //!< Vector-major, 2 scalars per vector, vector dimension third to last.
    kHWC8 = 2,       //!< Vector-minor, 8 scalars per vector, vector dimension third to last.
    kCHW4 = 3,       //!< Vector-major, 4 scalars per vector, vector dimension third to last.
    kCHW16 = 4,      //!< Vector-major, 16 scalars per vector, vector dimension third to last.
    kCHW32 = 5,      //!< Vector-major, 32 scalars per vector, vector dimension third to last.
    kDHWC8 = 6,      //!< Vector-minor, 8 scalars per vector, vector dimension fourth to last.
    kCDHW32 = 7,     //!< Vector-major, 32 scalars per vector, vector dimension fourth to last.
    kHWC = 8,        //!< Vector-minor, unpadded, vector dimension third to last.
    kDLA_LINEAR = 9, //!< DLA planar layout (H stride rounded to 64 bytes).
    kDLA_HWC4 = 10,  //!< DLA image layout.
    kHWC16 = 11,     //!< Vector-minor, 16 scalars per vector, vector dimension third to last.
    kDHWC = 12       //!< Vector-minor, one scalar per vector, vector dimension fourth to last.
};

namespace impl
{
template <>
struct EnumMaxImpl<TensorFormat>
{
    static constexpr int32_t kVALUE = 13;
};
} // namespace impl

//!
//! \enum AllocatorFlag
//! \brief Properties requested for a device allocation.
//!
enum class AllocatorFlag : int32_t
{
    kRESIZABLE = 0, //!< The library may call reallocate() on this allocation.
};

namespace impl
{
template <>
struct EnumMaxImpl<AllocatorFlag>
{
    static constexpr int32_t kVALUE = 1;
};
} // namespace impl

//! Bit set of AllocatorFlag values.
using AllocatorFlags = uint32_t;

//!
//! \class ILogger
//! \brief Application-implemented message sink for builders, runtimes and refitters. Must be thread-safe and
//! outlive every object created with it.
//!
class ILogger
{
public:
    //!
    //! \enum Severity
    //! \brief Severity of a log message.
    //!
    enum class Severity : int32_t
    {
        kINTERNAL_ERROR = 0, //!< Unrecoverable internal error.
        kERROR = 1,          //!< Application error.
        kWARNING = 2,        //!< Problem that the library recovered from.
        kINFO = 3,           //!< Informational message.
        kVERBOSE = 4,        //!< Debugging detail.
    };

    //! Receive one null-terminated message.
    virtual void log(Severity severity, AsciiChar const* msg) noexcept = 0;

    ILogger() = default;
    virtual ~ILogger() = default;

protected:
    ILogger(ILogger const&) = default;
    ILogger(ILogger&&) = default;
    ILogger& operator=(ILogger const&) & = default;
    ILogger& operator=(ILogger&&) & = default;
};

namespace impl
{
template <>
struct EnumMaxImpl<ILogger::Severity>
{
    static constexpr int32_t kVALUE = 5;
};
} // namespace impl

namespace v_1_0
{
//!
//! \brief Application-implemented device memory allocator. All methods must be thread-safe, and the allocator
//! must outlive every object that uses it. Prefer deriving from IGpuAsyncAllocator.
//!
class IGpuAllocator : public IVersionedInterface
{
public:
    //! Allocate `size` bytes aligned to `alignment` (0 or a power of two); nullptr on failure or size 0.
    //! \deprecated Deprecated in TensorRT 10.0; superseded by allocateAsync().
    TRT_DEPRECATED virtual void* allocate(
        uint64_t const size, uint64_t const alignment, AllocatorFlags const flags) noexcept = 0;

    ~IGpuAllocator() override = default;
    IGpuAllocator() = default;

    //! Resize an allocation made with AllocatorFlag::kRESIZABLE (in place or by moving the data). Return nullptr
    //! if not supported; the original allocation then stays valid.
    virtual void* reallocate(void* const /*baseAddr*/, uint64_t /*alignment*/, uint64_t /*newSize*/) noexcept
    {
        return nullptr;
    }

    //! Free memory returned by allocate()/reallocate() (may be nullptr). True on success.
    //! \deprecated Deprecated in TensorRT 10.0; superseded by deallocateAsync().
    TRT_DEPRECATED virtual bool deallocate(void* const memory) noexcept = 0;

    //! Stream-ordered allocation; the default forwards to allocate().
    virtual void* allocateAsync(
        uint64_t const size, uint64_t const alignment, AllocatorFlags const flags, cudaStream_t /*stream*/) noexcept
    {
        KILN_IGNORE_DEPRECATED_BEGIN
        return allocate(size, alignment, flags);
        KILN_IGNORE_DEPRECATED_END
    }

    //! Stream-ordered release; the default forwards to deallocate(). Memory must not be reused before the
    //! stream reaches this point.
    virtual bool deallocateAsync(void* const memory, cudaStream_t /*stream*/) noexcept
    {
        KILN_IGNORE_DEPRECATED_BEGIN
        return deallocate(memory);
        KILN_IGNORE_DEPRECATED_END
    }

    InterfaceInfo getInterfaceInfo() const noexcept override
    {
        return {"IGpuAllocator", 1, 0};
    }

protected:
    IGpuAllocator(IGpuAllocator const&) = default;
    IGpuAllocator(IGpuAllocator&&) = default;
    IGpuAllocator& operator=(IGpuAllocator const&) & = default;
    IGpuAllocator& operator=(IGpuAllocator&&) & = default;
};
} // namespace v_1_0

using IGpuAllocator = v_1_0::IGpuAllocator;

//!
//! \class IRuntime
//! \brief Deserializes engines. Create with createInferRuntime(); delete when all its engines are gone.
//!
class IRuntime : public INoCopy
{
public:
    virtual ~IRuntime() noexcept = default;

    //! Select the DLA core (ignored when no DLA is present, which is always the case in Kiln).
    virtual void setDLACore(int32_t dlaCore) noexcept = 0;

    //! Selected DLA core, or -1.
    virtual int32_t getDLACore() const noexcept = 0;

    //! Number of DLA cores (0 in Kiln).
    virtual int32_t getNbDLACores() const noexcept = 0;

    //! Allocator for all device memory acquired by this runtime; nullptr selects the default.
    virtual void setGpuAllocator(IGpuAllocator* allocator) noexcept = 0;

    //! Set the error recorder (inherited by engines created later).
    virtual void setErrorRecorder(IErrorRecorder* recorder) noexcept = 0;

    virtual IErrorRecorder* getErrorRecorder() const noexcept = 0;

    //! Deserialize an engine from memory; nullptr on failure.
    virtual ICudaEngine* deserializeCudaEngine(void const* blob, std::size_t size) noexcept = 0;

    //! Deserialize an engine from a stream; nullptr on failure.
    //! \deprecated Deprecated in TensorRT 10.7; use the IStreamReaderV2 overload.
    TRT_DEPRECATED virtual ICudaEngine* deserializeCudaEngine(IStreamReader& streamReader) noexcept = 0;

    //! Deserialize an engine from a seekable stream that can also fill device memory; nullptr on failure.
    virtual ICudaEngine* deserializeCudaEngine(IStreamReaderV2& streamReader) noexcept = 0;

    //! Logger the runtime was created with.
    virtual ILogger* getLogger() const noexcept = 0;

    //! Maximum number of threads the runtime may use (default 1); false if maxThreads < 1.
    virtual bool setMaxThreads(int32_t maxThreads) noexcept = 0;

    virtual int32_t getMaxThreads() const noexcept = 0;

    //! Directory for temporary files, or nullptr for the platform default.
    virtual void setTemporaryDirectory(char const* path) noexcept = 0;

    virtual char const* getTemporaryDirectory() const noexcept = 0;

    //! Which kinds of temporary files may be created (default: all).
    virtual void setTempfileControlFlags(TempfileControlFlags flags) noexcept = 0;

    virtual TempfileControlFlags getTempfileControlFlags() const noexcept = 0;

    //! The runtime's local plugin registry (falls back to the global registry).
    virtual IPluginRegistry& getPluginRegistry() noexcept = 0;

    //! Load a lean runtime from a shared library; nullptr on failure.
    virtual IRuntime* loadRuntime(char const* path) noexcept = 0;

    //! Whether engines containing host executable code may be deserialized (default false).
    virtual void setEngineHostCodeAllowed(bool allowed) noexcept = 0;

    virtual bool getEngineHostCodeAllowed() const noexcept = 0;
};

//!
//! \class IRefitter
//! \brief Replaces weights of a refittable engine. Create with createInferRefitter().
//!
class IRefitter : public INoCopy
{
public:
    virtual ~IRefitter() noexcept = default;

    //! New weights for the given role of a named layer; false if rejected.
    virtual bool setWeights(char const* layerName, WeightsRole role, Weights weights) noexcept = 0;

    //! Apply the supplied weights; false if validation fails or weights are missing.
    virtual bool refitCudaEngine() noexcept = 0;

    //! Layers/roles whose weights still have to be supplied; returns their count and writes up to `size`.
    virtual int32_t getMissing(int32_t size, char const** layerNames, WeightsRole* roles) noexcept = 0;

    //! All refittable layers/roles; returns their count and writes up to `size`.
    virtual int32_t getAll(int32_t size, char const** layerNames, WeightsRole* roles) noexcept = 0;

    //! \deprecated Deprecated in TensorRT 10.1 (implicit quantization).
    TRT_DEPRECATED virtual bool setDynamicRange(char const* tensorName, float min, float max) noexcept = 0;

    //! \deprecated Deprecated in TensorRT 10.1 (implicit quantization).
    TRT_DEPRECATED virtual float getDynamicRangeMin(char const* tensorName) const noexcept = 0;

    //! \deprecated Deprecated in TensorRT 10.1 (implicit quantization).
    TRT_DEPRECATED virtual float getDynamicRangeMax(char const* tensorName) const noexcept = 0;

    //! \deprecated Deprecated in TensorRT 10.1 (implicit quantization).
    TRT_DEPRECATED virtual int32_t getTensorsWithDynamicRange(int32_t size, char const** tensorNames) const noexcept
        = 0;

    virtual void setErrorRecorder(IErrorRecorder* recorder) noexcept = 0;

    virtual IErrorRecorder* getErrorRecorder() const noexcept = 0;

    //! New weights by name; false if rejected (unknown name, wrong count or type).
    virtual bool setNamedWeights(char const* name, Weights weights) noexcept = 0;

    //! Names of weights still missing; returns their count and writes up to `size`.
    virtual int32_t getMissingWeights(int32_t size, char const** weightsNames) noexcept = 0;

    //! Names of all refittable weights; returns their count and writes up to `size`.
    virtual int32_t getAllWeights(int32_t size, char const** weightsNames) noexcept = 0;

    virtual ILogger* getLogger() const noexcept = 0;

    virtual bool setMaxThreads(int32_t maxThreads) noexcept = 0;

    virtual int32_t getMaxThreads() const noexcept = 0;

    //! New weights by name, located on host or device.
    virtual bool setNamedWeights(char const* name, Weights weights, TensorLocation location) noexcept = 0;

    //! Weights currently supplied under a name (null weights if none).
    virtual Weights getNamedWeights(char const* weightsName) const noexcept = 0;

    //! Location of the weights supplied under a name.
    virtual TensorLocation getWeightsLocation(char const* weightsName) const noexcept = 0;

    //! Forget the weights supplied under a name; false if none were set.
    virtual bool unsetNamedWeights(char const* weightsName) noexcept = 0;

    //! Whether weights are validated during refit (default true).
    virtual void setWeightsValidation(bool weightsValidation) noexcept = 0;

    virtual bool getWeightsValidation() const noexcept = 0;

    //! Apply the supplied weights, ordered on `stream`.
    virtual bool refitCudaEngineAsync(cudaStream_t stream) noexcept = 0;

    //! Type and count expected for the weights of a name (values is nullptr; count -1 if unknown).
    virtual Weights getWeightsPrototype(char const* weightsName) const noexcept = 0;
};

//!
//! \enum OptProfileSelector
//! \brief Which bound of an optimization profile is set or queried.
//!
enum class OptProfileSelector : int32_t
{
    kMIN = 0, //!< Smallest permitted value.
    kOPT = 1, //!< Value used for tactic selection.
    kMAX = 2  //!< Largest permitted value.
};

template <>
constexpr inline int32_t EnumMax<OptProfileSelector>() noexcept
{
    return 3;
}

//!
//! \class IOptimizationProfile
//! \brief Ranges (min/opt/max) of dynamic input shapes and shape-tensor values. Owned by the builder.
//!
class IOptimizationProfile : public INoCopy
{
public:
    //! Set one bound of the shape of a dynamic input; false on an inconsistency detectable now.
    virtual bool setDimensions(char const* inputName, OptProfileSelector select, Dims const& dims) noexcept = 0;

    //! A bound set with setDimensions(); nbDims == -1 if unset.
    virtual Dims getDimensions(char const* inputName, OptProfileSelector select) const noexcept = 0;

    //! \deprecated Deprecated in TensorRT 10.11; use setShapeValuesV2().
    TRT_DEPRECATED virtual bool setShapeValues(
        char const* inputName, OptProfileSelector select, int32_t const* values, int32_t nbValues) noexcept = 0;

    //! Number of values set for a shape-tensor input, or -1.
    virtual int32_t getNbShapeValues(char const* inputName) const noexcept = 0;

    //! \deprecated Deprecated in TensorRT 10.11; use getShapeValuesV2().
    TRT_DEPRECATED virtual int32_t const* getShapeValues(
        char const* inputName, OptProfileSelector select) const noexcept = 0;

    //! Fraction (0..1) of extra weight memory the builder may spend on this profile (default 1).
    virtual bool setExtraMemoryTarget(float target) noexcept = 0;

    virtual float getExtraMemoryTarget() const noexcept = 0;

    //! Partial validation: every input has all three bounds, ranks agree and min <= opt <= max.
    virtual bool isValid() const noexcept = 0;

    //! Set one bound of the values of a shape-tensor input (row-major, nbValues elements).
    virtual bool setShapeValuesV2(
        char const* inputName, OptProfileSelector select, int64_t const* values, int32_t nbValues) noexcept = 0;

    //! Values set with setShapeValuesV2(), or nullptr.
    virtual int64_t const* getShapeValuesV2(char const* inputName, OptProfileSelector select) const noexcept = 0;

protected:
    virtual ~IOptimizationProfile() noexcept = default;
};

//!
//! \enum TacticSource
//! \brief External libraries and kernel families the builder may draw tactics from.
//!
enum class TacticSource : int32_t
{
    kCUBLAS TRT_DEPRECATED_ENUM = 0,    //!< \deprecated Deprecated in TensorRT 10.0.
    kCUBLAS_LT TRT_DEPRECATED_ENUM = 1, //!< \deprecated Deprecated in TensorRT 9.0.
    kCUDNN TRT_DEPRECATED_ENUM = 2,     //!< \deprecated Deprecated in TensorRT 10.0.
    kEDGE_MASK_CONVOLUTIONS = 3,        //!< Convolutions using edge-mask tables (more memory). On by default.
    kJIT_CONVOLUTIONS = 4,              //!< JIT-fused convolutions (longer builds). On by default.
};

template <>
constexpr inline int32_t EnumMax<TacticSource>() noexcept
{
    return 5;
}

//! Bit set of TacticSource values.
using TacticSources = uint32_t;

//!
//! \enum ProfilingVerbosity
//! \brief How much layer information is kept for profiling markers and IEngineInspector.
//!
enum class ProfilingVerbosity : int32_t
{
    kLAYER_NAMES_ONLY = 0, //!< Layer names only (default).
    kNONE = 1,             //!< No layer information.
    kDETAILED = 2,         //!< Names and parameters.
};

template <>
constexpr inline int32_t EnumMax<ProfilingVerbosity>() noexcept
{
    return 3;
}

//! Bit set of SerializationFlag values.
using SerializationFlags = uint32_t;

//!
//! \enum SerializationFlag
//! \brief Options for ICudaEngine::serializeWithConfig().
//!
enum class SerializationFlag : int32_t
{
    kEXCLUDE_WEIGHTS = 0,      //!< Leave out refittable weights.
    kEXCLUDE_LEAN_RUNTIME = 1, //!< Leave out the embedded lean runtime.
    kINCLUDE_REFIT = 2,        //!< Keep a weight-stripped engine refittable.
};

template <>
constexpr inline int32_t EnumMax<SerializationFlag>() noexcept
{
    return 3;
}

//!
//! \class ISerializationConfig
//! \brief Options for serializing an engine (see ICudaEngine::createSerializationConfig()).
//!
class ISerializationConfig : public INoCopy
{
public:
    virtual ~ISerializationConfig() noexcept = default;

    //! Replace all flags.
    virtual bool setFlags(SerializationFlags serializationFlags) noexcept = 0;

    virtual SerializationFlags getFlags() const noexcept = 0;

    virtual bool clearFlag(SerializationFlag serializationFlag) noexcept = 0;

    virtual bool setFlag(SerializationFlag serializationFlag) noexcept = 0;

    virtual bool getFlag(SerializationFlag serializationFlag) const noexcept = 0;
};

//!
//! \enum ExecutionContextAllocationStrategy
//! \brief How an execution context obtains its activation memory.
//!
enum class ExecutionContextAllocationStrategy : int32_t
{
    kSTATIC = 0,            //!< Allocate the maximum over all profiles at creation (default).
    kON_PROFILE_CHANGE = 1, //!< Allocate for the selected profile when it changes.
    kUSER_MANAGED = 2,      //!< The application supplies memory with setDeviceMemoryV2().
};

template <>
constexpr inline int32_t EnumMax<ExecutionContextAllocationStrategy>() noexcept
{
    return 3;
}

//!
//! \class IRuntimeConfig
//! \brief Options used when creating an execution context (see ICudaEngine::createRuntimeConfig()).
//!
class IRuntimeConfig : public INoCopy
{
public:
    virtual ~IRuntimeConfig() noexcept = default;

    //! Activation memory strategy (default kSTATIC).
    virtual void setExecutionContextAllocationStrategy(ExecutionContextAllocationStrategy strategy) noexcept = 0;

    virtual ExecutionContextAllocationStrategy getExecutionContextAllocationStrategy() const noexcept = 0;
};

//!
//! \enum EngineStat
//! \brief Statistics that ICudaEngine::getEngineStat() reports.
//!
enum class EngineStat : int32_t
{
    kTOTAL_WEIGHTS_SIZE = 0,    //!< Bytes of all weights used by the engine.
    kSTRIPPED_WEIGHTS_SIZE = 1, //!< Bytes of weights stripped from a kSTRIP_PLAN engine (-1 otherwise).
};

template <>
constexpr inline int32_t EnumMax<EngineStat>() noexcept
{
    return 2;
}

//!
//! \class ICudaEngine
//! \brief An immutable built network, shared by its execution contexts. Delete it after its contexts.
//!
//! Tensor queries return a neutral value (Dims{-1, {}}, kFLOAT, -1, nullptr ...) for names that are not engine
//! inputs/outputs. Kiln's CPU backend implements this interface as well as the CUDA backend.
//!
class ICudaEngine : public INoCopy
{
public:
    virtual ~ICudaEngine() noexcept = default;

    //! Shape of an I/O tensor, -1 for dynamic extents.
    virtual Dims getTensorShape(char const* tensorName) const noexcept = 0;

    //! Element type of an I/O tensor.
    virtual DataType getTensorDataType(char const* tensorName) const noexcept = 0;

    //! Number of layers after optimization.
    virtual int32_t getNbLayers() const noexcept = 0;

    //! Serialize the engine; the caller deletes the result.
    virtual IHostMemory* serialize() const noexcept = 0;

    //! Create an execution context using the given activation memory strategy (profile 0 selected).
    virtual IExecutionContext* createExecutionContext(
        ExecutionContextAllocationStrategy strategy = ExecutionContextAllocationStrategy::kSTATIC) noexcept = 0;

    //! Whether an I/O tensor must be bound to host or device memory.
    virtual TensorLocation getTensorLocation(char const* tensorName) const noexcept = 0;

    //! True for inputs whose values are needed to compute output shapes, and for outputs computed by
    //! IExecutionContext::inferShapes().
    virtual bool isShapeInferenceIO(char const* tensorName) const noexcept = 0;

    //! Input, output or neither.
    virtual TensorIOMode getTensorIOMode(char const* tensorName) const noexcept = 0;

    //! Name of the input that an output aliases (in-place plugin I/O), or nullptr.
    virtual char const* getAliasedInputTensor(char const* tensorName) const noexcept = 0;

    //! \deprecated Deprecated in TensorRT 10.0; use createExecutionContext(kUSER_MANAGED).
    TRT_DEPRECATED virtual IExecutionContext* createExecutionContextWithoutDeviceMemory() noexcept = 0;

    //! Create an execution context configured by runtimeConfig.
    virtual IExecutionContext* createExecutionContext(IRuntimeConfig* runtimeConfig) noexcept = 0;

    //! Create a runtime configuration; the caller deletes it.
    virtual IRuntimeConfig* createRuntimeConfig() noexcept = 0;

    //! \deprecated Deprecated in TensorRT 10.1; use getDeviceMemorySizeV2().
    TRT_DEPRECATED virtual size_t getDeviceMemorySize() const noexcept = 0;

    //! \deprecated Deprecated in TensorRT 10.1; use getDeviceMemorySizeForProfileV2().
    TRT_DEPRECATED virtual size_t getDeviceMemorySizeForProfile(int32_t profileIndex) const noexcept = 0;

    //! Activation memory a context needs, maximum over all profiles.
    virtual int64_t getDeviceMemorySizeV2() const noexcept = 0;

    //! Activation memory a context needs for one profile.
    virtual int64_t getDeviceMemorySizeForProfileV2(int32_t profileIndex) const noexcept = 0;

    //! Whether the engine can be refitted.
    virtual bool isRefittable() const noexcept = 0;

    //! Bytes per vector component (profile 0), or -1 if the tensor is not vectorized.
    virtual int32_t getTensorBytesPerComponent(char const* tensorName) const noexcept = 0;

    //! Bytes per vector component for a profile, or -1.
    virtual int32_t getTensorBytesPerComponent(char const* tensorName, int32_t profileIndex) const noexcept = 0;

    //! Components per vector element (profile 0), or -1.
    virtual int32_t getTensorComponentsPerElement(char const* tensorName) const noexcept = 0;

    //! Components per vector element for a profile, or -1.
    virtual int32_t getTensorComponentsPerElement(char const* tensorName, int32_t profileIndex) const noexcept = 0;

    //! Format of an I/O tensor (profile 0).
    virtual TensorFormat getTensorFormat(char const* tensorName) const noexcept = 0;

    //! Format of an I/O tensor for a profile.
    virtual TensorFormat getTensorFormat(char const* tensorName, int32_t profileIndex) const noexcept = 0;

    //! Human-readable description of the format (profile 0).
    virtual char const* getTensorFormatDesc(char const* tensorName) const noexcept = 0;

    //! Human-readable description of the format for a profile.
    virtual char const* getTensorFormatDesc(char const* tensorName, int32_t profileIndex) const noexcept = 0;

    //! Vectorized dimension index (profile 0), or -1.
    virtual int32_t getTensorVectorizedDim(char const* tensorName) const noexcept = 0;

    //! Vectorized dimension index for a profile, or -1.
    virtual int32_t getTensorVectorizedDim(char const* tensorName, int32_t profileIndex) const noexcept = 0;

    //! Name of the network the engine was built from.
    virtual char const* getName() const noexcept = 0;

    //! Number of optimization profiles (at least 1).
    virtual int32_t getNbOptimizationProfiles() const noexcept = 0;

    //! A bound of an input's shape in a profile.
    virtual Dims getProfileShape(char const* tensorName, int32_t profileIndex, OptProfileSelector select) const
        noexcept = 0;

    //! \deprecated Deprecated in TensorRT 10.11; use getProfileTensorValuesV2().
    TRT_DEPRECATED virtual int32_t const* getProfileTensorValues(
        char const* tensorName, int32_t profileIndex, OptProfileSelector select) const noexcept = 0;

    //! Capability the engine was built for.
    virtual EngineCapability getEngineCapability() const noexcept = 0;

    virtual void setErrorRecorder(IErrorRecorder* recorder) noexcept = 0;

    virtual IErrorRecorder* getErrorRecorder() const noexcept = 0;

    //! \deprecated Deprecated in TensorRT 10.0; always false.
    TRT_DEPRECATED virtual bool hasImplicitBatchDimension() const noexcept = 0;

    //! Tactic sources the engine needs.
    virtual TacticSources getTacticSources() const noexcept = 0;

    //! Profiling verbosity the engine was built with.
    virtual ProfilingVerbosity getProfilingVerbosity() const noexcept = 0;

    //! Create an inspector for this engine; the caller deletes it.
    virtual IEngineInspector* createEngineInspector() const noexcept = 0;

    //! Number of input and output tensors.
    virtual int32_t getNbIOTensors() const noexcept = 0;

    //! Name of I/O tensor `index` in [0, getNbIOTensors()).
    virtual char const* getIOTensorName(int32_t index) const noexcept = 0;

    //! Hardware compatibility level the engine was built with.
    virtual HardwareCompatibilityLevel getHardwareCompatibilityLevel() const noexcept = 0;

    //! Number of auxiliary streams the engine uses.
    virtual int32_t getNbAuxStreams() const noexcept = 0;

    //! Create a serialization configuration; the caller deletes it.
    virtual ISerializationConfig* createSerializationConfig() noexcept = 0;

    //! Serialize with the given options; the caller deletes the result.
    virtual IHostMemory* serializeWithConfig(ISerializationConfig& config) const noexcept = 0;

    //! \deprecated Deprecated in TensorRT 10.1; use setWeightStreamingBudgetV2().
    TRT_DEPRECATED virtual bool setWeightStreamingBudget(int64_t gpuMemoryBudget) noexcept = 0;

    //! \deprecated Deprecated in TensorRT 10.1; use getWeightStreamingBudgetV2().
    TRT_DEPRECATED virtual int64_t getWeightStreamingBudget() const noexcept = 0;

    //! \deprecated Deprecated in TensorRT 10.1; the V2 API has a minimum of 0.
    TRT_DEPRECATED virtual int64_t getMinimumWeightStreamingBudget() const noexcept = 0;

    //! Total bytes of weights that can be streamed (0 unless built with kWEIGHT_STREAMING).
    virtual int64_t getStreamableWeightsSize() const noexcept = 0;

    //! Limit the device memory used for weights (>= 0). No active contexts may exist.
    virtual bool setWeightStreamingBudgetV2(int64_t gpuMemoryBudget) noexcept = 0;

    virtual int64_t getWeightStreamingBudgetV2() const noexcept = 0;

    //! A budget chosen from the currently free device memory.
    virtual int64_t getWeightStreamingAutomaticBudget() const noexcept = 0;

    //! Extra per-context scratch memory needed by the current streaming budget.
    virtual int64_t getWeightStreamingScratchMemorySize() const noexcept = 0;

    //! Whether a tensor was marked as a debug tensor.
    virtual bool isDebugTensor(char const* name) const noexcept = 0;

    //! A bound of a shape-tensor input's values in a profile, or nullptr.
    virtual int64_t const* getProfileTensorValuesV2(
        char const* tensorName, int32_t profileIndex, OptProfileSelector select) const noexcept = 0;

    //! Query a statistic (see EngineStat).
    virtual int64_t getEngineStat(EngineStat stat) const noexcept = 0;
};

namespace v_1_0
{
//!
//! \brief Application-implemented allocator for outputs whose size is only known during enqueueV3().
//!
class IOutputAllocator : public IVersionedInterface
{
public:
    InterfaceInfo getInterfaceInfo() const noexcept override
    {
        return {"IOutputAllocator", 1, 0};
    }

    //! \deprecated Deprecated in TensorRT 10.0; override reallocateOutputAsync() instead.
    TRT_DEPRECATED virtual void* reallocateOutput(
        char const* /*tensorName*/, void* /*currentMemory*/, uint64_t /*size*/, uint64_t /*alignment*/) noexcept
    {
        return nullptr;
    }

    //! Return memory of at least `size` bytes for output tensorName (currentMemory may be reused or freed), or
    //! nullptr to fail. The default forwards to reallocateOutput().
    virtual void* reallocateOutputAsync(
        char const* tensorName, void* currentMemory, uint64_t size, uint64_t alignment, cudaStream_t /*stream*/)
    {
        KILN_IGNORE_DEPRECATED_BEGIN
        return reallocateOutput(tensorName, currentMemory, size, alignment);
        KILN_IGNORE_DEPRECATED_END
    }

    //! Report the final shape of the output (called before enqueueV3() returns).
    virtual void notifyShape(char const* tensorName, Dims const& dims) noexcept = 0;
};
} // namespace v_1_0

using IOutputAllocator = v_1_0::IOutputAllocator;

namespace v_1_0
{
//!
//! \brief Application-implemented callback receiving the values of debug tensors during execution.
//!
class IDebugListener : public IVersionedInterface
{
public:
    InterfaceInfo getInterfaceInfo() const noexcept override
    {
        return {"IDebugListener", 1, 0};
    }

    //! Called when a debug tensor with debug state on is updated; addr is only valid during the call.
    virtual bool processDebugTensor(void const* addr, TensorLocation location, DataType type, Dims const& shape,
        char const* name, cudaStream_t stream)
        = 0;

    ~IDebugListener() override = default;
};
} // namespace v_1_0

using IDebugListener = v_1_0::IDebugListener;

//!
//! \class IExecutionContext
//! \brief Per-run state for one engine: shapes, tensor addresses, profile and activation memory.
//!
//! Several contexts may use one engine concurrently; each concurrent context needs its own profile.
//!
class IExecutionContext : public INoCopy
{
public:
    virtual ~IExecutionContext() noexcept = default;

    //! Log each kernel's completion during executeV2().
    virtual void setDebugSync(bool sync) noexcept = 0;

    virtual bool getDebugSync() const noexcept = 0;

    //! Per-layer timing callback, or nullptr.
    virtual void setProfiler(IProfiler* profiler) noexcept = 0;

    virtual IProfiler* getProfiler() const noexcept = 0;

    //! The engine this context runs.
    virtual ICudaEngine const& getEngine() const noexcept = 0;

    //! Copy a name for the context.
    virtual void setName(char const* name) noexcept = 0;

    virtual char const* getName() const noexcept = 0;

    //! Supply activation memory (size unchecked).
    //! \deprecated Deprecated in TensorRT 10.1 (documentation only); use setDeviceMemoryV2().
    virtual void setDeviceMemory(void* memory) noexcept = 0;

    //! Supply activation memory of `size` bytes.
    virtual void setDeviceMemoryV2(void* memory, int64_t size) noexcept = 0;

    //! Strides of an I/O tensor in elements; Dims{-1, {}} if unknown.
    virtual Dims getTensorStrides(char const* tensorName) const noexcept = 0;

    //! Selected optimization profile.
    virtual int32_t getOptimizationProfile() const noexcept = 0;

    //! Set the runtime shape of an input.
    virtual bool setInputShape(char const* tensorName, Dims const& dims) noexcept = 0;

    //! Shape of an I/O tensor under the current input shapes (-1 where still unknown).
    virtual Dims getTensorShape(char const* tensorName) const noexcept = 0;

    //! Whether every dynamic input shape has been set.
    virtual bool allInputDimensionsSpecified() const noexcept = 0;

    //! \deprecated Deprecated in TensorRT 10.0.
    TRT_DEPRECATED virtual bool allInputShapesSpecified() const noexcept = 0;

    virtual void setErrorRecorder(IErrorRecorder* recorder) noexcept = 0;

    virtual IErrorRecorder* getErrorRecorder() const noexcept = 0;

    //! Run synchronously with one buffer per I/O tensor, indexed as ICudaEngine::getIOTensorName().
    virtual bool executeV2(void* const* bindings) noexcept = 0;

    //! Select an optimization profile; copies may be ordered on `stream`.
    virtual bool setOptimizationProfileAsync(int32_t profileIndex, cudaStream_t stream) noexcept = 0;

    //! Whether enqueue reports layer timings itself (true) or leaves it to reportToProfiler() (false).
    virtual void setEnqueueEmitsProfile(bool enqueueEmitsProfile) noexcept = 0;

    virtual bool getEnqueueEmitsProfile() const noexcept = 0;

    //! Report the timings of the last enqueue to the profiler.
    virtual bool reportToProfiler() const noexcept = 0;

    //! Bind memory to an input or output tensor (nullptr resets).
    virtual bool setTensorAddress(char const* tensorName, void* data) noexcept = 0;

    //! Address bound to an I/O tensor, or nullptr.
    virtual void const* getTensorAddress(char const* tensorName) const noexcept = 0;

    //! Bind memory to an output tensor.
    virtual bool setOutputTensorAddress(char const* tensorName, void* data) noexcept = 0;

    //! Bind read-only memory to an input tensor.
    virtual bool setInputTensorAddress(char const* tensorName, void const* data) noexcept = 0;

    //! Writable address bound to an output tensor, or nullptr.
    virtual void* getOutputTensorAddress(char const* tensorName) const noexcept = 0;

    //! Compute shapes (and shape-tensor outputs). Returns 0 on success, n > 0 if n inputs are insufficiently
    //! specified (their names are written to tensorNames, up to nbMaxNames), -1 on other errors.
    virtual int32_t inferShapes(int32_t nbMaxNames, char const** tensorNames) noexcept = 0;

    //! Recompute activation memory for the current shapes; 0 on error.
    virtual size_t updateDeviceMemorySizeForShapes() noexcept = 0;

    //! Event signalled once all inputs have been consumed (nullptr clears).
    virtual bool setInputConsumedEvent(cudaEvent_t event) noexcept = 0;

    virtual cudaEvent_t getInputConsumedEvent() const noexcept = 0;

    //! Allocator for an output with a data-dependent shape (nullptr clears).
    virtual bool setOutputAllocator(char const* tensorName, IOutputAllocator* outputAllocator) noexcept = 0;

    virtual IOutputAllocator* getOutputAllocator(char const* tensorName) const noexcept = 0;

    //! Upper bound in bytes of an output under the current profile and input shapes, or -1.
    virtual int64_t getMaxOutputSize(char const* tensorName) const noexcept = 0;

    //! Allocator for temporary storage of unpredictable size during enqueueV3() (nullptr: default).
    virtual bool setTemporaryStorageAllocator(IGpuAllocator* allocator) noexcept = 0;

    virtual IGpuAllocator* getTemporaryStorageAllocator() const noexcept = 0;

    //! Run asynchronously on `stream`.
    virtual bool enqueueV3(cudaStream_t stream) noexcept = 0;

    //! Limit of persistent L2 cache used for activations, in bytes.
    virtual void setPersistentCacheLimit(size_t size) noexcept = 0;

    virtual size_t getPersistentCacheLimit() const noexcept = 0;

    //! Verbosity of profiling markers (not above the engine's profiling verbosity).
    virtual bool setNvtxVerbosity(ProfilingVerbosity verbosity) noexcept = 0;

    virtual ProfilingVerbosity getNvtxVerbosity() const noexcept = 0;

    //! Streams to use as auxiliary streams in the next enqueueV3().
    virtual void setAuxStreams(cudaStream_t* auxStreams, int32_t nbStreams) noexcept = 0;

    //! Callback for debug tensors.
    virtual bool setDebugListener(IDebugListener* listener) noexcept = 0;

    virtual IDebugListener* getDebugListener() noexcept = 0;

    //! Turn the debug state of a debug tensor on or off.
    virtual bool setTensorDebugState(char const* name, bool flag) noexcept = 0;

    virtual bool getDebugState(char const* name) const noexcept = 0;

    //! Runtime configuration the context was created with.
    virtual IRuntimeConfig* getRuntimeConfig() const noexcept = 0;

    //! Turn the debug state of all debug tensors on or off.
    virtual bool setAllTensorsDebugState(bool flag) noexcept = 0;

    //! Turn the debug state of unfused tensors on or off.
    virtual bool setUnfusedTensorsDebugState(bool flag) noexcept = 0;

    virtual bool getUnfusedTensorsDebugState() const noexcept = 0;

    //! Attach a multi-device communicator (e.g. an NCCL communicator) used by distributed collective layers.
    virtual bool setCommunicator(void* communicator) noexcept = 0;
};

//!
//! \enum LayerInformationFormat
//! \brief Output format of IEngineInspector.
//!
enum class LayerInformationFormat : int32_t
{
    kONELINE = 0, //!< One line per layer.
    kJSON = 1,    //!< JSON.
};

template <>
constexpr inline int32_t EnumMax<LayerInformationFormat>() noexcept
{
    return 2;
}

//!
//! \class IEngineInspector
//! \brief Describes the layers of an engine, optionally resolved for the shapes of an execution context.
//!
class IEngineInspector : public INoCopy
{
public:
    virtual ~IEngineInspector() noexcept = default;

    //! Context whose shapes and formats are used (nullptr for none).
    virtual bool setExecutionContext(IExecutionContext const* context) noexcept = 0;

    virtual IExecutionContext const* getExecutionContext() const noexcept = 0;

    //! Description of one layer; valid until the next call on this inspector.
    virtual char const* getLayerInformation(int32_t layerIndex, LayerInformationFormat format) const noexcept = 0;

    //! Description of all layers; valid until the next call on this inspector.
    virtual char const* getEngineInformation(LayerInformationFormat format) const noexcept = 0;

    virtual void setErrorRecorder(IErrorRecorder* recorder) noexcept = 0;

    virtual IErrorRecorder* getErrorRecorder() const noexcept = 0;
};

} // namespace nvinfer1

//! Library entry point behind createInferRuntime(). Do not call directly.
extern "C" TENSORRTAPI void* createInferRuntime_INTERNAL(void* logger, int32_t version) noexcept;

//! Library entry point behind createInferRefitter(). Do not call directly.
extern "C" TENSORRTAPI void* createInferRefitter_INTERNAL(void* engine, void* logger, int32_t version) noexcept;

//! The global plugin registry.
extern "C" TENSORRTAPI nvinfer1::IPluginRegistry* getPluginRegistry() noexcept;

//! The global logger, used only by free functions that have no builder, runtime or refitter.
extern "C" TENSORRTAPI nvinfer1::ILogger* getLogger() noexcept;

namespace nvinfer1
{
namespace // internal linkage: objects built against different header versions do not clash
{
//! Create a runtime that logs to `logger`. Delete it when done.
inline IRuntime* createInferRuntime(ILogger& logger) noexcept
{
    return static_cast<IRuntime*>(createInferRuntime_INTERNAL(&logger, static_cast<int32_t>(NV_TENSORRT_VERSION)));
}

//! Create a refitter for a refittable engine. Delete it when done.
inline IRefitter* createInferRefitter(ICudaEngine& engine, ILogger& logger) noexcept
{
    return static_cast<IRefitter*>(
        createInferRefitter_INTERNAL(&engine, &logger, static_cast<int32_t>(NV_TENSORRT_VERSION)));
}
} // namespace

//!
//! \brief Registers a default-constructed creator T with the global registry when constructed; used through
//! REGISTER_TENSORRT_PLUGIN at namespace scope in plugin libraries. (Registering a deprecated IPluginCreator
//! this way does not warn here; deriving from IPluginCreator already does.)
//!
KILN_IGNORE_DEPRECATED_BEGIN
template <typename T>
class PluginRegistrar
{
public:
    PluginRegistrar()
    {
        getPluginRegistry()->registerCreator(instance, "");
    }

private:
    T instance{};
};
KILN_IGNORE_DEPRECATED_END

} // namespace nvinfer1

//! Register creator class `name` with the global plugin registry at static-initialization time.
#define REGISTER_TENSORRT_PLUGIN(name)                                                                                 \
    static nvinfer1::PluginRegistrar<name> pluginRegistrar##name {}

namespace nvinfer1
{
//!
//! \class ILoggerFinder
//! \brief Lets a plugin library find the logger of the engine or context that is calling it (passed to the
//! library's setLoggerFinder() entry point).
//!
class ILoggerFinder
{
public:
    //! Logger of the caller; must be called on the thread of the plugin call.
    virtual ILogger* findLogger() = 0;

protected:
    virtual ~ILoggerFinder() = default;
};

namespace v_1_0
{
//!
//! \brief Application-implemented stream-ordered allocator: override allocateAsync() and deallocateAsync().
//!
class IGpuAsyncAllocator : public IGpuAllocator
{
public:
    IGpuAsyncAllocator() = default;
    ~IGpuAsyncAllocator() override = default;

    //! Allocate `size` bytes aligned to `alignment`, ordered on `stream` (nullptr: default stream).
    void* allocateAsync(uint64_t const size, uint64_t const alignment, AllocatorFlags const flags,
        cudaStream_t /*stream*/) noexcept override = 0;

    //! Release memory, ordered on `stream`; it must not be reused before the stream reaches this point.
    bool deallocateAsync(void* const memory, cudaStream_t /*stream*/) noexcept override = 0;

    //! \deprecated Deprecated in TensorRT 10.0; forwards to allocateAsync() on the default stream.
    TRT_DEPRECATED void* allocate(uint64_t const size, uint64_t const alignment, AllocatorFlags const flags) noexcept
        override
    {
        return allocateAsync(size, alignment, flags, nullptr);
    }

    //! \deprecated Deprecated in TensorRT 10.0; forwards to deallocateAsync() on the default stream.
    TRT_DEPRECATED bool deallocate(void* const memory) noexcept override
    {
        return deallocateAsync(memory, nullptr);
    }

    InterfaceInfo getInterfaceInfo() const noexcept override
    {
        return {"IGpuAllocator", 1, 0};
    }
};

//!
//! \brief Creator (factory) of IPluginV3 plugins; registered with IPluginRegistry.
//!
class IPluginCreatorV3One : public IPluginCreatorInterface
{
public:
    InterfaceInfo getInterfaceInfo() const noexcept override
    {
        return InterfaceInfo{"PLUGIN CREATOR_V3ONE", 1, 0};
    }

    //! Create an initialized plugin; nullptr on error. With phase kRUNTIME, fc holds the fields from
    //! IPluginV3OneRuntime::getFieldsToSerialize(). Objects the library creates are deleted by the library.
    virtual IPluginV3* createPlugin(
        AsciiChar const* name, PluginFieldCollection const* fc, TensorRTPhase phase) noexcept = 0;

    //! Fields that createPlugin() understands in the build phase.
    virtual PluginFieldCollection const* getFieldNames() noexcept = 0;

    virtual AsciiChar const* getPluginName() const noexcept = 0;

    virtual AsciiChar const* getPluginVersion() const noexcept = 0;

    virtual AsciiChar const* getPluginNamespace() const noexcept = 0;

    IPluginCreatorV3One() = default;
    virtual ~IPluginCreatorV3One() = default;

protected:
    IPluginCreatorV3One(IPluginCreatorV3One const&) = default;
    IPluginCreatorV3One(IPluginCreatorV3One&&) = default;
    IPluginCreatorV3One& operator=(IPluginCreatorV3One const&) & = default;
    IPluginCreatorV3One& operator=(IPluginCreatorV3One&&) & = default;
};
} // namespace v_1_0

using IGpuAsyncAllocator = v_1_0::IGpuAsyncAllocator;
using IPluginCreatorV3One = v_1_0::IPluginCreatorV3One;

} // namespace nvinfer1

//! Major version of the loaded library (TensorRT API level).
extern "C" TENSORRTAPI int32_t getInferLibMajorVersion() noexcept;
//! Minor version of the loaded library.
extern "C" TENSORRTAPI int32_t getInferLibMinorVersion() noexcept;
//! Patch version of the loaded library.
extern "C" TENSORRTAPI int32_t getInferLibPatchVersion() noexcept;
//! Build number of the loaded library.
extern "C" TENSORRTAPI int32_t getInferLibBuildVersion() noexcept;

#endif // NV_INFER_RUNTIME_H
