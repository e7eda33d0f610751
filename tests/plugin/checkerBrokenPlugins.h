// checkerBrokenPlugins.h — deliberately broken plugins for the plugin contract checker's tests. Header only, using
// nothing but the TensorRT API and kiln/KilnPluginCpu.h, so that it serves both kilnTests (creators registered in a
// local registry) and the separately built plugin library that the kilnexec tests load (tests/tools/).
//
//  "CheckerToy" v1 (IPluginV2DynamicExt + IPluginCreator): out = alpha * gain * in0 + in1 (FP32, same shapes), with
//      a workspace of one float per element (ws = alpha * gain * in0). Fields: "defect" (kINT32, a Defect), "alpha"
//      (kFLOAT32, default 1). Each Defect breaks one rule of the plugin contract.
//  "CheckerToyV3" v1 (IPluginV3 One* + IPluginCreatorV3One): NonZero-like. Input FP32 [R, C]; output 0 INT32 [2, K]
//      holds row and column of each element > threshold, output 1 is the INT32 size tensor K (upper bound R * C).
//      Tactics 1 and 2 (same results). Fields: "threshold" (kFLOAT32, default 0), "defect" (kINT32, a DefectV3).
//
// Both opt into Kiln's CPU backend by deriving from kiln::IPluginCpuSupport, which Kiln finds with dynamic_cast when
// the code has RTTI. tests/tools/ also compiles the library with -fno-rtti (checkerToyLibrary.cpp): with
// CHECKER_TOY_DECLARES_CPU the V3 plugin also answers kiln::kPLUGIN_CAPABILITY_CPU and the V2 creator lists
// kiln::kPLUGIN_CPU_SUPPORT_FIELD, the opt-ins that work without RTTI. CHECKER_TOY_PREFIX renames both plugins
// (default "CheckerToy"; the V3 one adds "V3") so that several builds of the library can be loaded at once.
#pragma once

#include "NvInferRuntime.h"
#include "kiln/KilnPluginCpu.h"

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#ifndef CHECKER_TOY_PREFIX
#define CHECKER_TOY_PREFIX "CheckerToy"
#endif
#ifndef CHECKER_TOY_DECLARES_CPU
#define CHECKER_TOY_DECLARES_CPU 0
#endif

