// Format/type negotiation of plugin nodes: see pluginNegotiation.h.
#include "builder/pluginNegotiation.h"

#include "core/dataType.h"
#include "core/tensorFormat.h"

#include <algorithm>
#include <map>

namespace kiln
{
using nvinfer1::DataType;
using nvinfer1::DynamicPluginTensorDesc;
using nvinfer1::TensorFormat;

std::vector<TensorFormat> const& candidateFormats()
{
    static std::vector<TensorFormat> const formats{TensorFormat::kLINEAR, TensorFormat::kCHW4, TensorFormat::kCHW32,
        TensorFormat::kHWC8, TensorFormat::kHWC, TensorFormat::kCHW2, TensorFormat::kCHW16, TensorFormat::kDHWC8,
        TensorFormat::kCDHW32, TensorFormat::kDHWC, TensorFormat::kHWC16};
    return formats;
}

std::string typeFormatName(DataType type, TensorFormat format)
{
    return std::string(dataTypeName(type)) + "/" + formatName(format);
}

namespace
{

struct PositionLog
{
    std::vector<std::string> rejected;
    std::vector<std::string> accepted;
    void add(std::vector<std::string>& list, std::string const& what)
    {
        if (std::find(list.begin(), list.end(), what) == list.end())
        {
            list.push_back(what);
        }
    }
};

std::string joinLimited(std::vector<std::string> const& items, size_t limit)
{
    std::string out;
    for (size_t i = 0; i < items.size() && i < limit; ++i)
    {
        out += (i ? ", " : "") + items[i];
    }
    if (items.size() > limit)
    {
        out += " and " + std::to_string(items.size() - limit) + " more";
    }
    return out;
}

class Negotiator
{
public:
    Negotiator(PluginAdapter& plugin, std::vector<NegotiationTensor> const& inputs,
        std::vector<NegotiationTensor> const& outputs, bool stronglyTyped)
        : mPlugin(plugin)
        , mInputs(inputs)
        , mOutputs(outputs)
        , mStronglyTyped(stronglyTyped)
        , mNbIn(static_cast<int32_t>(inputs.size()))
        , mN(static_cast<int32_t>(inputs.size() + outputs.size()))
        , mDescs(static_cast<size_t>(mN))
        , mLog(static_cast<size_t>(mN))
        , mLimit(plugin.formatCombinationLimit())
    {
        for (int32_t p = 0; p < mN; ++p)
        {
            poison(p);
        }
    }

    StatusOr<NegotiationResult> run()
    {
        if (search(0))
        {
            NegotiationResult r;
            for (DynamicPluginTensorDesc const& d : mDescs)
            {
                r.types.push_back(d.desc.type);
                r.formats.push_back(d.desc.format);
            }
            r.calls = mCalls;
            return r;
        }
        if (!mAbort.isOk())
        {
            return mAbort;
        }
        std::string msg = mPlugin.label() + ": supportsFormatCombination accepted no combination of types and formats";
        int32_t reached = 0;
        for (int32_t p = 0; p < mN; ++p)
        {
            PositionLog const& log = mLog[static_cast<size_t>(p)];
            if (log.rejected.empty() && log.accepted.empty())
            {
                break;
            }
            reached = p + 1;
            msg += "; position " + std::to_string(p) + " (" + positionName(p) + ")";
            if (!log.rejected.empty())
            {
                msg += " rejected " + joinLimited(log.rejected, 12);
            }
            if (!log.accepted.empty())
            {
                msg += (log.rejected.empty() ? " accepted " : ", accepted ") + joinLimited(log.accepted, 12);
            }
        }
        if (reached < mN)
        {
            msg += "; positions " + std::to_string(reached) + ".." + std::to_string(mN - 1) + " were never reached";
        }
        return invalidArgument(msg);
    }

private:
    std::string positionName(int32_t p) const
    {
        return p < mNbIn ? "input '" + mInputs[static_cast<size_t>(p)].name + "'"
                         : "output '" + mOutputs[static_cast<size_t>(p - mNbIn)].name + "'";
    }

    NegotiationTensor const& tensor(int32_t p) const
    {
        return p < mNbIn ? mInputs[static_cast<size_t>(p)] : mOutputs[static_cast<size_t>(p - mNbIn)];
    }

    void poison(int32_t p)
    {
        DynamicPluginTensorDesc& d = mDescs[static_cast<size_t>(p)];
        d.desc.dims = tensor(p).dims;
        d.desc.type = DataType::kFLOAT;
        d.desc.format = TensorFormat::kLINEAR;
        d.desc.scale = -1.0F;
        d.min = tensor(p).min;
        d.opt = tensor(p).opt;
        d.max = tensor(p).max;
    }

