// Small plugins of every generation for the PluginAdapter tests. Each one records the calls it receives in a
// shared CallLog (independently of the adapter's trace sink) and can be told to misbehave: throw from a method,
// return an error code, return nullptr from clone, or return bad shapes/types. All of them run on host memory
// (kiln::IPluginCpuSupport) and compute out = in * scale (+ a copy or a concatenation, per plugin).
#pragma once

#include "NvInfer.h"
#include "kiln/KilnPluginCpu.h"

#include <atomic>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

KILN_IGNORE_DEPRECATED_BEGIN

namespace kiln::adapter_test
{

//! What the plugins were asked, and how they should misbehave (shared by an object and its clones).
struct Behaviour
{
    std::string throwIn;           //!< method name that throws std::runtime_error("boom in <name>")
    std::string throwUnknownIn;    //!< method name that throws an int
    std::map<std::string, int32_t> returnCode; //!< method -> non-zero return code
    bool cloneReturnsNull{false};
    int32_t nbOutputs{-100};       //!< overrides getNbOutputs when != -100
    int32_t outputNbDims{-100};    //!< overrides the rank of output 0 when != -100
    int64_t negativeExtent{0};     //!< when < 0, written into output 0 dimension 0
    int32_t badType{-100};         //!< overrides the type of output 0 when != -100
    size_t workspace{64};
    bool cpu{true};                //!< IPluginCpuSupport::supportsCpu result
    std::mutex mutex;
    std::vector<std::string> calls;
    std::atomic<int32_t> liveObjects{0}; //!< objects alive (constructed and destroyed on many threads at once)

    void record(std::string const& call)
    {
        std::lock_guard<std::mutex> lock(mutex);
        calls.push_back(call);
    }
    //! Throws or returns the configured code for `call`.
    int32_t act(char const* call)
    {
        record(call);
        if (throwIn == call)
        {
            throw std::runtime_error(std::string("boom in ") + call);
        }
        if (throwUnknownIn == call)
        {
            throw 42;
        }
        auto it = returnCode.find(call);
        return it == returnCode.end() ? 0 : it->second;
    }
    bool called(std::string const& call)
    {
        std::lock_guard<std::mutex> lock(mutex);
        for (auto const& c : calls)
        {
            if (c == call)
            {
                return true;
            }
        }
        return false;
    }
};

inline float const* asFloats(void const* p)
{
    return static_cast<float const*>(p);
}

inline int64_t volumeOf(nvinfer1::Dims const& d)
{
    int64_t v = 1;
    for (int32_t i = 0; i < d.nbDims; ++i)
    {
        v *= d.d[i];
    }
    return v;
}

// ---------------------------------------------------------------------------------------------------------------
// IPluginV2DynamicExt: two inputs a [n, k], b [m, k] (FP32 linear); out0 = concat(a, b) * scale along dim 0
// ([n + m, k]); out1 = a * scale. Workspace: Behaviour::workspace bytes.
// ---------------------------------------------------------------------------------------------------------------
class DynPlugin : public nvinfer1::IPluginV2DynamicExt, public kiln::IPluginCpuSupport
{
public:
    DynPlugin(std::shared_ptr<Behaviour> b, float scale)
        : mB(std::move(b))
        , mScale(scale)
    {
        ++mB->liveObjects;
    }
    ~DynPlugin() override
    {
        --mB->liveObjects;
    }

    bool supportsCpu() const noexcept override
    {
        mB->record("supportsCpu");
        return mB->cpu;
    }