namespace checkertest
{

enum class Defect : int32_t
{
    kNONE = 0,
    kCLONE_DROPS_ALPHA = 1,       //!< clone() forgets alpha                       -> clone-differs
    kDESERIALIZE_DROPS_ALPHA = 2, //!< the creator's deserializePlugin ignores alpha -> serialize-roundtrip
    kREADS_AHEAD = 3,             //!< supportsFormatCombination(0) reads inOut[2]   -> format-reads-ahead
    kWRITES_PAST_END = 4,         //!< enqueue writes 3 elements past the output     -> output-dims-mismatch
    kWRITES_PREFIX = 5,           //!< enqueue leaves the last 2 elements unwritten   -> output-dims-mismatch
    kLEAVES_HOLES = 6,            //!< enqueue skips every element i % 7 == 3        -> output-unwritten
    kWORKSPACE_OVERRUN = 7,       //!< enqueue writes 4 floats past its workspace     -> workspace-overrun
    kWORKSPACE_WITHOUT_SIZE = 8,  //!< getWorkspaceSize returns 0, enqueue uses it    -> workspace-overrun
    kMODIFIES_INPUT = 9,          //!< enqueue changes input 0                        -> input-modified
    kNONDETERMINISTIC = 10,       //!< enqueue adds a run counter to element 0        -> nondeterministic
    kCONFIGURE_ACCUMULATES = 11,  //!< configurePlugin multiplies gain by 1.5         -> repeated-configure
    kCLONE_NULL = 12,             //!< clone() returns nullptr                        -> call-failed
    kENQUEUE_FAILS = 13,          //!< enqueue returns 3                              -> call-failed
    kENQUEUE_THROWS = 14,         //!< enqueue throws through noexcept                -> call-failed
    kWRONG_VERSION = 15,          //!< the plugin reports version "2", its creator "1" -> identity-mismatch
    kNO_CPU = 16,                 //!< supportsCpu() returns false                     -> execution rules skipped
    kREJECTS_ALL = 17,            //!< supportsFormatCombination always false          -> no-format-combination
    kENQUEUE_CRASHES = 18,        //!< enqueue writes through a null pointer (kilnexec crash isolation only)
    kKEEPS_LARGEST_ROWS = 19,     //!< configurePlugin keeps the largest row count seen -> repeated-configure
    kBAD_OUTPUT_RANK = 30,        //!< getOutputDimensions returns rank 9               -> call-failed
    kBAD_OUTPUT_TYPE = 31,        //!< getOutputDataType returns DataType 99            -> call-failed
};

enum class DefectV3 : int32_t
{
    kNONE = 0,
    kDROPS_THRESHOLD = 20,  //!< getFieldsToSerialize omits threshold -> serialize-roundtrip (outputs)
    kSIZE_PAST_UPPER = 21,  //!< the size tensor holds upper + 1       -> output-dims-mismatch
    kTACTIC2_HOLE = 22,     //!< tactic 2 leaves the last row and column index unwritten -> output-unwritten
    kSIZE_UNWRITTEN = 23,   //!< the size tensor is never written      -> output-unwritten
};

inline int64_t toyVolume(nvinfer1::Dims const& d)
{
    int64_t v = 1;
    for (int32_t i = 0; i < d.nbDims; ++i)
    {
        v *= d.d[i];
    }
    return v;
}

//! Throws (from a function that may throw, so that the compiler lets a noexcept caller call it).
[[noreturn]] inline void toyThrow()
{
    throw std::runtime_error("CheckerToy enqueue exploded");
}

//! Reads field values by name from a collection (missing fields keep their defaults).
inline void readToyFields(nvinfer1::PluginFieldCollection const* fc, int32_t& defect, float& real, char const* realName)
{
    for (int32_t i = 0; fc != nullptr && i < fc->nbFields; ++i)
    {
        nvinfer1::PluginField const& f = fc->fields[i];
        if (f.name == nullptr || f.data == nullptr || f.length < 1)
        {
            continue;
        }
        if (std::strcmp(f.name, "defect") == 0 && f.type == nvinfer1::PluginFieldType::kINT32)
        {
            defect = *static_cast<int32_t const*>(f.data);
        }
        else if (std::strcmp(f.name, realName) == 0 && f.type == nvinfer1::PluginFieldType::kFLOAT32)
        {
            real = *static_cast<float const*>(f.data);
        }
    }
}

KILN_IGNORE_DEPRECATED_BEGIN

// ------------------------------------------------------------------------------------------------------------------
// CheckerToy: IPluginV2DynamicExt
// ------------------------------------------------------------------------------------------------------------------

class CheckerToyPlugin final : public nvinfer1::IPluginV2DynamicExt, public kiln::IPluginCpuSupport
{
public:
    CheckerToyPlugin(int32_t defect, float alpha)
        : mDefect(defect)
        , mAlpha(alpha)
    {
    }

    bool supportsCpu() const noexcept override { return mDefect != static_cast<int32_t>(Defect::kNO_CPU); }

    // IPluginV2
    char const* getPluginType() const noexcept override { return CHECKER_TOY_PREFIX; }
    char const* getPluginVersion() const noexcept override { return is(Defect::kWRONG_VERSION) ? "2" : "1"; }
    int32_t getNbOutputs() const noexcept override { return 1; }
    int32_t initialize() noexcept override { return 0; }
    void terminate() noexcept override {}
    size_t getSerializationSize() const noexcept override { return sizeof(int32_t) * 2 + sizeof(float) * 2; }
    void serialize(void* buffer) const noexcept override
    {
        auto* p = static_cast<char*>(buffer);
        int32_t const type = static_cast<int32_t>(mType);
        std::memcpy(p, &mDefect, 4);
        std::memcpy(p + 4, &mAlpha, 4);
        std::memcpy(p + 8, &mGain, 4);
        std::memcpy(p + 12, &type, 4);
    }
    void destroy() noexcept override { delete this; }
    void setPluginNamespace(char const* ns) noexcept override { mNamespace = ns == nullptr ? "" : ns; }
    char const* getPluginNamespace() const noexcept override { return mNamespace.c_str(); }

    // IPluginV2Ext
    nvinfer1::DataType getOutputDataType(int32_t, nvinfer1::DataType const* inputTypes, int32_t) const noexcept override
    {
        return is(Defect::kBAD_OUTPUT_TYPE) ? static_cast<nvinfer1::DataType>(99) : inputTypes[0];
    }

