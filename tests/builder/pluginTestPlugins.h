// Small test plugins for the builder and network plugin tests (tests/builder/plugin*Test.cpp,
// tests/network/plugin*Test.cpp). Each is configurable, so one class covers many builder paths:
//  - TestScaleV2 (IPluginV2DynamicExt, opts into the CPU backend): out = in * factor, one input, one output of the
//    same type and format; the accepted types and formats, the workspace it asks for and a few faults (nullptr
//    clones after a budget, bad output dims) are configurable. It computes on any format by walking the whole
//    (padded) buffer, and on INT8 with the scales of PluginTensorDesc. TestScaleV2NoCpu is the same plugin without
//    kiln::IPluginCpuSupport.
//  - TestV3 (IPluginV3 OneCore/OneBuildV2/OneRuntime, opts into the CPU backend), modes:
//      kADD_ONE: out = in + 1 (FP32), optionally aliased to its input (getAliasedInput), optionally with two tactics
//                of which one sleeps in enqueue; format answers and the combination limit are configurable;
//      kRESHAPE: out = the data input reshaped to the values of a 1-D shape input;
//      kNON_ZERO: out0 = indices of the positive elements (INT32, data-dependent length), out1 = their count (a
//                size tensor, 0-D INT32).
// Every object counts itself in liveObjects(), so tests can check ownership. Creators are registered once in the
// global registry by registerTestPluginCreators().
#pragma once