    nvinfer1::IPluginV2DynamicExt* clone() const noexcept override
    {
        mB->act("clone");
        if (mB->cloneReturnsNull)
        {
            return nullptr;
        }
        auto* p = new DynPlugin(mB, mScale);
        p->setPluginNamespace(mNamespace.c_str());
        return p;
    }
    nvinfer1::DimsExprs getOutputDimensions(int32_t outputIndex, nvinfer1::DimsExprs const* inputs, int32_t nbInputs,
        nvinfer1::IExprBuilder& exprBuilder) noexcept override
    {
        mB->act("getOutputDimensions");
        nvinfer1::DimsExprs out = inputs[0];
        if (outputIndex == 0 && nbInputs == 2)
        {
            out.d[0] = exprBuilder.operation(nvinfer1::DimensionOperation::kSUM, *inputs[0].d[0], *inputs[1].d[0]);
            if (mB->outputNbDims != -100)
            {
                out.nbDims = mB->outputNbDims;
            }
            if (mB->negativeExtent < 0)
            {
                out.d[0] = exprBuilder.constant(mB->negativeExtent);
            }
        }
        return out;
    }
    bool supportsFormatCombination(
        int32_t pos, nvinfer1::PluginTensorDesc const* inOut, int32_t, int32_t) noexcept override
    {
        mB->act("supportsFormatCombination");
        return inOut[pos].type == nvinfer1::DataType::kFLOAT && inOut[pos].format == nvinfer1::TensorFormat::kLINEAR;
    }
    void configurePlugin(nvinfer1::DynamicPluginTensorDesc const* in, int32_t nbInputs,
        nvinfer1::DynamicPluginTensorDesc const*, int32_t) noexcept override
    {
        mB->act("configurePlugin");
        mConfiguredInputs = nbInputs;
        mConfiguredK = nbInputs > 0 ? in[0].desc.dims.d[1] : -1;
    }
    size_t getWorkspaceSize(nvinfer1::PluginTensorDesc const*, int32_t, nvinfer1::PluginTensorDesc const*,
        int32_t) const noexcept override
    {
        mB->record("getWorkspaceSize");
        return mB->workspace;
    }
    int32_t enqueue(nvinfer1::PluginTensorDesc const* inputDesc, nvinfer1::PluginTensorDesc const*,
        void const* const* inputs, void* const* outputs, void* workspace, cudaStream_t) noexcept override
    {
        int32_t rc = mB->act("enqueue");
        if (rc != 0)
        {
            return rc;
        }
        int64_t const na = volumeOf(inputDesc[0].dims);
        int64_t const nb = volumeOf(inputDesc[1].dims);
        auto* out0 = static_cast<float*>(outputs[0]);
        auto* out1 = static_cast<float*>(outputs[1]);
        std::memset(workspace, 0x5A, mB->workspace);
        for (int64_t i = 0; i < na; ++i)
        {
            out0[i] = asFloats(inputs[0])[i] * mScale;
            out1[i] = asFloats(inputs[0])[i] * mScale;
        }
        for (int64_t i = 0; i < nb; ++i)
        {
            out0[na + i] = asFloats(inputs[1])[i] * mScale;
        }
        return 0;
    }
    nvinfer1::DataType getOutputDataType(int32_t index, nvinfer1::DataType const* inputTypes, int32_t) const noexcept override
    {
        mB->act("getOutputDataType");
        if (index == 0 && mB->badType != -100)
        {
            return static_cast<nvinfer1::DataType>(mB->badType);
        }
        return inputTypes[0];
    }
    void attachToContext(cudnnContext*, cublasContext*, nvinfer1::IGpuAllocator*) noexcept override
    {
        mB->act("attachToContext");
    }
    void detachFromContext() noexcept override
    {
        mB->act("detachFromContext");
    }
    char const* getPluginType() const noexcept override
    {
        return "Dyn";
    }
    char const* getPluginVersion() const noexcept override
    {
        return "1";
    }
    int32_t getNbOutputs() const noexcept override
    {
        mB->record("getNbOutputs");
        return mB->nbOutputs != -100 ? mB->nbOutputs : 2;
    }
    int32_t initialize() noexcept override
    {
        return mB->act("initialize");
    }
    void terminate() noexcept override
    {
        mB->act("terminate");
    }
    size_t getSerializationSize() const noexcept override
    {
        mB->record("getSerializationSize");
        return sizeof(float);
    }
    void serialize(void* buffer) const noexcept override
    {
        mB->act("serialize");
        std::memcpy(buffer, &mScale, sizeof(float));
    }
    void destroy() noexcept override
    {
        mB->record("destroy");
        delete this;
    }
    void setPluginNamespace(char const* ns) noexcept override
    {
        mNamespace = ns;
    }
    char const* getPluginNamespace() const noexcept override
    {
        return mNamespace.c_str();
    }

