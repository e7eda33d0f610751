// PluginAdapter: the ONE internal view of a plugin. Every generation (IPluginV2, IPluginV2Ext, IPluginV2IOExt,
// IPluginV2DynamicExt, IPluginV3 One*) and, later, Python plugins is wrapped in an object of this interface, so the
// network, the builder passes and the runtime never switch on plugin generations. The adapter
//  - maps each phase's question to the generation's own call (e.g. configure() is configureWithFormat for V2,
//    configurePlugin(Dims..) for V2Ext, configurePlugin(PluginTensorDesc) for V2IOExt,
//    configurePlugin(DynamicPluginTensorDesc) for V2DynamicExt and V3);
//  - guards every call into plugin code (pluginCallGuard.h): a plugin that throws, even through its noexcept
//    methods, or returns an error code, becomes a Status naming the plugin, its layer and the call;
//  - traces every lifecycle call at kVERBOSE as
//    "plugin 'Bar' (version '1', IPluginV2DynamicExt) in layer 'bar': configurePlugin", and passes the plugin
//    name and call name to an optional process-wide trace sink used by the tests;
//  - owns the plugin object: its destructor calls destroy() (V2 family) or deletes the IPluginV3 — unless the
//    adapter only borrows it (objects the application passed to addPluginV2/addPluginV3).
#pragma once