#include "NvInfer.h"
#include "kiln/KilnPluginCpu.h"

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace kiln::test::plugins
{
using namespace nvinfer1;

inline std::atomic<int32_t>& liveObjects()
{
    static std::atomic<int32_t> count{0};
    return count;
}

//! Elements stored for `dims` in `format`: the channel dimension (rank-3, or rank-4 for the 3-D formats) padded
//! to the vector size. Written independently of Kiln's layout code.
inline int64_t paddedVolume(Dims const& dims, TensorFormat format)
{
    int32_t vec = 1;
    int32_t channel = dims.nbDims - 3;
    switch (format)
    {
    case TensorFormat::kCHW2: vec = 2; break;
    case TensorFormat::kCHW4: vec = 4; break;
    case TensorFormat::kHWC8: vec = 8; break;
    case TensorFormat::kCHW16:
    case TensorFormat::kHWC16: vec = 16; break;
    case TensorFormat::kCHW32: vec = 32; break;
    case TensorFormat::kDHWC8: vec = 8; channel = dims.nbDims - 4; break;
    case TensorFormat::kCDHW32: vec = 32; channel = dims.nbDims - 4; break;
    default: break;
    }
    int64_t v = 1;
    for (int32_t i = 0; i < dims.nbDims; ++i)
    {
        int64_t d = dims.d[i];
        if (i == channel && vec > 1)
        {
            d = (d + vec - 1) / vec * vec;
        }
        v *= d;
    }
    return v;
}

struct ScaleConfig
{
    float factor{2.0F};
    uint32_t typeMask{1U << static_cast<uint32_t>(DataType::kFLOAT)};
    uint32_t formatMask{1U << static_cast<uint32_t>(TensorFormat::kLINEAR)};
    int64_t workspace{0};
    int32_t cloneBudget{-1}; //!< clones left before clone() returns nullptr (-1: unlimited)
    int32_t badDims{0};      //!< getOutputDimensions returns nbDims = -1
};

class TestScaleV2Base : public IPluginV2DynamicExt
{
public:
    explicit TestScaleV2Base(ScaleConfig config)
        : mConfig(config)
    {
        ++liveObjects();
    }
    ~TestScaleV2Base() override { --liveObjects(); }

    ScaleConfig const& config() const { return mConfig; }
    int32_t configureCalls() const { return mConfigureCalls; }
    DynamicPluginTensorDesc const& lastConfiguredInput() const { return mLastIn; }

    char const* getPluginType() const noexcept override { return "KilnTestScale"; }
    char const* getPluginVersion() const noexcept override { return "1"; }
    int32_t getNbOutputs() const noexcept override { return 1; }
    int32_t initialize() noexcept override { return 0; }
    void terminate() noexcept override {}
    size_t getSerializationSize() const noexcept override { return sizeof(ScaleConfig); }
    void serialize(void* buffer) const noexcept override { std::memcpy(buffer, &mConfig, sizeof(ScaleConfig)); }
    void destroy() noexcept override { delete this; }
    void setPluginNamespace(char const* ns) noexcept override { mNamespace = ns != nullptr ? ns : ""; }
    char const* getPluginNamespace() const noexcept override { return mNamespace.c_str(); }
    DataType getOutputDataType(int32_t, DataType const* inputTypes, int32_t) const noexcept override
    {
        return inputTypes[0];
    }
    DimsExprs getOutputDimensions(int32_t, DimsExprs const* inputs, int32_t, IExprBuilder&) noexcept override
    {
        DimsExprs out = inputs[0];
        if (mConfig.badDims != 0)
        {
            out.nbDims = -1;
        }
        return out;
    }
    bool supportsFormatCombination(int32_t pos, PluginTensorDesc const* inOut, int32_t, int32_t) noexcept override
    {
        PluginTensorDesc const& d = inOut[pos];
        if (pos == 1)
        {
            return d.type == inOut[0].type && d.format == inOut[0].format;
        }
        return (mConfig.typeMask & (1U << static_cast<uint32_t>(d.type))) != 0
            && (mConfig.formatMask & (1U << static_cast<uint32_t>(d.format))) != 0;
    }
    void configurePlugin(DynamicPluginTensorDesc const* in, int32_t, DynamicPluginTensorDesc const*, int32_t) noexcept override
    {
        ++mConfigureCalls;
        mLastIn = in[0];
    }
    size_t getWorkspaceSize(PluginTensorDesc const*, int32_t, PluginTensorDesc const*, int32_t) const noexcept override
    {
        return static_cast<size_t>(mConfig.workspace);
    }
    int32_t enqueue(PluginTensorDesc const* inDesc, PluginTensorDesc const* outDesc, void const* const* inputs,
        void* const* outputs, void* workspace, cudaStream_t) noexcept override
    {
        if (mConfig.workspace > 0)
        {
            if (workspace == nullptr)
            {
                return 7;
            }
            std::memset(workspace, 0x5A, static_cast<size_t>(mConfig.workspace)); // must stay inside its slot
        }
        int64_t const n = paddedVolume(inDesc[0].dims, inDesc[0].format);
        switch (inDesc[0].type)
        {
        case DataType::kFLOAT:
        {
            auto const* x = static_cast<float const*>(inputs[0]);
            auto* y = static_cast<float*>(outputs[0]);
            for (int64_t i = 0; i < n; ++i)
            {
                y[i] = x[i] * mConfig.factor;
            }
            return 0;
        }
        case DataType::kHALF:
        {
            // Scale by a power of two in the exponent field: exact and independent of Kiln's half helpers.
            auto const* x = static_cast<uint16_t const*>(inputs[0]);
            auto* y = static_cast<uint16_t*>(outputs[0]);
            if (mConfig.factor != 2.0F)
            {
                return 3;
            }
            for (int64_t i = 0; i < n; ++i)
            {
                uint16_t const e = (x[i] >> 10) & 0x1F;
                if (e == 0)
                {
                    y[i] = static_cast<uint16_t>((x[i] & 0x8000U) | ((x[i] & 0x3FFU) << 1)); // subnormal or zero
                }
                else
                {
                    y[i] = e >= 0x1E ? x[i] : static_cast<uint16_t>(x[i] + (1U << 10));
                }
            }
            return 0;
        }
        case DataType::kINT8:
        {
            auto const* x = static_cast<int8_t const*>(inputs[0]);
            auto* y = static_cast<int8_t*>(outputs[0]);
            float const si = inDesc[0].scale;
            float const so = outDesc[0].scale;
            if (!(si > 0.F) || !(so > 0.F))
            {
                return 4;
            }
            for (int64_t i = 0; i < n; ++i)
            {
                float const q = std::nearbyint(static_cast<float>(x[i]) * si * mConfig.factor / so);
                y[i] = static_cast<int8_t>(std::fmax(-128.F, std::fmin(127.F, q)));
            }
            return 0;
        }
        default: return 5;
        }
    }

protected:
    bool takeClone() const
    {
        if (mConfig.cloneBudget == 0)
        {
            return false;
        }
        return true;
    }
    ScaleConfig nextConfig() const
    {
        ScaleConfig c = mConfig;
        if (c.cloneBudget > 0)
        {
            --c.cloneBudget;
        }
        return c;
    }

    ScaleConfig mConfig;
    std::string mNamespace;
    int32_t mConfigureCalls{0};
    DynamicPluginTensorDesc mLastIn{};
};

class TestScaleV2 final : public TestScaleV2Base, public kiln::IPluginCpuSupport
{
public:
    using TestScaleV2Base::TestScaleV2Base;
    IPluginV2DynamicExt* clone() const noexcept override
    {
        if (!takeClone())
        {
            return nullptr;
        }
        auto* p = new TestScaleV2(nextConfig());
        p->setPluginNamespace(mNamespace.c_str());
        return p;
    }
};

class TestScaleV2NoCpu final : public TestScaleV2Base
{
public:
    using TestScaleV2Base::TestScaleV2Base;
    IPluginV2DynamicExt* clone() const noexcept override
    {
        auto* p = new TestScaleV2NoCpu(nextConfig());
        p->setPluginNamespace(mNamespace.c_str());
        return p;
    }
};

class TestScaleCreator final : public IPluginCreator
{
public:
    char const* getPluginName() const noexcept override { return "KilnTestScale"; }
    char const* getPluginVersion() const noexcept override { return "1"; }
    PluginFieldCollection const* getFieldNames() noexcept override { return &mFields; }
    IPluginV2* createPlugin(char const*, PluginFieldCollection const*) noexcept override
    {
        return new TestScaleV2(ScaleConfig{});
    }
    IPluginV2* deserializePlugin(char const*, void const* data, size_t length) noexcept override
    {
        if (length != sizeof(ScaleConfig))
        {
            return nullptr;
        }
        ScaleConfig c;
        std::memcpy(&c, data, sizeof(c));
        c.cloneBudget = -1;
        return new TestScaleV2(c);
    }
    void setPluginNamespace(char const* ns) noexcept override { mNamespace = ns != nullptr ? ns : ""; }
    char const* getPluginNamespace() const noexcept override { return mNamespace.c_str(); }

private:
    PluginFieldCollection mFields{0, nullptr};
    std::string mNamespace;
};

enum class V3Mode : int32_t
{
    kADD_ONE = 0,
    kRESHAPE = 1,
    kNON_ZERO = 2,
};

struct V3Config
{
    V3Mode mode{V3Mode::kADD_ONE};
    int32_t aliasInput{-1};    //!< getAliasedInput(0) (-1: no aliasing)
    int32_t formatLimit{0};    //!< getFormatCombinationLimit (0: the default)
    int32_t acceptAnyInput{0}; //!< supportsFormatCombination accepts every input type/format ...
    int32_t rejectOutputs{0};  //!< ... and/or rejects every output
    int32_t tactics{0};        //!< offer tactics 1 and 2
    int32_t slowTactic{1};     //!< the tactic that sleeps in enqueue
    int32_t failConfigure{0};  //!< configurePlugin returns 1
    int64_t workspace{0};
    int32_t tactic{0};         //!< set by setTactic (serialized)
};

class TestV3 final : public IPluginV3,
                     public IPluginV3OneCore,
                     public IPluginV3OneBuildV2,
                     public IPluginV3OneRuntime,
                     public kiln::IPluginCpuSupport
{
public:
    explicit TestV3(V3Config config)
        : mConfig(config)
    {
        ++liveObjects();
        mFieldList = {PluginField("config", &mConfig, PluginFieldType::kINT8, static_cast<int32_t>(sizeof(V3Config)))};
        mFields = PluginFieldCollection{1, mFieldList.data()};
    }
    ~TestV3() override { --liveObjects(); }

    V3Config const& config() const { return mConfig; }
    int32_t enqueueCalls() const { return mEnqueueCalls; }

    IPluginCapability* getCapabilityInterface(PluginCapabilityType type) noexcept override
    {
        switch (type)
        {
        case PluginCapabilityType::kCORE: return static_cast<IPluginV3OneCore*>(this);
        case PluginCapabilityType::kBUILD: return static_cast<IPluginV3OneBuildV2*>(this);
        case PluginCapabilityType::kRUNTIME: return static_cast<IPluginV3OneRuntime*>(this);
        }
        return nullptr;
    }
    IPluginV3* clone() noexcept override { return new TestV3(mConfig); }

    char const* getPluginName() const noexcept override { return "KilnTestV3"; }
    char const* getPluginVersion() const noexcept override { return "1"; }
    char const* getPluginNamespace() const noexcept override { return ""; }

    int32_t getNbOutputs() const noexcept override { return mConfig.mode == V3Mode::kNON_ZERO ? 2 : 1; }
    int32_t configurePlugin(DynamicPluginTensorDesc const*, int32_t, DynamicPluginTensorDesc const*, int32_t) noexcept override
    {
        return mConfig.failConfigure != 0 ? 1 : 0;
    }
    int32_t getOutputDataTypes(DataType* outputTypes, int32_t nbOutputs, DataType const* inputTypes, int32_t) const noexcept override
    {
        if (mConfig.mode == V3Mode::kNON_ZERO)
        {
            outputTypes[0] = DataType::kINT32;
            outputTypes[1] = DataType::kINT32;
            return nbOutputs == 2 ? 0 : 1;
        }
        outputTypes[0] = inputTypes[0];
        return 0;
    }
    int32_t getOutputShapes(DimsExprs const* inputs, int32_t, DimsExprs const* shapeInputs, int32_t nbShapeInputs,
        DimsExprs* outputs, int32_t, IExprBuilder& exprBuilder) noexcept override
    {
        switch (mConfig.mode)
        {
        case V3Mode::kADD_ONE: outputs[0] = inputs[0]; return 0;
        case V3Mode::kRESHAPE:
            if (nbShapeInputs != 1)
            {
                return 1;
            }
            outputs[0] = shapeInputs[0];
            return 0;
        case V3Mode::kNON_ZERO:
        {
            IDimensionExpr const* upper = exprBuilder.constant(1);
            for (int32_t i = 0; i < inputs[0].nbDims; ++i)
            {
                upper = exprBuilder.operation(DimensionOperation::kPROD, *upper, *inputs[0].d[i]);
            }
            IDimensionExpr const* opt = exprBuilder.operation(DimensionOperation::kCEIL_DIV, *upper, *exprBuilder.constant(2));
            IDimensionExpr const* size = exprBuilder.declareSizeTensor(1, *opt, *upper);
            if (size == nullptr)
            {
                return 2;
            }
            outputs[0].nbDims = 1;
            outputs[0].d[0] = size;
            outputs[1].nbDims = 0;
            return 0;
        }
        }
        return 3;
    }
    bool supportsFormatCombination(int32_t pos, DynamicPluginTensorDesc const* inOut, int32_t nbInputs, int32_t) noexcept override
    {
        PluginTensorDesc const& d = inOut[pos].desc;
        if (pos < nbInputs && mConfig.acceptAnyInput != 0)
        {
            return true;
        }
        if (pos >= nbInputs && mConfig.rejectOutputs != 0)
        {
            return false;
        }
        if (d.format != TensorFormat::kLINEAR)
        {
            return false;
        }
        if (mConfig.mode == V3Mode::kNON_ZERO)
        {
            return pos < nbInputs ? d.type == DataType::kFLOAT : d.type == DataType::kINT32;
        }
        return pos < nbInputs ? d.type == DataType::kFLOAT : d.type == inOut[0].desc.type;
    }
    size_t getWorkspaceSize(DynamicPluginTensorDesc const*, int32_t, DynamicPluginTensorDesc const*, int32_t) const noexcept override
    {
        return static_cast<size_t>(mConfig.workspace);
    }
    int32_t getValidTactics(int32_t* tactics, int32_t nbTactics) noexcept override
    {
        if (mConfig.tactics == 0 || nbTactics < 2)
        {
            return mConfig.tactics == 0 ? 0 : 1;
        }
        tactics[0] = 1;
        tactics[1] = 2;
        return 0;
    }
    int32_t getNbTactics() noexcept override { return mConfig.tactics != 0 ? 2 : 0; }
    int32_t getAliasedInput(int32_t outputIndex) noexcept override
    {
        return outputIndex == 0 ? mConfig.aliasInput : -1;
    }
    int32_t getFormatCombinationLimit() noexcept override
    {
        return mConfig.formatLimit > 0 ? mConfig.formatLimit : kDEFAULT_FORMAT_COMBINATION_LIMIT;
    }

    int32_t setTactic(int32_t tactic) noexcept override
    {
        mConfig.tactic = tactic;
        return 0;
    }
    int32_t onShapeChange(PluginTensorDesc const*, int32_t, PluginTensorDesc const*, int32_t) noexcept override { return 0; }
    int32_t enqueue(PluginTensorDesc const* inDesc, PluginTensorDesc const* outDesc, void const* const* inputs,
        void* const* outputs, void* workspace, cudaStream_t) noexcept override
    {
        ++mEnqueueCalls;
        if (mConfig.workspace > 0 && workspace == nullptr)
        {
            return 7;
        }
        if (mConfig.tactics != 0 && mConfig.tactic == mConfig.slowTactic)
        {
            std::this_thread::sleep_for(std::chrono::milliseconds(3));
        }
        int64_t n = 1;
        for (int32_t i = 0; i < inDesc[0].dims.nbDims; ++i)
        {
            n *= inDesc[0].dims.d[i];
        }
        auto const* x = static_cast<float const*>(inputs[0]);
        switch (mConfig.mode)
        {
        case V3Mode::kADD_ONE:
        {
            auto* y = static_cast<float*>(outputs[0]);
            for (int64_t i = 0; i < n; ++i)
            {
                y[i] = x[i] + 1.0F;
            }
            return 0;
        }
        case V3Mode::kRESHAPE: std::memcpy(outputs[0], x, static_cast<size_t>(n) * sizeof(float)); return 0;
        case V3Mode::kNON_ZERO:
        {
            (void) outDesc;
            auto* indices = static_cast<int32_t*>(outputs[0]);
            int32_t count = 0;
            for (int64_t i = 0; i < n; ++i)
            {
                if (x[i] > 0.F)
                {
                    indices[count++] = static_cast<int32_t>(i);
                }
            }
            *static_cast<int32_t*>(outputs[1]) = count;
            return 0;
        }
        }
        return 3;
    }
    IPluginV3* attachToContext(IPluginResourceContext*) noexcept override { return clone(); }
    PluginFieldCollection const* getFieldsToSerialize() noexcept override { return &mFields; }

private:
    V3Config mConfig;
    std::vector<PluginField> mFieldList;
    PluginFieldCollection mFields{};
    int32_t mEnqueueCalls{0};
};

class TestV3Creator final : public IPluginCreatorV3One
{
public:
    IPluginV3* createPlugin(char const*, PluginFieldCollection const* fc, TensorRTPhase) noexcept override
    {
        V3Config c;
        if (fc != nullptr)
        {
            for (int32_t i = 0; i < fc->nbFields; ++i)
            {
                PluginField const& f = fc->fields[i];
                if (std::string(f.name) == "config" && f.length == static_cast<int32_t>(sizeof(V3Config)))
                {
                    std::memcpy(&c, f.data, sizeof(c));
                }
            }
        }
        return new TestV3(c);
    }
    PluginFieldCollection const* getFieldNames() noexcept override { return &mFields; }
    char const* getPluginName() const noexcept override { return "KilnTestV3"; }
    char const* getPluginVersion() const noexcept override { return "1"; }
    char const* getPluginNamespace() const noexcept override { return ""; }

private:
    PluginFieldCollection mFields{0, nullptr};
};

//! Registers the creators in the global registry once (engines built in tests deserialize through it).
inline void registerTestPluginCreators()
{
    static bool const done = [] {
        static TestScaleCreator scale;
        static TestV3Creator v3;
        getPluginRegistry()->registerCreator(scale, "");
        getPluginRegistry()->registerCreator(v3, "");
        return true;
    }();
    (void) done;
}

} // namespace kiln::test::plugins