    // IPluginV2DynamicExt
    IPluginV2DynamicExt* clone() const noexcept override
    {
        if (is(Defect::kCLONE_NULL))
        {
            return nullptr;
        }
        auto* copy = new CheckerToyPlugin(*this);
        if (is(Defect::kCLONE_DROPS_ALPHA))
        {
            copy->mAlpha = 1.0F;
        }
        return copy;
    }
    nvinfer1::DimsExprs getOutputDimensions(
        int32_t, nvinfer1::DimsExprs const* inputs, int32_t, nvinfer1::IExprBuilder&) noexcept override
    {
        nvinfer1::DimsExprs out = inputs[0];
        if (is(Defect::kBAD_OUTPUT_RANK))
        {
            out.nbDims = 9;
        }
        return out;
    }
    bool supportsFormatCombination(
        int32_t pos, nvinfer1::PluginTensorDesc const* inOut, int32_t, int32_t) noexcept override
    {
        if (is(Defect::kREJECTS_ALL))
        {
            return false;
        }
        bool const linear = inOut[pos].format == nvinfer1::TensorFormat::kLINEAR;
        if (pos == 0)
        {
            bool ok = linear && inOut[0].type == nvinfer1::DataType::kFLOAT;
            if (is(Defect::kREADS_AHEAD))
            {
                // The classic mistake: deciding position 0 by looking at the output, which is not decided yet.
                ok = ok && inOut[2].type == nvinfer1::DataType::kFLOAT;
            }
            return ok;
        }
        return linear && inOut[pos].type == inOut[0].type;
    }
    void configurePlugin(nvinfer1::DynamicPluginTensorDesc const* in, int32_t, nvinfer1::DynamicPluginTensorDesc const*,
        int32_t) noexcept override
    {
        mType = in[0].desc.type;
        if (is(Defect::kKEEPS_LARGEST_ROWS) && in[0].desc.dims.d[0] > mRows)
        {
            mRows = in[0].desc.dims.d[0]; // never shrinks: state of an earlier configuration leaks into later ones
        }
        if (is(Defect::kCONFIGURE_ACCUMULATES))
        {
            mGain *= 1.5F;
        }
    }
    size_t getWorkspaceSize(nvinfer1::PluginTensorDesc const* inputs, int32_t, nvinfer1::PluginTensorDesc const*,
        int32_t) const noexcept override
    {
        if (is(Defect::kWORKSPACE_WITHOUT_SIZE))
        {
            return 0;
        }
        return static_cast<size_t>(toyVolume(inputs[0].dims)) * sizeof(float);
    }
    int32_t enqueue(nvinfer1::PluginTensorDesc const* inputDesc, nvinfer1::PluginTensorDesc const*,
        void const* const* inputs, void* const* outputs, void* workspace, cudaStream_t) noexcept override
    {
        if (is(Defect::kENQUEUE_FAILS))
        {
            return 3;
        }
        if (is(Defect::kENQUEUE_THROWS))
        {
            toyThrow(); // throws through this noexcept method, as careless plugins do
        }
        if (is(Defect::kENQUEUE_CRASHES))
        {
            crashTarget()[0] = 1.0F;
        }
        int64_t const n = toyVolume(inputDesc[0].dims);
        auto const* in0 = static_cast<float const*>(inputs[0]);
        auto const* in1 = static_cast<float const*>(inputs[1]);
        auto* out = static_cast<float*>(outputs[0]);
        auto* ws = static_cast<float*>(workspace);
        if (is(Defect::kWORKSPACE_WITHOUT_SIZE))
        {
            ws[0] = 1.0F;
        }
        else
        {
            int64_t const wsCount = is(Defect::kWORKSPACE_OVERRUN) ? n + 4 : n;
            for (int64_t i = 0; i < wsCount; ++i)
            {
                ws[i] = i < n ? mAlpha * mGain * in0[i] : 0.0F;
            }
        }
        int64_t count = n;
        count = is(Defect::kWRITES_PAST_END) ? n + 3 : count;
        count = is(Defect::kWRITES_PREFIX) ? n - 2 : count;
        for (int64_t i = 0; i < count; ++i)
        {
            if (is(Defect::kLEAVES_HOLES) && i % 7 == 3)
            {
                continue;
            }
            float const scaled = is(Defect::kWORKSPACE_WITHOUT_SIZE) ? mAlpha * mGain * in0[i] : ws[i];
            float const leak = is(Defect::kKEEPS_LARGEST_ROWS) && mRows > 0
                ? static_cast<float>(mRows - inputDesc[0].dims.d[0])
                : 0.0F;
            out[i] = i < n ? scaled + in1[i] + leak : 0.0F;
        }
        if (is(Defect::kMODIFIES_INPUT))
        {
            const_cast<float*>(in0)[0] += 1.0F;
        }
        if (is(Defect::kNONDETERMINISTIC))
        {
            static int32_t counter = 0;
            out[0] += static_cast<float>(++counter);
        }
        return 0;
    }

