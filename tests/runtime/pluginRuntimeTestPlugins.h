// Plugins for the runtime's plugin tests, written against the TensorRT API plus kiln::IPluginCpuSupport:
//  - AddCounterPlugin (IPluginV2DynamicExt, "KilnTestAddCounter" v1 in namespace "kilnTest"): y = x + bias + r,
//    where r counts the enqueue() calls made on this object (so each execution context's clone is observable);
//    it writes a pattern into its workspace and can be told to fail initialize()/enqueue() or to throw;
//  - NonZeroPlugin (IPluginV3 One*, "KilnTestNonZero" v1): indices [count, 2] (INT32, row-major (row, column)
//    pairs of the non-zero elements of a 2-D FP32 input) and the size tensor count (0-D INT32) declared with
//    declareSizeTensor(1, opt = R*C/2, upper = R*C); it can be told to report a count above its upper bound;
//  - NegatePlugin (plain IPluginV2, "KilnTestNegate" v1): y = -x; plain IPluginV2 objects are shared by contexts.
// Every plugin method call is appended to a global journal ("<plugin>#<object id>:<call>") so tests compare the
// real call order with the documented lifecycle, independently of Kiln's own tracing.
#pragma once

#include "NvInfer.h"
#include "kiln/KilnPluginCpu.h"

