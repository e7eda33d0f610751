// Format negotiation and the format-reads-ahead rule of the plugin contract checker.
#include "plugin/checker/checkFormats.h"

#include "core/dataType.h"

#include <map>

namespace kiln::checker
{

using nvinfer1::DataType;
using nvinfer1::PluginTensorDesc;
using nvinfer1::TensorFormat;

namespace
{

//! Input types tried, in order, when the request does not fix them.
DataType const kTYPE_ORDER[] = {DataType::kFLOAT, DataType::kHALF, DataType::kBF16, DataType::kINT32,
    DataType::kINT64, DataType::kINT8, DataType::kUINT8, DataType::kBOOL};

//! Formats tried when no linear combination exists (DLA formats excluded).
TensorFormat const kALL_FORMATS[] = {TensorFormat::kLINEAR, TensorFormat::kCHW2, TensorFormat::kHWC8,
    TensorFormat::kCHW4, TensorFormat::kCHW16, TensorFormat::kCHW32, TensorFormat::kDHWC8, TensorFormat::kCDHW32,
    TensorFormat::kHWC, TensorFormat::kHWC16, TensorFormat::kDHWC};

//! Upper bound on supportsFormatCombination calls per negotiation.
constexpr int64_t kMAX_FORMAT_CALLS = 20000;

constexpr int32_t kNB_POISONS = 5;

PluginTensorDesc makeDesc(nvinfer1::Dims const& dims, DataType type, TensorFormat format)
{
    PluginTensorDesc desc{};
    desc.dims = dims;
    desc.type = type;
    desc.format = format;
    desc.scale = type == DataType::kINT8 ? kCHECK_INT8_SCALE : -1.0F;
    return desc;
}

//! Poison descriptor `k` for position `pos` (k = 0 is also the filler used while negotiating).
PluginTensorDesc poisonDesc(int32_t k, ShapeModel const& shapes, int32_t pos)
{
    nvinfer1::Dims real = shapes.buildFormDims(pos);
    switch (k)
    {
    case 0: return makeDesc(real, DataType::kFLOAT, TensorFormat::kLINEAR);
    case 1:
    {
        nvinfer1::Dims dims = real;
        for (int32_t i = 0; i < dims.nbDims; ++i)
        {
            dims.d[i] = 3;
        }
        PluginTensorDesc d = makeDesc(dims, DataType::kINT8, TensorFormat::kCHW32);
        d.scale = 0.5F;
        return d;
    }
    case 2: return makeDesc(real, DataType::kHALF, TensorFormat::kHWC8);
    case 3: return makeDesc(nvinfer1::Dims{1, {7}}, DataType::kINT32, TensorFormat::kCHW4);
    default: return makeDesc(nvinfer1::Dims{0, {}}, DataType::kBOOL, TensorFormat::kLINEAR);
    }
}

std::string positionName(int32_t pos, int32_t nbInputs)
{
    return pos < nbInputs ? "input " + std::to_string(pos) : "output " + std::to_string(pos - nbInputs);
}

std::string prefixText(std::vector<PluginTensorDesc> const& io, int32_t end)
{
    std::string text;
    for (int32_t i = 0; i < end; ++i)
    {
        text += (i > 0 ? ", " : "") + descText(io[static_cast<size_t>(i)]);
    }
    return text.empty() ? "nothing" : text;
}

class Search
{
public:
    Search(PluginAdapter& plugin, ShapeModel const& shapes, CheckSpec const& spec, int32_t nbOutputs,
        std::vector<TensorFormat> formats)
        : mPlugin(plugin)
        , mShapes(shapes)
        , mSpec(spec)
        , mNbIn(spec.nbInputs())
        , mNbOut(nbOutputs)
        , mFormats(std::move(formats))
    {
        mIo.resize(static_cast<size_t>(mNbIn + mNbOut));
    }