#include "NvInferRuntime.h"
#include "core/logging.h"
#include "core/shapeExpr.h"
#include "core/status.h"
#include "core/attributes.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace kiln
{

class IPluginCpuSupport;
class PluginRegistry;

//! Plugin generations. The values of the V2 family equal nvinfer1::PluginVersion (top byte of the plugin's
//! getTensorRTVersion()); they are stored in engine files.
enum class PluginGeneration : int32_t
{
    kV2 = 0,
    kV2_EXT = 1,
    kV2_IOEXT = 2,
    kV2_DYNAMIC_EXT = 3,
    kV3_ONE = 16,
};

//! "IPluginV2", "IPluginV2Ext", "IPluginV2IOExt", "IPluginV2DynamicExt", "IPluginV3".
char const* pluginGenerationName(PluginGeneration generation) noexcept;

//! Whether the adapter destroys the plugin object when it is destroyed.
enum class PluginOwnership : int32_t
{
    kOWNED = 0,    //!< Created by Kiln (clone, deserializePlugin, createPlugin): destroyed with the adapter.
    kBORROWED = 1, //!< The application's object (addPluginV2/addPluginV3): never destroyed by Kiln.
};

//! A declared size tensor: plugin output `output` is a 0-D INT32/INT64 tensor whose value is `symbol`, a
//! SymbolKind::kDATA_DEPENDENT symbol of the ShapeGraph, with the plugin's opt and upper-bound expressions.
struct PluginSizeTensor
{
    int32_t output{-1};
    ExprId symbol{kNO_EXPR}; //!< the kSYMBOL expression standing for the value
    ExprId opt{kNO_EXPR};
    ExprId upper{kNO_EXPR};
};

//! Result of symbolic shape inference.
struct PluginShapes
{
    std::vector<ShapeExpr> outputs;           //!< one per output
    std::vector<PluginSizeTensor> sizeTensors; //!< outputs declared with IExprBuilder::declareSizeTensor
};

//! Called with the name of every lifecycle method the adapter invokes (e.g. "clone", "configurePlugin").
using PluginTraceSink = std::function<void(std::string const& plugin, std::string const& call)>;

class PluginAdapter
{
public:
    virtual ~PluginAdapter() = default;
    PluginAdapter(PluginAdapter const&) = delete;
    PluginAdapter& operator=(PluginAdapter const&) = delete;

    // ---- Creation ----------------------------------------------------------------------------------------------

    //! Wrap an IPluginV2-family object; the generation comes from getTensorRTVersion()'s top byte. Fails for
    //! nullptr or an unknown generation. The logger must outlive the adapter. When wrapping a kOWNED object of
    //! a known generation fails (e.g. getPluginType() returns nullptr), the object is destroyed.
    static StatusOr<std::unique_ptr<PluginAdapter>> wrapV2(
        nvinfer1::IPluginV2* plugin, PluginOwnership ownership, Logger const& logger);
    //! Wrap an IPluginV3 object. `phase` says which capabilities must exist: kBUILD needs kCORE, kBUILD and
    //! kRUNTIME; kRUNTIME needs kCORE and kRUNTIME. Fails naming the missing capability (a kOWNED object is
    //! then deleted).
    static StatusOr<std::unique_ptr<PluginAdapter>> wrapV3(nvinfer1::IPluginV3* plugin, PluginOwnership ownership,
        nvinfer1::TensorRTPhase phase, Logger const& logger);

    //! A new owned adapter over plugin->clone(); fails (naming the plugin) when clone returns nullptr or throws.
    virtual StatusOr<std::unique_ptr<PluginAdapter>> clone() const = 0;

    // ---- Identity ----------------------------------------------------------------------------------------------

    std::string const& name() const { return mName; }
    std::string const& version() const { return mVersion; }
    std::string const& pluginNamespace() const { return mNamespace; }
    PluginGeneration generation() const { return mGeneration; }
    //! Name of the network layer that holds the plugin ("" until set).
    std::string const& layerName() const { return mLayerName; }
    void setLayerName(std::string name)
    {
        mLayerName = std::move(name);
        updateLabel();
    }
    //! "plugin 'Bar' (version '1', namespace 'ns', IPluginV2DynamicExt) in layer 'bar0'", used in every message.
    std::string label() const;
    //! True when the plugin opted into the CPU backend (kiln/KilnPluginCpu.h) and supportsCpu() returned true.
    virtual bool supportsCpu() const = 0;
    //! How the plugin's generation opts into the CPU backend, for the builder's error when it has not.
    virtual std::string cpuOptInAdvice() const = 0;
    //! Set by whoever created the plugin through its creator: the creator declared the CPU opt-in
    //! (kiln::kPLUGIN_CPU_SUPPORT_FIELD; IPluginV2 family). Clones keep it.
    void setCreatorDeclaresCpu(bool declared) { mCreatorDeclaresCpu = declared; }
    bool creatorDeclaresCpu() const { return mCreatorDeclaresCpu; }
    //! The wrapped object, for the Python bindings and the contract checker (IPluginV2* or IPluginV3*).
    virtual void* object() const = 0;

    // ---- Build phase -------------------------------------------------------------------------------------------

    virtual StatusOr<int32_t> nbOutputs() const = 0;
    //! Output types for the given input types (getOutputDataType(s)). Fails when the plugin returns an error.
    virtual StatusOr<std::vector<nvinfer1::DataType>> outputTypes(
        std::vector<nvinfer1::DataType> const& inputTypes) const = 0;
    //! Symbolic output shapes from symbolic input shapes. `shapeInputs` holds, for a V3 plugin, the values of its
    //! shape inputs (one DimExpr per element of each 1-D shape tensor); empty for other generations. Size tensors
    //! declared by the plugin become new kDATA_DEPENDENT symbols in `graph`. Generations without dynamic shapes
    //! (V2, V2Ext, V2IOExt) require every input extent to be a build-time constant and fail otherwise.
    virtual StatusOr<PluginShapes> outputShapes(ShapeGraph& graph, std::vector<ShapeExpr> const& inputs,
        std::vector<std::vector<DimExpr>> const& shapeInputs) = 0;
    //! Whether inOut[pos] is acceptable given inOut[0..pos-1] (V2/V2Ext: supportsFormat(type, format) and one
    //! type/format for all I/O as TensorRT requires).
    virtual StatusOr<bool> supportsFormatCombination(
        int32_t pos, std::vector<nvinfer1::PluginTensorDesc> const& inOut, int32_t nbInputs) = 0;
    //! The same question with the profile's min/opt/max (V3 plugins see them; the other generations get the
    //! PluginTensorDesc part). The default forwards to supportsFormatCombination above.
    virtual StatusOr<bool> supportsFormatCombinationDynamic(
        int32_t pos, std::vector<nvinfer1::DynamicPluginTensorDesc> const& inOut, int32_t nbInputs);
    //! The largest number of format combinations the builder may try (V3 getFormatCombinationLimit, else 100).
    virtual int32_t formatCombinationLimit() = 0;
    //! Configure with the chosen types/formats. At build time desc.dims has -1 for runtime extents and
    //! min/opt/max give the profile; at run time desc.dims holds real extents and min == opt == max == dims.
    virtual Status configure(std::vector<nvinfer1::DynamicPluginTensorDesc> const& in,
        std::vector<nvinfer1::DynamicPluginTensorDesc> const& out) = 0;
    //! Workspace bytes for the given configuration (V2 family: getWorkspaceSize(maxBatchSize = 1)).
    virtual StatusOr<size_t> workspaceSize(std::vector<nvinfer1::DynamicPluginTensorDesc> const& in,
        std::vector<nvinfer1::DynamicPluginTensorDesc> const& out) const = 0;
    //! Tactics to time (V3 getNbTactics/getValidTactics); empty when the plugin has only its default.
    virtual StatusOr<std::vector<int32_t>> validTactics() = 0;
    //! Select a tactic (V3 setTactic; only tactic 0 is valid for other generations).
    virtual Status setTactic(int32_t tactic) = 0;
    //! Input that output `output` aliases (V3 IPluginV3OneBuildV2::getAliasedInput), or -1.
    virtual int32_t aliasedInput(int32_t output) = 0;
    //! V3 getTimingCacheID / getMetadataString ("" when absent).
    virtual std::string timingCacheId() = 0;
    virtual std::string metadata() = 0;

    // ---- Serialization -----------------------------------------------------------------------------------------

    //! Engine bytes of the plugin: V2 family getSerializationSize()+serialize(); V3 getFieldsToSerialize()
    //! encoded with encodePluginFields().
    virtual StatusOr<std::string> serialize() = 0;

    // ---- Runtime phase -----------------------------------------------------------------------------------------

    //! V2 family initialize()/terminate() (no-ops for V3). terminate() is also called by the destructor if
    //! initialize() succeeded and terminate() was not called.
    virtual Status initialize() = 0;
    virtual void terminate() = 0;
    //! The execution context's own plugin: V3 attachToContext(resources) (a clone the adapter owns); V2Ext and
    //! later clone() + attachToContext(nullptr, nullptr, allocator); plain V2 is shared at engine level, so the
    //! result borrows this object. detach (detachFromContext) happens in the returned adapter's destructor.
    virtual StatusOr<std::unique_ptr<PluginAdapter>> attachToContext(nvinfer1::IPluginResourceContext& resources) = 0;
    //! Real shapes of this run (V3 onShapeChange; the V2 family is re-configured through configure()).
    virtual Status onShapeChange(std::vector<nvinfer1::PluginTensorDesc> const& in,
        std::vector<nvinfer1::PluginTensorDesc> const& out) = 0;
    //! Run. A non-zero return code or an exception is an error naming the plugin and the code.
    virtual Status enqueue(std::vector<nvinfer1::PluginTensorDesc> const& inDesc,
        std::vector<nvinfer1::PluginTensorDesc> const& outDesc, void const* const* inputs, void* const* outputs,
        void* workspace, cudaStream_t stream) = 0;

    // ---- Tracing -----------------------------------------------------------------------------------------------

    //! Process-wide trace sink (tests); nullptr to remove. Each call is also logged at kVERBOSE.
    static void setTraceSink(PluginTraceSink sink);

protected:
    PluginAdapter(PluginGeneration generation, std::string name, std::string version, std::string pluginNamespace,
        Logger const& logger);
    //! Log "<label>: <call>" at kVERBOSE and feed the trace sink.
    void trace(char const* call) const;
    //! Ask the plugin's CPU opt-in mix-in (nullptr: the plugin has none) whether enqueue runs on the CPU; a
    //! throwing supportsCpu() is logged and counts as no.
    bool askCpuSupport(IPluginCpuSupport const* cpu) const;
    Logger const& logger() const { return mLogger; }

private:
    void updateLabel();

    bool mCreatorDeclaresCpu{false};

    PluginGeneration mGeneration;
    std::string mName;
    std::string mVersion;
    std::string mNamespace;
    std::string mLayerName;
    std::string mLabel; //!< cached label()
    Logger const& mLogger;
};

// ---- Engine records ------------------------------------------------------------------------------------------

//! What an engine stores for a plugin node (in PlanNode::attrs, keys "plugin.*"), enough to find its creator
//! again and recreate the plugin.
struct PluginRecord
{
    std::string name;
    std::string version;
    std::string pluginNamespace;
    PluginGeneration generation{PluginGeneration::kV2_DYNAMIC_EXT};
    std::string data;             //!< PluginAdapter::serialize()
    int32_t tactic{0};            //!< chosen tactic (0: default)
    std::vector<int64_t> aliases; //!< per output: aliased input or -1
};

//! Store/read a record in/from node attributes ("plugin.name", "plugin.version", "plugin.namespace",
//! "plugin.generation", "plugin.data", "plugin.tactic", "plugin.aliases").
void storePluginRecord(PluginRecord const& record, Attributes& attrs);
StatusOr<PluginRecord> loadPluginRecord(Attributes const& attrs);

//! Recreate the plugin of `record` through `registry` (with its parent search): IPluginCreator::deserializePlugin
//! for the V2 family, IPluginCreatorV3One::createPlugin(kRUNTIME) with the decoded fields for V3. A missing
//! creator fails with a message naming the plugin, version and namespace, the registries searched and the
//! closest registered creators; a creator returning nullptr or the wrong generation fails naming the creator.
StatusOr<std::unique_ptr<PluginAdapter>> deserializePlugin(PluginRegistry& registry, PluginRecord const& record,
    std::string const& layerName, Logger const& logger);

//! Encode a PluginFieldCollection (names, types, lengths and data) as bytes, and decode it again. The decoded
//! collection owns its storage.
std::string encodePluginFields(nvinfer1::PluginFieldCollection const& fields);
//! Check a collection before encoding it (nbFields >= 0, fields non-null when nbFields > 0, each length >= 0,
//! data non-null when length > 0, a known PluginFieldType); `who` names the plugin in the message.
Status validatePluginFields(nvinfer1::PluginFieldCollection const& fields, std::string const& who);
//! Bytes taken by `length` elements of `type` (kINT4/kFP4: (length + 1) / 2); -1 for an unknown type.
int64_t pluginFieldByteSize(nvinfer1::PluginFieldType type, int64_t length);
class DecodedPluginFields
{
public:
    nvinfer1::PluginFieldCollection const& collection() const { return mCollection; }

private:
    friend StatusOr<std::unique_ptr<DecodedPluginFields>> decodePluginFields(std::string const& bytes);
    std::vector<std::string> mNames;
    std::vector<std::vector<uint8_t>> mData;
    std::vector<nvinfer1::PluginField> mFields;
    nvinfer1::PluginFieldCollection mCollection{};
};
StatusOr<std::unique_ptr<DecodedPluginFields>> decodePluginFields(std::string const& bytes);

} // namespace kiln