#include <atomic>
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace kiln::test::plugins
{

KILN_IGNORE_DEPRECATED_BEGIN

//! Global call journal and failure switches (reset by each test with reset()).
struct Control
{
    std::mutex mutex;
    std::vector<std::string> journal;
    std::atomic<int32_t> initializeResult{0};
    std::atomic<int32_t> enqueueResult{0};
    std::atomic<bool> enqueueThrows{false};
    std::atomic<int32_t> extraCount{0}; // NonZero: added to the count it reports
    std::atomic<void*> lastWorkspace{nullptr};
    std::atomic<void*> lastStream{nullptr};
    std::atomic<int32_t> nextId{1};
    std::atomic<nvinfer1::IGpuAllocator*> lastAllocator{nullptr};          // IPluginV2Ext::attachToContext
    std::atomic<nvinfer1::IPluginResourceContext*> lastResources{nullptr}; // IPluginV3OneRuntime::attachToContext
    std::vector<nvinfer1::Dims> nonZeroOutDims; // NonZero: output dims seen by onShapeChange and enqueue

    void reset()
    {
        std::lock_guard<std::mutex> lock(mutex);
        journal.clear();
        nonZeroOutDims.clear();
        initializeResult = 0;
        enqueueResult = 0;
        enqueueThrows = false;
        extraCount = 0;
        lastWorkspace = nullptr;
        lastStream = nullptr;
        lastAllocator = nullptr;
        lastResources = nullptr;
    }
    void note(std::string const& plugin, int32_t id, char const* call)
    {
        std::lock_guard<std::mutex> lock(mutex);
        journal.push_back(plugin + "#" + std::to_string(id) + ":" + call);
    }
    std::vector<std::string> calls()
    {
        std::lock_guard<std::mutex> lock(mutex);
        return journal;
    }
};

inline Control& control()
{
    static Control instance;
    return instance;
}

constexpr char const* kNAMESPACE = "kilnTest";

// ---------------------------------------------------------------------------------------------------------
// AddCounterPlugin (IPluginV2DynamicExt)
// ---------------------------------------------------------------------------------------------------------

class AddCounterPlugin final : public nvinfer1::IPluginV2DynamicExt, public kiln::IPluginCpuSupport
{
public:
    static constexpr int64_t kWORKSPACE = 64;

    explicit AddCounterPlugin(float bias)
        : mBias(bias)
        , mId(control().nextId++)
    {
    }

    char const* getPluginType() const noexcept override { return "KilnTestAddCounter"; }
    char const* getPluginVersion() const noexcept override { return "1"; }
    int32_t getNbOutputs() const noexcept override { return 1; }
    int32_t initialize() noexcept override
    {
        note("initialize");
        return control().initializeResult.load();
    }
    void terminate() noexcept override { note("terminate"); }
    size_t getSerializationSize() const noexcept override { return sizeof(float); }
    void serialize(void* buffer) const noexcept override { std::memcpy(buffer, &mBias, sizeof(float)); }
    void destroy() noexcept override
    {
        note("destroy");
        delete this;
    }
    void setPluginNamespace(char const* ns) noexcept override { mNamespace = ns == nullptr ? "" : ns; }
    char const* getPluginNamespace() const noexcept override { return mNamespace.c_str(); }
    nvinfer1::DataType getOutputDataType(int32_t, nvinfer1::DataType const* inputTypes, int32_t) const noexcept override
    {
        return inputTypes[0];
    }
    void attachToContext(cudnnContext*, cublasContext*, nvinfer1::IGpuAllocator* allocator) noexcept override
    {
        note("attachToContext");
        mAllocator = allocator;
        control().lastAllocator = allocator;
    }
    void detachFromContext() noexcept override { note("detachFromContext"); }
    nvinfer1::IPluginV2DynamicExt* clone() const noexcept override
    {
        auto* copy = new AddCounterPlugin(mBias);
        copy->mNamespace = mNamespace;
        copy->mRuns = mRuns;
        note("clone");
        return copy;
    }
    nvinfer1::DimsExprs getOutputDimensions(
        int32_t, nvinfer1::DimsExprs const* inputs, int32_t, nvinfer1::IExprBuilder&) noexcept override
    {
        return inputs[0];
    }
    bool supportsFormatCombination(
        int32_t pos, nvinfer1::PluginTensorDesc const* inOut, int32_t, int32_t) noexcept override
    {
        return inOut[pos].type == nvinfer1::DataType::kFLOAT && inOut[pos].format == nvinfer1::TensorFormat::kLINEAR;
    }
    void configurePlugin(nvinfer1::DynamicPluginTensorDesc const* in, int32_t, nvinfer1::DynamicPluginTensorDesc const*,
        int32_t) noexcept override
    {
        note("configurePlugin");
        mConfiguredDims = in[0].desc.dims;
        mConfiguredMinEqualsMax = std::memcmp(&in[0].min, &in[0].max, sizeof(nvinfer1::Dims)) == 0;
    }
    size_t getWorkspaceSize(nvinfer1::PluginTensorDesc const*, int32_t, nvinfer1::PluginTensorDesc const*,
        int32_t) const noexcept override
    {
        return kWORKSPACE;
    }
    int32_t enqueue(nvinfer1::PluginTensorDesc const* inputDesc, nvinfer1::PluginTensorDesc const*,
        void const* const* inputs, void* const* outputs, void* workspace, cudaStream_t stream) noexcept override
    {
        note("enqueue");
        control().lastWorkspace = workspace;
        control().lastStream = static_cast<void*>(stream);
        if (control().enqueueThrows)
        {
            // Deliberately throws through a noexcept method: Kiln's plugin call guard must survive it.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wterminate"
            throw std::runtime_error("AddCounter exploded");
#pragma GCC diagnostic pop
        }
        if (int32_t const rc = control().enqueueResult.load(); rc != 0)
        {
            return rc;
        }
        if (std::memcmp(&inputDesc[0].dims, &mConfiguredDims, sizeof(nvinfer1::Dims)) != 0 || !mConfiguredMinEqualsMax)
        {
            return 7; // enqueue before configurePlugin with the real dims
        }
        if (workspace != nullptr)
        {
            std::memset(workspace, 0xA5, kWORKSPACE);
        }
        int64_t n = 1;
        for (int32_t i = 0; i < inputDesc[0].dims.nbDims; ++i)
        {
            n *= inputDesc[0].dims.d[i];
        }
        auto const* x = static_cast<float const*>(inputs[0]);
        auto* y = static_cast<float*>(outputs[0]);
        float const add = mBias + static_cast<float>(mRuns);
        for (int64_t i = 0; i < n; ++i)
        {
            y[i] = x[i] + add;
        }
        ++mRuns;
        return 0;
    }

    int32_t id() const { return mId; }

private:
    void note(char const* call) const { control().note("AddCounter", mId, call); }

    float mBias;
    int32_t mId;
    int32_t mRuns{0};
    std::string mNamespace;
    nvinfer1::Dims mConfiguredDims{-1, {}};
    bool mConfiguredMinEqualsMax{false};
    nvinfer1::IGpuAllocator* mAllocator{nullptr};
};

class AddCounterCreator final : public nvinfer1::IPluginCreator
{
public:
    char const* getPluginName() const noexcept override { return "KilnTestAddCounter"; }
    char const* getPluginVersion() const noexcept override { return "1"; }
    nvinfer1::PluginFieldCollection const* getFieldNames() noexcept override { return &mFields; }
    nvinfer1::IPluginV2* createPlugin(char const*, nvinfer1::PluginFieldCollection const* fc) noexcept override
    {
        float bias = 0.0F;
        for (int32_t i = 0; fc != nullptr && i < fc->nbFields; ++i)
        {
            if (std::strcmp(fc->fields[i].name, "bias") == 0)
            {
                bias = *static_cast<float const*>(fc->fields[i].data);
            }
        }
        auto* p = new AddCounterPlugin(bias);
        p->setPluginNamespace(mNamespace.c_str());
        return p;
    }
    nvinfer1::IPluginV2* deserializePlugin(char const*, void const* data, size_t length) noexcept override
    {
        if (length != sizeof(float))
        {
            return nullptr;
        }
        float bias = 0.0F;
        std::memcpy(&bias, data, sizeof(float));
        auto* p = new AddCounterPlugin(bias);
        p->setPluginNamespace(mNamespace.c_str());
        control().note("AddCounter", p->id(), "deserializePlugin");
        return p;
    }
    void setPluginNamespace(char const* ns) noexcept override { mNamespace = ns == nullptr ? "" : ns; }
    char const* getPluginNamespace() const noexcept override { return mNamespace.c_str(); }

private:
    std::string mNamespace;
    nvinfer1::PluginFieldCollection mFields{};
};

// ---------------------------------------------------------------------------------------------------------
// NonZeroPlugin (IPluginV3)
// ---------------------------------------------------------------------------------------------------------

class NonZeroPlugin final : public nvinfer1::IPluginV3,
                           public nvinfer1::IPluginV3OneCore,
                           public nvinfer1::IPluginV3OneBuild,
                           public nvinfer1::IPluginV3OneRuntime,
                           public kiln::IPluginCpuSupport
{
public:
    NonZeroPlugin()
        : mId(control().nextId++)
    {
    }
    ~NonZeroPlugin() override { note("delete"); }

    // IPluginV3
    nvinfer1::IPluginCapability* getCapabilityInterface(nvinfer1::PluginCapabilityType type) noexcept override
    {
        switch (type)
        {
        case nvinfer1::PluginCapabilityType::kCORE: return static_cast<nvinfer1::IPluginV3OneCore*>(this);
        case nvinfer1::PluginCapabilityType::kBUILD: return static_cast<nvinfer1::IPluginV3OneBuild*>(this);
        case nvinfer1::PluginCapabilityType::kRUNTIME: return static_cast<nvinfer1::IPluginV3OneRuntime*>(this);
        }
        return nullptr;
    }
    nvinfer1::IPluginV3* clone() noexcept override
    {
        note("clone");
        return new NonZeroPlugin();
    }

    // Core
    char const* getPluginName() const noexcept override { return "KilnTestNonZero"; }
    char const* getPluginVersion() const noexcept override { return "1"; }
    char const* getPluginNamespace() const noexcept override { return kNAMESPACE; }

    // Build
    int32_t getNbOutputs() const noexcept override { return 2; }
    int32_t configurePlugin(nvinfer1::DynamicPluginTensorDesc const*, int32_t, nvinfer1::DynamicPluginTensorDesc const*,
        int32_t) noexcept override
    {
        note("configurePlugin");
        return 0;
    }
    int32_t getOutputDataTypes(nvinfer1::DataType* types, int32_t, nvinfer1::DataType const*, int32_t) const noexcept override
    {
        types[0] = nvinfer1::DataType::kINT32;
        types[1] = nvinfer1::DataType::kINT32;
        return 0;
    }
    int32_t getOutputShapes(nvinfer1::DimsExprs const* inputs, int32_t, nvinfer1::DimsExprs const*, int32_t,
        nvinfer1::DimsExprs* outputs, int32_t, nvinfer1::IExprBuilder& eb) noexcept override
    {
        auto const* upper = eb.operation(nvinfer1::DimensionOperation::kPROD, *inputs[0].d[0], *inputs[0].d[1]);
        auto const* opt = eb.operation(nvinfer1::DimensionOperation::kFLOOR_DIV, *upper, *eb.constant(2));
        auto const* count = eb.declareSizeTensor(1, *opt, *upper);
        outputs[0].nbDims = 2;
        outputs[0].d[0] = count;
        outputs[0].d[1] = eb.constant(2);
        outputs[1].nbDims = 0;
        return 0;
    }
    bool supportsFormatCombination(
        int32_t pos, nvinfer1::DynamicPluginTensorDesc const* inOut, int32_t, int32_t) noexcept override
    {
        auto const want = pos == 0 ? nvinfer1::DataType::kFLOAT : nvinfer1::DataType::kINT32;
        return inOut[pos].desc.type == want && inOut[pos].desc.format == nvinfer1::TensorFormat::kLINEAR;
    }

    // Runtime
    int32_t onShapeChange(nvinfer1::PluginTensorDesc const*, int32_t, nvinfer1::PluginTensorDesc const* out,
        int32_t nbOutputs) noexcept override
    {
        note("onShapeChange");
        recordOutDims(out, nbOutputs);
        return 0;
    }
    int32_t setTactic(int32_t tactic) noexcept override
    {
        note("setTactic");
        return tactic == 0 ? 0 : 1;
    }
    int32_t enqueue(nvinfer1::PluginTensorDesc const* inputDesc, nvinfer1::PluginTensorDesc const* outputDesc,
        void const* const* inputs, void* const* outputs, void*, cudaStream_t) noexcept override
    {
        note("enqueue");
        recordOutDims(outputDesc, 2);
        int64_t const rows = inputDesc[0].dims.d[0];
        int64_t const cols = inputDesc[0].dims.d[1];
        auto const* x = static_cast<float const*>(inputs[0]);
        auto* indices = static_cast<int32_t*>(outputs[0]);
        int32_t count = 0;
        for (int64_t r = 0; r < rows; ++r)
        {
            for (int64_t c = 0; c < cols; ++c)
            {
                if (x[r * cols + c] != 0.0F)
                {
                    indices[2 * count] = static_cast<int32_t>(r);
                    indices[2 * count + 1] = static_cast<int32_t>(c);
                    ++count;
                }
            }
        }
        *static_cast<int32_t*>(outputs[1]) = count + control().extraCount.load();
        return 0;
    }
    nvinfer1::IPluginV3* attachToContext(nvinfer1::IPluginResourceContext* context) noexcept override
    {
        note("attachToContext");
        auto* copy = new NonZeroPlugin();
        copy->mResources = context;
        control().lastResources = context;
        return copy;
    }
    nvinfer1::PluginFieldCollection const* getFieldsToSerialize() noexcept override
    {
        note("getFieldsToSerialize");
        mFields.nbFields = 1;
        mFields.fields = &mField;
        return &mFields;
    }

    nvinfer1::IPluginResourceContext* resources() const { return mResources; }

private:
    void note(char const* call) const { control().note("NonZero", mId, call); }
    void recordOutDims(nvinfer1::PluginTensorDesc const* out, int32_t nb)
    {
        std::lock_guard<std::mutex> lock(control().mutex);
        for (int32_t i = 0; i < nb; ++i)
        {
            control().nonZeroOutDims.push_back(out[i].dims);
        }
    }

    int32_t mId;
    int32_t mVersionField{1};
    nvinfer1::PluginField mField{"layout", &mVersionField, nvinfer1::PluginFieldType::kINT32, 1};
    nvinfer1::PluginFieldCollection mFields{};
    nvinfer1::IPluginResourceContext* mResources{nullptr};
};

class NonZeroCreator final : public nvinfer1::IPluginCreatorV3One
{
public:
    nvinfer1::IPluginV3* createPlugin(
        char const*, nvinfer1::PluginFieldCollection const* fc, nvinfer1::TensorRTPhase phase) noexcept override
    {
        // The serialized field must come back intact.
        if (fc == nullptr || fc->nbFields != 1 || std::strcmp(fc->fields[0].name, "layout") != 0
            || fc->fields[0].type != nvinfer1::PluginFieldType::kINT32 || fc->fields[0].length != 1
            || *static_cast<int32_t const*>(fc->fields[0].data) != 1)
        {
            return nullptr;
        }
        auto* p = new NonZeroPlugin();
        control().note("NonZero", 0, phase == nvinfer1::TensorRTPhase::kRUNTIME ? "createPlugin(kRUNTIME)"
                                                                               : "createPlugin(kBUILD)");
        return p;
    }
    nvinfer1::PluginFieldCollection const* getFieldNames() noexcept override { return &mFields; }
    char const* getPluginName() const noexcept override { return "KilnTestNonZero"; }
    char const* getPluginVersion() const noexcept override { return "1"; }
    char const* getPluginNamespace() const noexcept override { return kNAMESPACE; }

private:
    nvinfer1::PluginFieldCollection mFields{};
};

// ---------------------------------------------------------------------------------------------------------
// NegatePlugin (plain IPluginV2: one object shared by every context)
// ---------------------------------------------------------------------------------------------------------

class NegatePlugin final : public nvinfer1::IPluginV2, public kiln::IPluginCpuSupport
{
public:
    NegatePlugin()
        : mId(control().nextId++)
    {
    }
    char const* getPluginType() const noexcept override { return "KilnTestNegate"; }
    char const* getPluginVersion() const noexcept override { return "1"; }
    int32_t getNbOutputs() const noexcept override { return 1; }
    nvinfer1::Dims getOutputDimensions(int32_t, nvinfer1::Dims const* inputs, int32_t) noexcept override
    {
        return inputs[0];
    }
    bool supportsFormat(nvinfer1::DataType type, nvinfer1::PluginFormat format) const noexcept override
    {
        return type == nvinfer1::DataType::kFLOAT && format == nvinfer1::TensorFormat::kLINEAR;
    }
    void configureWithFormat(nvinfer1::Dims const* inputDims, int32_t, nvinfer1::Dims const*, int32_t,
        nvinfer1::DataType, nvinfer1::PluginFormat, int32_t) noexcept override
    {
        note("configureWithFormat");
        mDims = inputDims[0];
    }
    int32_t initialize() noexcept override
    {
        note("initialize");
        return 0;
    }
    void terminate() noexcept override { note("terminate"); }
    size_t getWorkspaceSize(int32_t) const noexcept override { return 0; }
    int32_t enqueue(int32_t batchSize, void const* const* inputs, void* const* outputs, void*, cudaStream_t) noexcept override
    {
        note("enqueue");
        int64_t n = batchSize;
        for (int32_t i = 0; i < mDims.nbDims; ++i)
        {
            n *= mDims.d[i];
        }
        auto const* x = static_cast<float const*>(inputs[0]);
        auto* y = static_cast<float*>(outputs[0]);
        for (int64_t i = 0; i < n; ++i)
        {
            y[i] = -x[i];
        }
        // Give another thread the chance to re-configure this shared object in between, if Kiln let it.
        std::this_thread::yield();
        return 0;
    }
    size_t getSerializationSize() const noexcept override { return 0; }
    void serialize(void*) const noexcept override {}
    void destroy() noexcept override
    {
        note("destroy");
        delete this;
    }
    nvinfer1::IPluginV2* clone() const noexcept override
    {
        note("clone");
        return new NegatePlugin();
    }
    void setPluginNamespace(char const*) noexcept override {}
    char const* getPluginNamespace() const noexcept override { return kNAMESPACE; }

private:
    void note(char const* call) const { control().note("Negate", mId, call); }
    int32_t mId;
    nvinfer1::Dims mDims{0, {}};
};

class NegateCreator final : public nvinfer1::IPluginCreator
{
public:
    char const* getPluginName() const noexcept override { return "KilnTestNegate"; }
    char const* getPluginVersion() const noexcept override { return "1"; }
    nvinfer1::PluginFieldCollection const* getFieldNames() noexcept override { return &mFields; }
    nvinfer1::IPluginV2* createPlugin(char const*, nvinfer1::PluginFieldCollection const*) noexcept override
    {
        return new NegatePlugin();
    }
    nvinfer1::IPluginV2* deserializePlugin(char const*, void const*, size_t) noexcept override
    {
        auto* p = new NegatePlugin();
        control().note("Negate", 0, "deserializePlugin");
        return p;
    }
    void setPluginNamespace(char const*) noexcept override {}
    char const* getPluginNamespace() const noexcept override { return kNAMESPACE; }

private:
    nvinfer1::PluginFieldCollection mFields{};
};

KILN_IGNORE_DEPRECATED_END

} // namespace kiln::test::plugins