    //! True when a combination was found; error() tells whether a plugin call failed.
    bool run() { return dfs(0); }
    Status const& error() const { return mError; }
    std::vector<PluginTensorDesc> const& io() const { return mIo; }
    std::string const& failure() const { return mFailure; }

private:
    std::vector<DataType> candidates(int32_t pos)
    {
        if (pos >= mNbIn)
        {
            return {mOutTypes[static_cast<size_t>(pos - mNbIn)]};
        }
        if (!mSpec.types.empty())
        {
            return {mSpec.types[static_cast<size_t>(pos)]};
        }
        return std::vector<DataType>(std::begin(kTYPE_ORDER), std::end(kTYPE_ORDER));
    }

    bool dfs(int32_t pos)
    {
        int32_t const n = mNbIn + mNbOut;
        if (pos == n)
        {
            return true;
        }
        if (pos == mNbIn)
        {
            std::vector<DataType> inTypes;
            for (int32_t i = 0; i < mNbIn; ++i)
            {
                inTypes.push_back(mIo[static_cast<size_t>(i)].type);
            }
            auto types = mPlugin.outputTypes(inTypes);
            if (!types.isOk())
            {
                mError = types.status();
                return false;
            }
            mOutTypes = types.value();
            if (static_cast<int32_t>(mOutTypes.size()) != mNbOut)
            {
                mError = internalError(mPlugin.label() + ": getOutputDataType(s) gave "
                    + std::to_string(mOutTypes.size()) + " types for " + std::to_string(mNbOut) + " outputs");
                return false;
            }
        }
        for (DataType type : candidates(pos))
        {
            for (TensorFormat format : mFormats)
            {
                if (++mCalls > kMAX_FORMAT_CALLS)
                {
                    mFailure = "gave up after " + std::to_string(kMAX_FORMAT_CALLS) + " supportsFormatCombination calls";
                    return false;
                }
                mIo[static_cast<size_t>(pos)] = makeDesc(mShapes.buildFormDims(pos), type, format);
                for (int32_t later = pos + 1; later < n; ++later)
                {
                    mIo[static_cast<size_t>(later)] = poisonDesc(0, mShapes, later);
                }
                auto accepted = mPlugin.supportsFormatCombination(pos, mIo, mNbIn);
                if (!accepted.isOk())
                {
                    mError = accepted.status();
                    return false;
                }
                if (accepted.value() && dfs(pos + 1))
                {
                    return true;
                }
                if (!mError.isOk() || mCalls > kMAX_FORMAT_CALLS)
                {
                    return false;
                }
            }
        }
        if (pos >= mDeepest)
        {
            mDeepest = pos;
            mFailure = "supportsFormatCombination accepted nothing at position " + std::to_string(pos) + " ("
                + positionName(pos, mNbIn) + ", tried " + triedText(pos) + ")"
                + (pos > 0 ? " after positions 0.." + std::to_string(pos - 1) + " = " + prefixText(mIo, pos)
                           : std::string());
        }
        return false;
    }

    std::string triedText(int32_t pos)
    {
        std::string types;
        for (DataType t : candidates(pos))
        {
            types += (types.empty() ? "" : "/") + std::string(dataTypeName(t));
        }
        return types + (mFormats.size() == 1 ? " kLINEAR" : " in every format");
    }