    float scale() const
    {
        return mScale;
    }
    int32_t configuredInputs() const
    {
        return mConfiguredInputs;
    }

private:
    std::shared_ptr<Behaviour> mB;
    float mScale;
    std::string mNamespace;
    int32_t mConfiguredInputs{-1};
    int64_t mConfiguredK{-1};
};

//! Creator of DynPlugin: deserializes the scale.
class DynCreator : public nvinfer1::IPluginCreator
{
public:
    explicit DynCreator(std::shared_ptr<Behaviour> b)
        : mB(std::move(b))
    {
    }
    char const* getPluginName() const noexcept override
    {
        return "Dyn";
    }
    char const* getPluginVersion() const noexcept override
    {
        return "1";
    }
    nvinfer1::PluginFieldCollection const* getFieldNames() noexcept override
    {
        return &mFields;
    }
    nvinfer1::IPluginV2* createPlugin(char const*, nvinfer1::PluginFieldCollection const*) noexcept override
    {
        return new DynPlugin(mB, 1.0F);
    }
    nvinfer1::IPluginV2* deserializePlugin(char const*, void const* data, size_t length) noexcept override
    {
        mB->record("creator.deserializePlugin");
        if (length != sizeof(float))
        {
            return nullptr;
        }
        float scale = 0.0F;
        std::memcpy(&scale, data, sizeof(float));
        return new DynPlugin(mB, scale);
    }
    void setPluginNamespace(char const* ns) noexcept override
    {
        mNamespace = ns;
    }
    char const* getPluginNamespace() const noexcept override
    {
        return mNamespace.c_str();
    }

private:
    std::shared_ptr<Behaviour> mB;
    std::string mNamespace;
    nvinfer1::PluginFieldCollection mFields{};
};

// ---------------------------------------------------------------------------------------------------------------
// IPluginV3 (One*): one FP32 input x [n, k]. Normal mode: out0 = x * scale, same shape; two custom tactics
// {1, 2}. Size-tensor mode ("nonzero"): out0 = 0-D INT32 count of non-zero elements of x, out1 = [count] INT32
// indices of the non-zero elements (upper bound n * k, opt n * k / 2). Fields: "scale" (FP32), "nonzero" (INT32).
// ---------------------------------------------------------------------------------------------------------------
class V3Plugin : public nvinfer1::IPluginV3,
                 public nvinfer1::IPluginV3OneCore,
                 public nvinfer1::IPluginV3OneBuildV2,
                 public nvinfer1::IPluginV3OneRuntime,
                 public kiln::IPluginCpuSupport
{
public:
    V3Plugin(std::shared_ptr<Behaviour> b, float scale, bool nonzero)
        : mB(std::move(b))
        , mScale(scale)
        , mNonzero(nonzero ? 1 : 0)
    {
        ++mB->liveObjects;
        mFieldList[0] = nvinfer1::PluginField("scale", &mScale, nvinfer1::PluginFieldType::kFLOAT32, 1);
        mFieldList[1] = nvinfer1::PluginField("nonzero", &mNonzero, nvinfer1::PluginFieldType::kINT32, 1);
        mFields.nbFields = 2;
        mFields.fields = mFieldList;
    }
    ~V3Plugin() override
    {
        mB->record("delete");
        --mB->liveObjects;
    }

    bool supportsCpu() const noexcept override
    {
        mB->record("supportsCpu");
        return mB->cpu;
    }

    // IPluginV3
    nvinfer1::IPluginCapability* getCapabilityInterface(nvinfer1::PluginCapabilityType type) noexcept override
    {
        if (missing == type)
        {
            return nullptr;
        }
        switch (type)
        {
        case nvinfer1::PluginCapabilityType::kCORE: return static_cast<nvinfer1::IPluginV3OneCore*>(this);
        case nvinfer1::PluginCapabilityType::kBUILD: return static_cast<nvinfer1::IPluginV3OneBuildV2*>(this);
        case nvinfer1::PluginCapabilityType::kRUNTIME: return static_cast<nvinfer1::IPluginV3OneRuntime*>(this);
        }
        return nullptr;
    }
    nvinfer1::IPluginV3* clone() noexcept override
    {
        mB->act("clone");
        if (mB->cloneReturnsNull)
        {
            return nullptr;
        }
        auto* p = new V3Plugin(mB, mScale, mNonzero != 0);
        p->mTactic = mTactic;
        return p;
    }

    // IPluginV3OneCore
    char const* getPluginName() const noexcept override
    {
        return "V3Toy";
    }
    char const* getPluginVersion() const noexcept override
    {
        return "2";
    }
    char const* getPluginNamespace() const noexcept override
    {
        return "test";
    }

    // IPluginV3OneBuild
    int32_t configurePlugin(nvinfer1::DynamicPluginTensorDesc const*, int32_t, nvinfer1::DynamicPluginTensorDesc const*,
        int32_t) noexcept override
    {
        return mB->act("configurePlugin");
    }
    int32_t getOutputDataTypes(nvinfer1::DataType* outputTypes, int32_t nbOutputs, nvinfer1::DataType const* inputTypes,
        int32_t) const noexcept override
    {
        int32_t rc = mB->act("getOutputDataTypes");
        if (mNonzero != 0)
        {
            for (int32_t i = 0; i < nbOutputs; ++i)
            {
                outputTypes[i] = nvinfer1::DataType::kINT32;
            }
        }
        else
        {
            outputTypes[0] = inputTypes[0];
        }
        if (mB->badType != -100)
        {
            outputTypes[0] = static_cast<nvinfer1::DataType>(mB->badType);
        }
        return rc;
    }
    int32_t getOutputShapes(nvinfer1::DimsExprs const* inputs, int32_t, nvinfer1::DimsExprs const* shapeInputs,
        int32_t nbShapeInputs, nvinfer1::DimsExprs* outputs, int32_t, nvinfer1::IExprBuilder& exprBuilder) noexcept override
    {
        int32_t rc = mB->act("getOutputShapes");
        lastShapeInputs = nbShapeInputs > 0 ? shapeInputs[0].nbDims : -1;
        if (mNonzero != 0)
        {
            auto const* total
                = exprBuilder.operation(nvinfer1::DimensionOperation::kPROD, *inputs[0].d[0], *inputs[0].d[1]);
            auto const* opt = exprBuilder.operation(
                nvinfer1::DimensionOperation::kFLOOR_DIV, *total, *exprBuilder.constant(2));
            auto const* size = exprBuilder.declareSizeTensor(sizeTensorOutput, *opt, *total);
            outputs[0].nbDims = sizeTensorRank;
            outputs[0].d[0] = size;
            outputs[1].nbDims = 1;
            outputs[1].d[0] = size;
        }
        else
        {
            outputs[0] = inputs[0];
            if (nbShapeInputs > 0)
            {
                // The shape input's values replace the output shape.
                outputs[0] = shapeInputs[0];
            }
            if (mB->outputNbDims != -100)
            {
                outputs[0].nbDims = mB->outputNbDims;
            }
            if (useForeignExpr != nullptr)
            {
                outputs[0].d[0] = useForeignExpr;
            }
        }
        return rc;
    }
    bool supportsFormatCombination(
        int32_t pos, nvinfer1::DynamicPluginTensorDesc const* inOut, int32_t nbInputs, int32_t) noexcept override
    {
        mB->act("supportsFormatCombination");
        lastMax = inOut[pos].max;
        nvinfer1::DataType const want
            = (mNonzero != 0 && pos >= nbInputs) ? nvinfer1::DataType::kINT32 : nvinfer1::DataType::kFLOAT;
        return inOut[pos].desc.type == want && inOut[pos].desc.format == nvinfer1::TensorFormat::kLINEAR;
    }
    int32_t getNbOutputs() const noexcept override
    {
        mB->record("getNbOutputs");
        return mB->nbOutputs != -100 ? mB->nbOutputs : (mNonzero != 0 ? 2 : 1);
    }
    size_t getWorkspaceSize(nvinfer1::DynamicPluginTensorDesc const*, int32_t, nvinfer1::DynamicPluginTensorDesc const*,
        int32_t) const noexcept override
    {
        mB->record("getWorkspaceSize");
        return mB->workspace;
    }
    int32_t getValidTactics(int32_t* tactics, int32_t nbTactics) noexcept override
    {
        int32_t rc = mB->act("getValidTactics");
        for (int32_t i = 0; i < nbTactics; ++i)
        {
            tactics[i] = tacticList[static_cast<size_t>(i)];
        }
        return rc;
    }
    int32_t getNbTactics() noexcept override
    {
        mB->act("getNbTactics");
        return static_cast<int32_t>(tacticList.size());
    }
    char const* getTimingCacheID() noexcept override
    {
        return "v3toy-cache";
    }
    char const* getMetadataString() noexcept override
    {
        return "scale=2";
    }
    int32_t getAliasedInput(int32_t outputIndex) noexcept override
    {
        mB->record("getAliasedInput");
        return outputIndex == 0 && aliasOutput0 ? 0 : -1;
    }

    // IPluginV3OneRuntime
    int32_t setTactic(int32_t tactic) noexcept override
    {
        mTactic = tactic;
        return mB->act("setTactic");
    }
    int32_t onShapeChange(nvinfer1::PluginTensorDesc const*, int32_t, nvinfer1::PluginTensorDesc const*,
        int32_t) noexcept override
    {
        return mB->act("onShapeChange");
    }
    int32_t enqueue(nvinfer1::PluginTensorDesc const* inputDesc, nvinfer1::PluginTensorDesc const*,
        void const* const* inputs, void* const* outputs, void*, cudaStream_t) noexcept override
    {
        int32_t rc = mB->act("enqueue");
        if (rc != 0)
        {
            return rc;
        }
        int64_t const n = volumeOf(inputDesc[0].dims);
        auto const* x = asFloats(inputs[0]);
        if (mNonzero != 0)
        {
            int32_t count = 0;
            auto* indices = static_cast<int32_t*>(outputs[1]);
            for (int64_t i = 0; i < n; ++i)
            {
                if (x[i] != 0.0F)
                {
                    indices[count++] = static_cast<int32_t>(i);
                }
            }
            *static_cast<int32_t*>(outputs[0]) = count;
            return 0;
        }
        auto* y = static_cast<float*>(outputs[0]);
        for (int64_t i = 0; i < n; ++i)
        {
            y[i] = x[i] * mScale + static_cast<float>(mTactic);
        }
        return 0;
    }
    nvinfer1::IPluginV3* attachToContext(nvinfer1::IPluginResourceContext*) noexcept override
    {
        mB->act("attachToContext");
        return clone();
    }
    nvinfer1::PluginFieldCollection const* getFieldsToSerialize() noexcept override
    {
        mB->act("getFieldsToSerialize");
        return nullFields ? nullptr : &mFields;
    }

    int32_t tactic() const
    {
        return mTactic;
    }

    // Test knobs (per object).
    nvinfer1::PluginCapabilityType missing{static_cast<nvinfer1::PluginCapabilityType>(-1)};
    int32_t sizeTensorOutput{0};
    int32_t sizeTensorRank{0};
    bool aliasOutput0{false};
    bool nullFields{false};
    std::vector<int32_t> tacticList{1, 2};
    nvinfer1::IDimensionExpr const* useForeignExpr{nullptr};
    int32_t lastShapeInputs{-1};
    nvinfer1::Dims lastMax{};

private:
    std::shared_ptr<Behaviour> mB;
    float mScale;
    int32_t mNonzero;
    int32_t mTactic{0};
    nvinfer1::PluginField mFieldList[2];
    nvinfer1::PluginFieldCollection mFields{};
};

//! Creator of V3Plugin: reads "scale" and "nonzero".
class V3Creator : public nvinfer1::IPluginCreatorV3One
{
public:
    explicit V3Creator(std::shared_ptr<Behaviour> b)
        : mB(std::move(b))
    {
    }
    nvinfer1::IPluginV3* createPlugin(
        char const*, nvinfer1::PluginFieldCollection const* fc, nvinfer1::TensorRTPhase phase) noexcept override
    {
        mB->record(phase == nvinfer1::TensorRTPhase::kRUNTIME ? "creator.createPlugin(kRUNTIME)"
                                                              : "creator.createPlugin(kBUILD)");
        float scale = 1.0F;
        bool nonzero = false;
        for (int32_t i = 0; fc != nullptr && i < fc->nbFields; ++i)
        {
            std::string const name = fc->fields[i].name;
            if (name == "scale" && fc->fields[i].type == nvinfer1::PluginFieldType::kFLOAT32)
            {
                scale = *static_cast<float const*>(fc->fields[i].data);
            }
            if (name == "nonzero" && fc->fields[i].type == nvinfer1::PluginFieldType::kINT32)
            {
                nonzero = *static_cast<int32_t const*>(fc->fields[i].data) != 0;
            }
        }
        return new V3Plugin(mB, scale, nonzero);
    }
    nvinfer1::PluginFieldCollection const* getFieldNames() noexcept override
    {
        return &mFields;
    }
    char const* getPluginName() const noexcept override
    {
        return "V3Toy";
    }
    char const* getPluginVersion() const noexcept override
    {
        return "2";
    }
    char const* getPluginNamespace() const noexcept override
    {
        return "test";
    }

private:
    std::shared_ptr<Behaviour> mB;
    nvinfer1::PluginFieldCollection mFields{};
};

} // namespace kiln::adapter_test

KILN_IGNORE_DEPRECATED_END