    std::vector<TensorFormat> formatsFor(int32_t p, TensorFormat first) const
    {
        std::vector<TensorFormat> out;
        FormatLayout layout;
        int32_t const rank = tensor(p).dims.nbDims;
        if (formatLayout(first, rank, layout))
        {
            out.push_back(first);
        }
        for (TensorFormat f : candidateFormats())
        {
            if (f != first && formatLayout(f, rank, layout))
            {
                out.push_back(f);
            }
        }
        return out;
    }

    std::vector<DataType> inputTypes(int32_t p) const
    {
        NegotiationTensor const& t = tensor(p);
        std::vector<DataType> out{t.type};
        if (mStronglyTyped)
        {
            return out;
        }
        for (DataType c : {DataType::kFLOAT, DataType::kHALF, DataType::kBF16, DataType::kINT8, DataType::kINT32,
                 DataType::kINT64, DataType::kBOOL, DataType::kUINT8})
        {
            if (c == DataType::kINT8 && !t.int8Candidate)
            {
                continue;
            }
            if (std::find(out.begin(), out.end(), c) == out.end())
            {
                out.push_back(c);
            }
        }
        return out;
    }

    //! Output types for the input types chosen so far (asked once per distinct input-type combination).
    bool outputTypes(std::vector<DataType>& out)
    {
        std::vector<DataType> in;
        for (int32_t p = 0; p < mNbIn; ++p)
        {
            in.push_back(mDescs[static_cast<size_t>(p)].desc.type);
        }
        auto it = mOutputTypes.find(in);
        if (it == mOutputTypes.end())
        {
            auto types = mPlugin.outputTypes(in);
            if (!types.isOk())
            {
                mAbort = types.status();
                return false;
            }
            if (types->size() != mOutputs.size())
            {
                mAbort = invalidArgument(mPlugin.label() + ": getOutputDataType(s) gave "
                    + std::to_string(types->size()) + " types for " + std::to_string(mOutputs.size()) + " outputs");
                return false;
            }
            it = mOutputTypes.emplace(in, *types).first;
        }
        out = it->second;
        return true;
    }

    bool search(int32_t pos)
    {
        if (pos == mN)
        {
            return true;
        }
        std::vector<std::pair<DataType, TensorFormat>> candidates;
        if (pos < mNbIn)
        {
            for (DataType t : inputTypes(pos))
            {
                for (TensorFormat f : formatsFor(pos, tensor(pos).format))
                {
                    candidates.emplace_back(t, f);
                }
            }
        }
        else
        {
            std::vector<DataType> types;
            if (!outputTypes(types))
            {
                return false;
            }
            for (TensorFormat f : formatsFor(pos, tensor(pos).format))
            {
                candidates.emplace_back(types[static_cast<size_t>(pos - mNbIn)], f);
            }
        }
        PositionLog& log = mLog[static_cast<size_t>(pos)];
        for (auto const& [type, format] : candidates)
        {
            poison(pos);
            DynamicPluginTensorDesc& d = mDescs[static_cast<size_t>(pos)];
            d.desc.type = type;
            d.desc.format = format;
            d.desc.scale = type == DataType::kINT8 ? tensor(pos).int8Scale : -1.0F;
            for (int32_t k = pos + 1; k < mN; ++k)
            {
                poison(k);
            }
            ++mCalls;
            auto ok = mPlugin.supportsFormatCombinationDynamic(pos, mDescs, mNbIn);
            if (!ok.isOk())
            {
                mAbort = ok.status();
                return false;
            }
            std::string const what = typeFormatName(type, format);
            if (!*ok)
            {
                log.add(log.rejected, what);
                continue;
            }
            log.add(log.accepted, what);
            if (++mAccepted > mLimit)
            {
                mAbort = invalidArgument(mPlugin.label() + ": supportsFormatCombination accepted "
                    + std::to_string(mAccepted) + " partial combinations without completing one, more than its "
                    + "format combination limit of " + std::to_string(mLimit) + " (getFormatCombinationLimit)");
                return false;
            }
            if (search(pos + 1))
            {
                return true;
            }
            if (!mAbort.isOk())
            {
                return false;
            }
        }
        poison(pos);
        return false;
    }

    PluginAdapter& mPlugin;
    std::vector<NegotiationTensor> const& mInputs;
    std::vector<NegotiationTensor> const& mOutputs;
    bool mStronglyTyped;
    int32_t mNbIn;
    int32_t mN;
    std::vector<DynamicPluginTensorDesc> mDescs;
    std::vector<PositionLog> mLog;
    std::map<std::vector<DataType>, std::vector<DataType>> mOutputTypes;
    int32_t mLimit;
    int32_t mAccepted{0};
    int32_t mCalls{0};
    Status mAbort;
};

} // namespace

StatusOr<NegotiationResult> negotiateFormats(PluginAdapter& plugin, std::vector<NegotiationTensor> const& inputs,
    std::vector<NegotiationTensor> const& outputs, bool stronglyTyped)
{
    Negotiator n(plugin, inputs, outputs, stronglyTyped);
    return n.run();
}

} // namespace kiln