    int32_t mDefect;
    float mAlpha;
    float mGain{1.0F};
    int64_t mRows{0};
    nvinfer1::DataType mType{nvinfer1::DataType::kFLOAT};
    std::string mNamespace;

private:
    bool is(Defect d) const { return mDefect == static_cast<int32_t>(d); }
    //! A null pointer the compiler cannot see through.
    static float* crashTarget()
    {
        static float* volatile target = nullptr;
        return target;
    }
};

class CheckerToyCreator final : public nvinfer1::IPluginCreator
{
public:
    CheckerToyCreator()
    {
        mFieldList = {nvinfer1::PluginField("defect", nullptr, nvinfer1::PluginFieldType::kINT32, 1),
            nvinfer1::PluginField("alpha", nullptr, nvinfer1::PluginFieldType::kFLOAT32, 1)};
        if (CHECKER_TOY_DECLARES_CPU)
        {
            mFieldList.emplace_back(kiln::kPLUGIN_CPU_SUPPORT_FIELD, nullptr, nvinfer1::PluginFieldType::kUNKNOWN, 0);
        }
        mFields.nbFields = static_cast<int32_t>(mFieldList.size());
        mFields.fields = mFieldList.data();
    }
    char const* getPluginName() const noexcept override { return CHECKER_TOY_PREFIX; }
    char const* getPluginVersion() const noexcept override { return "1"; }
    nvinfer1::PluginFieldCollection const* getFieldNames() noexcept override { return &mFields; }
    nvinfer1::IPluginV2* createPlugin(char const*, nvinfer1::PluginFieldCollection const* fc) noexcept override
    {
        int32_t defect = 0;
        float alpha = 1.0F;
        readToyFields(fc, defect, alpha, "alpha");
        auto* plugin = new CheckerToyPlugin(defect, alpha);
        plugin->setPluginNamespace(mNamespace.c_str());
        return plugin;
    }
    nvinfer1::IPluginV2* deserializePlugin(char const*, void const* data, size_t length) noexcept override
    {
        if (length != 16)
        {
            return nullptr;
        }
        auto const* p = static_cast<char const*>(data);
        int32_t defect = 0;
        float alpha = 1.0F;
        float gain = 1.0F;
        int32_t type = 0;
        std::memcpy(&defect, p, 4);
        std::memcpy(&alpha, p + 4, 4);
        std::memcpy(&gain, p + 8, 4);
        std::memcpy(&type, p + 12, 4);
        if (defect == static_cast<int32_t>(Defect::kDESERIALIZE_DROPS_ALPHA))
        {
            alpha = 1.0F;
        }
        auto* plugin = new CheckerToyPlugin(defect, alpha);
        plugin->mGain = gain;
        plugin->mType = static_cast<nvinfer1::DataType>(type);
        plugin->setPluginNamespace(mNamespace.c_str());
        return plugin;
    }
    void setPluginNamespace(char const* ns) noexcept override { mNamespace = ns == nullptr ? "" : ns; }
    char const* getPluginNamespace() const noexcept override { return mNamespace.c_str(); }

private:
    std::vector<nvinfer1::PluginField> mFieldList;
    nvinfer1::PluginFieldCollection mFields{};
    std::string mNamespace;
};

KILN_IGNORE_DEPRECATED_END

// ------------------------------------------------------------------------------------------------------------------
// CheckerToyV3: IPluginV3 with a data-dependent output and two tactics
// ------------------------------------------------------------------------------------------------------------------

class CheckerToyV3Plugin final : public nvinfer1::IPluginV3,
                                 public nvinfer1::IPluginV3OneCore,
                                 public nvinfer1::IPluginV3OneBuild,
                                 public nvinfer1::IPluginV3OneRuntime,
                                 public kiln::IPluginCpuSupport
{
public:
    CheckerToyV3Plugin(float threshold, int32_t defect)
        : mThreshold(threshold)
        , mDefect(defect)
    {
        bindFields();
    }
    CheckerToyV3Plugin(CheckerToyV3Plugin const& other)
        : nvinfer1::IPluginV3(other)
        , nvinfer1::IPluginV3OneCore(other)
        , nvinfer1::IPluginV3OneBuild(other)
        , nvinfer1::IPluginV3OneRuntime(other)
        , kiln::IPluginCpuSupport(other)
        , mThreshold(other.mThreshold)
        , mDefect(other.mDefect)
        , mTactic(other.mTactic)
    {
        bindFields();
    }
    CheckerToyV3Plugin& operator=(CheckerToyV3Plugin const&) = delete;

    // IPluginV3
    nvinfer1::IPluginCapability* getCapabilityInterface(nvinfer1::PluginCapabilityType type) noexcept override
    {
        switch (type)
        {
        case nvinfer1::PluginCapabilityType::kCORE: return static_cast<nvinfer1::IPluginV3OneCore*>(this);
        case nvinfer1::PluginCapabilityType::kBUILD: return static_cast<nvinfer1::IPluginV3OneBuild*>(this);
        case nvinfer1::PluginCapabilityType::kRUNTIME: return static_cast<nvinfer1::IPluginV3OneRuntime*>(this);
        }
        if (CHECKER_TOY_DECLARES_CPU && type == kiln::kPLUGIN_CAPABILITY_CPU)
        {
            return static_cast<kiln::IPluginCpuSupport*>(this);
        }
        // Unknown capability types get the core interface, as some plugins do: Kiln must check the kind.
        return static_cast<nvinfer1::IPluginV3OneCore*>(this);
    }
    nvinfer1::IPluginV3* clone() noexcept override { return new CheckerToyV3Plugin(*this); }

    // IPluginV3OneCore
    char const* getPluginName() const noexcept override { return CHECKER_TOY_PREFIX "V3"; }
    char const* getPluginVersion() const noexcept override { return "1"; }
    char const* getPluginNamespace() const noexcept override { return ""; }

    // IPluginV3OneBuild
    int32_t configurePlugin(nvinfer1::DynamicPluginTensorDesc const*, int32_t, nvinfer1::DynamicPluginTensorDesc const*,
        int32_t) noexcept override
    {
        return 0;
    }
    int32_t getOutputDataTypes(nvinfer1::DataType* outputTypes, int32_t, nvinfer1::DataType const*, int32_t) const
        noexcept override
    {
        outputTypes[0] = nvinfer1::DataType::kINT32;
        outputTypes[1] = nvinfer1::DataType::kINT32;
        return 0;
    }
    int32_t getOutputShapes(nvinfer1::DimsExprs const* inputs, int32_t, nvinfer1::DimsExprs const*, int32_t,
        nvinfer1::DimsExprs* outputs, int32_t, nvinfer1::IExprBuilder& eb) noexcept override
    {
        auto const* volume = eb.operation(nvinfer1::DimensionOperation::kPROD, *inputs[0].d[0], *inputs[0].d[1]);
        auto const* opt = eb.operation(nvinfer1::DimensionOperation::kFLOOR_DIV, *volume, *eb.constant(2));
        auto const* k = eb.declareSizeTensor(1, *opt, *volume);
        outputs[0].nbDims = 2;
        outputs[0].d[0] = eb.constant(2);
        outputs[0].d[1] = k;
        outputs[1].nbDims = 0;
        return 0;
    }
    bool supportsFormatCombination(
        int32_t pos, nvinfer1::DynamicPluginTensorDesc const* inOut, int32_t, int32_t) noexcept override
    {
        nvinfer1::PluginTensorDesc const& d = inOut[pos].desc;
        nvinfer1::DataType const want = pos == 0 ? nvinfer1::DataType::kFLOAT : nvinfer1::DataType::kINT32;
        return d.format == nvinfer1::TensorFormat::kLINEAR && d.type == want;
    }
    int32_t getNbOutputs() const noexcept override { return 2; }
    int32_t getValidTactics(int32_t* tactics, int32_t nbTactics) noexcept override
    {
        if (nbTactics != 2)
        {
            return 1;
        }
        tactics[0] = 1;
        tactics[1] = 2;
        return 0;
    }
    int32_t getNbTactics() noexcept override { return 2; }

    // IPluginV3OneRuntime
    int32_t setTactic(int32_t tactic) noexcept override
    {
        mTactic = tactic;
        return 0;
    }
    int32_t onShapeChange(nvinfer1::PluginTensorDesc const*, int32_t, nvinfer1::PluginTensorDesc const*, int32_t) noexcept
        override
    {
        return 0;
    }
    int32_t enqueue(nvinfer1::PluginTensorDesc const* inputDesc, nvinfer1::PluginTensorDesc const*,
        void const* const* inputs, void* const* outputs, void*, cudaStream_t) noexcept override
    {
        int64_t const rows = inputDesc[0].dims.d[0];
        int64_t const cols = inputDesc[0].dims.d[1];
        auto const* in = static_cast<float const*>(inputs[0]);
        auto* indices = static_cast<int32_t*>(outputs[0]);
        int64_t k = 0;
        for (int64_t i = 0; i < rows * cols; ++i)
        {
            k += in[i] > mThreshold ? 1 : 0;
        }
        int64_t written = 0;
        for (int64_t i = 0; i < rows * cols; ++i)
        {
            if (in[i] > mThreshold)
            {
                bool const skip = mDefect == static_cast<int32_t>(DefectV3::kTACTIC2_HOLE) && mTactic == 2
                    && written == k - 1;
                if (!skip)
                {
                    indices[written] = static_cast<int32_t>(i / cols);
                    indices[k + written] = static_cast<int32_t>(i % cols);
                }
                ++written;
            }
        }
        if (mDefect != static_cast<int32_t>(DefectV3::kSIZE_UNWRITTEN))
        {
            int64_t const reported = mDefect == static_cast<int32_t>(DefectV3::kSIZE_PAST_UPPER) ? rows * cols + 1 : k;
            *static_cast<int32_t*>(outputs[1]) = static_cast<int32_t>(reported);
        }
        return 0;
    }
    nvinfer1::IPluginV3* attachToContext(nvinfer1::IPluginResourceContext*) noexcept override { return clone(); }
    nvinfer1::PluginFieldCollection const* getFieldsToSerialize() noexcept override { return &mFieldCollection; }

private:
    void bindFields()
    {
        mFields.clear();
        mFields.emplace_back("defect", &mDefect, nvinfer1::PluginFieldType::kINT32, 1);
        if (mDefect != static_cast<int32_t>(DefectV3::kDROPS_THRESHOLD))
        {
            mFields.emplace_back("threshold", &mThreshold, nvinfer1::PluginFieldType::kFLOAT32, 1);
        }
        mFieldCollection.nbFields = static_cast<int32_t>(mFields.size());
        mFieldCollection.fields = mFields.data();
    }

    float mThreshold;
    int32_t mDefect;
    int32_t mTactic{0};
    std::vector<nvinfer1::PluginField> mFields;
    nvinfer1::PluginFieldCollection mFieldCollection{};
};

class CheckerToyV3Creator final : public nvinfer1::IPluginCreatorV3One
{
public:
    CheckerToyV3Creator()
    {
        mFieldList = {nvinfer1::PluginField("threshold", nullptr, nvinfer1::PluginFieldType::kFLOAT32, 1),
            nvinfer1::PluginField("defect", nullptr, nvinfer1::PluginFieldType::kINT32, 1)};
        mFields.nbFields = static_cast<int32_t>(mFieldList.size());
        mFields.fields = mFieldList.data();
    }
    nvinfer1::IPluginV3* createPlugin(char const*, nvinfer1::PluginFieldCollection const* fc,
        nvinfer1::TensorRTPhase) noexcept override
    {
        int32_t defect = 0;
        float threshold = 0.0F;
        readToyFields(fc, defect, threshold, "threshold");
        return new CheckerToyV3Plugin(threshold, defect);
    }
    nvinfer1::PluginFieldCollection const* getFieldNames() noexcept override { return &mFields; }
    char const* getPluginName() const noexcept override { return CHECKER_TOY_PREFIX "V3"; }
    char const* getPluginVersion() const noexcept override { return "1"; }
    char const* getPluginNamespace() const noexcept override { return ""; }

private:
    std::vector<nvinfer1::PluginField> mFieldList;
    nvinfer1::PluginFieldCollection mFields{};
};

} // namespace checkertest