    PluginAdapter& mPlugin;
    ShapeModel const& mShapes;
    CheckSpec const& mSpec;
    int32_t mNbIn;
    int32_t mNbOut;
    std::vector<TensorFormat> mFormats;
    std::vector<PluginTensorDesc> mIo;
    std::vector<DataType> mOutTypes;
    int64_t mCalls{0};
    int32_t mDeepest{-1};
    Status mError;
    std::string mFailure;
};

} // namespace

StatusOr<Negotiation> negotiateFormats(
    PluginAdapter& plugin, ShapeModel const& shapes, CheckSpec const& spec, int32_t nbOutputs)
{
    Negotiation result;
    Search linear(plugin, shapes, spec, nbOutputs, {TensorFormat::kLINEAR});
    if (linear.run())
    {
        result.found = true;
        result.io = linear.io();
        return result;
    }
    KILN_RETURN_IF_ERROR(linear.error());
    result.failure = linear.failure();

    Search any(plugin, shapes, spec, nbOutputs,
        std::vector<TensorFormat>(std::begin(kALL_FORMATS), std::end(kALL_FORMATS)));
    if (any.run())
    {
        result.found = true;
        result.linear = false;
        result.io = any.io();
        return result;
    }
    KILN_RETURN_IF_ERROR(any.error());
    return result;
}

Status checkFormatReadsAhead(PluginAdapter& plugin, ShapeModel const& shapes, CheckSpec const& spec,
    Negotiation const& negotiation, CheckReport& report)
{
    int32_t const nbIn = spec.nbInputs();
    auto const n = static_cast<int32_t>(negotiation.io.size());
    for (int32_t pos = 0; pos + 1 < n; ++pos)
    {
        std::vector<PluginTensorDesc> io = negotiation.io;
        // The accepted descriptor, and the first rejected linear candidate, at this position.
        std::vector<PluginTensorDesc> probes{io[static_cast<size_t>(pos)]};
        for (DataType type : kTYPE_ORDER)
        {
            PluginTensorDesc candidate = makeDesc(shapes.buildFormDims(pos), type, TensorFormat::kLINEAR);
            io[static_cast<size_t>(pos)] = candidate;
            for (int32_t later = pos + 1; later < n; ++later)
            {
                io[static_cast<size_t>(later)] = poisonDesc(0, shapes, later);
            }
            KILN_ASSIGN_OR_RETURN(bool accepted, plugin.supportsFormatCombination(pos, io, nbIn));
            if (!accepted)
            {
                probes.push_back(candidate);
                break;
            }
        }
        bool reported = false;
        for (PluginTensorDesc const& probe : probes)
        {
            io[static_cast<size_t>(pos)] = probe;
            bool answers[kNB_POISONS] = {};
            for (int32_t k = 0; k < kNB_POISONS && !reported; ++k)
            {
                for (int32_t later = pos + 1; later < n; ++later)
                {
                    io[static_cast<size_t>(later)] = poisonDesc(k, shapes, later);
                }
                KILN_ASSIGN_OR_RETURN(answers[k], plugin.supportsFormatCombination(pos, io, nbIn));
                if (k > 0 && answers[k] != answers[0])
                {
                    std::vector<PluginTensorDesc> first = io;
                    for (int32_t later = pos + 1; later < n; ++later)
                    {
                        first[static_cast<size_t>(later)] = poisonDesc(0, shapes, later);
                    }
                    std::string later0;
                    std::string laterK;
                    for (int32_t later = pos + 1; later < n; ++later)
                    {
                        later0 += (later > pos + 1 ? ", " : "") + descText(first[static_cast<size_t>(later)]);
                        laterK += (later > pos + 1 ? ", " : "") + descText(io[static_cast<size_t>(later)]);
                    }
                    report.addFinding(PluginCheckRules::kFORMAT_READS_AHEAD,
                        plugin.label() + ": supportsFormatCombination(pos=" + std::to_string(pos) + ") for "
                            + positionName(pos, nbIn) + " = " + descText(probe) + " answered "
                            + (answers[0] ? "true" : "false") + " when positions " + std::to_string(pos + 1) + ".."
                            + std::to_string(n - 1) + " held " + later0 + ", but " + (answers[k] ? "true" : "false")
                            + " when they held " + laterK
                            + (pos > 0 ? " (positions 0.." + std::to_string(pos - 1) + " = " + prefixText(io, pos) + ")"
                                       : std::string())
                            + "; it must only look at inOut[0..pos], the later positions are not decided yet",
                        "pos" + std::to_string(pos));
                    reported = true;
                }
            }
        }
    }
    report.markChecked(PluginCheckRules::kFORMAT_READS_AHEAD);
    return Status::ok();
}

} // namespace kiln::checker
