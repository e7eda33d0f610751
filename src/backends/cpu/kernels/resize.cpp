// CPU kernel of IResizeLayer, following ONNX Resize: per dimension, each output coordinate maps to an input
// coordinate (coordinate transformation, single-pixel selector), which gives a list of taps (input index and
// weight): one for nearest, two for linear, four for cubic; indices outside the input are clamped to the edge
// (or, with exclude-outside, dropped and the weights renormalized). An output element is the sum over the
// product of the taps of every dimension. Nearest resizing copies bytes, so every type stays exact.
#include "backends/common/resizeParams.h"
#include "backends/cpu/kernels/indexing.h"
#include "backends/cpu/kernels/kernelFactories.h"
#include "core/dataType.h"

#include <cmath>
#include <algorithm>
#include <array>
#include <cstring>

namespace kiln
{
using nvinfer1::DataType;
using nvinfer1::InterpolationMode;
using nvinfer1::ResizeRoundMode;

namespace
{

struct Tap
{
    int64_t offset; // input index times the dimension's stride
    double weight;
};

std::vector<Tap> tapsFor(ResizeParams const& p, double x, int64_t inLen, int64_t stride)
{
    std::vector<Tap> taps;
    if (p.mode == InterpolationMode::kNEAREST)
    {
        double r = 0.0;
        switch (p.rounding)
        {
        case ResizeRoundMode::kHALF_UP: r = std::floor(x + 0.5); break;
        case ResizeRoundMode::kHALF_DOWN: r = std::ceil(x - 0.5); break;
        case ResizeRoundMode::kCEIL: r = std::ceil(x); break;
        case ResizeRoundMode::kFLOOR:
        default: r = std::floor(x); break;
        }
        r = std::fmin(std::fmax(r, -1.0), static_cast<double>(inLen));
        taps.push_back({resizeClampIndex(static_cast<int64_t>(r), inLen) * stride, 1.0});
        return taps;
    }
    x = std::fmin(std::fmax(x, -4.0), static_cast<double>(inLen) + 4.0);
    double const base = std::floor(x);
    double const frac = x - base;
    auto const first = static_cast<int64_t>(base);
    std::vector<std::pair<int64_t, double>> raw;
    if (p.mode == InterpolationMode::kLINEAR)
    {
        raw = {{first, 1.0 - frac}, {first + 1, frac}};
    }
    else
    {
        for (int64_t k = -1; k <= 2; ++k)
        {
            raw.emplace_back(first + k, resizeCubicWeight(frac - static_cast<double>(k), p.cubicA));
        }
    }
    double sum = 0.0;
    for (auto& [idx, w] : raw)
    {
        if (p.excludeOutside && (idx < 0 || idx >= inLen))
        {
            w = 0.0;
        }
        sum += w;
    }
    for (auto const& [idx, w] : raw)
    {
        if (w == 0.0)
        {
            continue;
        }
        double const weight = p.excludeOutside && sum != 0.0 ? w / sum : w;
        int64_t const at = resizeClampIndex(idx, inLen) * stride;
        bool merged = false;
        for (Tap& t : taps)
        {
            if (t.offset == at)
            {
                t.weight += weight;
                merged = true;
            }
        }
        if (!merged)
        {
            taps.push_back({at, weight});
        }
    }
    if (taps.empty())
    {
        taps.push_back({resizeClampIndex(first, inLen) * stride, 0.0});
    }
    return taps;
}

//! create: the interpolation attributes and static scales; reshape: the checks, the input strides and, unless the
//! scales come from a FLOAT input, the taps of every output coordinate; run: the sums. Scales given by an input are
//! read at each run; the taps are rebuilt when their values differ from those of the last run.
class ResizeKernel final : public Kernel
{
public:
    ResizeKernel(KernelSetup const& setup, ResizeAttrs attrs)
        : mSetup(setup)
        , mAttrs(std::move(attrs))
    {
    }

    Status reshape(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs) override
    {
        mState = State::kNONE;
        if (inputs.empty() || outputs.size() != 1)
        {
            return internalError("resize: expected a data input and one output");
        }
        TensorView const& in = inputs[0];
        TensorView const& out = outputs[0];
        int32_t const rank = in.dims.nbDims;
        if (out.dims.nbDims != rank || in.type != out.type)
        {
            return internalError("resize: output rank or type differs from the input");
        }
        mScalesFromInput = inputs.size() > 1 && inputs[1].type == DataType::kFLOAT && inputs[1].volume() == rank;
        if (!mScalesFromInput && !mAttrs.scales.empty() && static_cast<int32_t>(mAttrs.scales.size()) != rank)
        {
            return invalidArgument("resize: scale count differs from the rank");
        }
        mInDims = in.dims;
        mOutDims = out.dims;
        mOutVolume = out.volume();
        if (mOutVolume > 0)
        {
            for (int32_t d = 0; d < rank; ++d)
            {
                if (in.dims.d[d] == 0)
                {
                    return invalidArgument("resize: dimension " + std::to_string(d) + " is empty but its output is not");
                }
            }
        }
        mTapsScales.clear();
        if (mOutVolume > 0 && !mScalesFromInput)
        {
            buildTaps(mAttrs.scales);
        }
        mState = State::kREADY;
        return Status::ok();
    }

    Status run(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs, RunContext const&) override
    {
        if (mState == State::kNONE)
        {
            return notReshaped(mSetup, "Resize");
        }
        if (mOutVolume == 0)
        {
            return Status::ok();
        }
        TensorView const& in = inputs[0];
        TensorView const& out = outputs[0];
        int32_t const rank = mInDims.nbDims;
        if (mScalesFromInput)
        {
            std::array<double, nvinfer1::Dims::MAX_DIMS> scales{};
            bool same = mTapsScales.size() == static_cast<size_t>(rank);
            for (int32_t i = 0; i < rank; ++i)
            {
                scales[static_cast<size_t>(i)] = loadElement(inputs[1].data, DataType::kFLOAT, i);
                same = same && mTapsScales[static_cast<size_t>(i)] == scales[static_cast<size_t>(i)];
            }
            if (!same)
            {
                buildTaps(std::vector<double>(scales.begin(), scales.begin() + rank)); // new scale values only
            }
        }
        auto const* src = static_cast<uint8_t const*>(in.data);
        auto* dst = static_cast<uint8_t*>(out.data);
        size_t const eb = static_cast<size_t>(elementSize(in.type));
        bool const nearest = mAttrs.params.mode == InterpolationMode::kNEAREST;
        DimArray coord{};
        std::array<size_t, nvinfer1::Dims::MAX_DIMS> pick{};
        for (int64_t o = 0; o < mOutVolume; ++o)
        {
            if (nearest)
            {
                int64_t offset = 0;
                for (int32_t d = 0; d < rank; ++d)
                {
                    offset += tapsAt(d, coord)[0].offset;
                }
                std::memcpy(dst + static_cast<size_t>(o) * eb, src + static_cast<size_t>(offset) * eb, eb);
            }
            else
            {
                // Sum over every combination of taps (odometer over the per-dimension tap lists).
                pick.fill(0);
                double acc = 0.0;
                while (true)
                {
                    int64_t offset = 0;
                    double weight = 1.0;
                    for (int32_t d = 0; d < rank; ++d)
                    {
                        Tap const& t = tapsAt(d, coord)[pick[static_cast<size_t>(d)]];
                        offset += t.offset;
                        weight *= t.weight;
                    }
                    acc += weight * loadElement(in.data, in.type, offset);
                    int32_t d = rank - 1;
                    for (; d >= 0; --d)
                    {
                        size_t const du = static_cast<size_t>(d);
                        if (++pick[du] < tapsAt(d, coord).size())
                        {
                            break;
                        }
                        pick[du] = 0;
                    }
                    if (d < 0)
                    {
                        break;
                    }
                }
                storeElement(out.data, out.type, o, acc);
            }
            advanceCoordinate(coord, mOutDims, rank);
        }
        return Status::ok();
    }

private:
    enum class State
    {
        kNONE,  //!< not reshaped
        kREADY, //!< reshaped (taps built, or built at the first run when the scales come from an input)
    };

    std::vector<Tap> const& tapsAt(int32_t d, DimArray const& coord) const
    {
        return mTaps[static_cast<size_t>(d)][static_cast<size_t>(coord[static_cast<size_t>(d)])];
    }

    //! The taps of every output coordinate of every dimension for `scales` (empty: from the extents).
    void buildTaps(std::vector<double> const& scales)
    {
        int32_t const rank = mInDims.nbDims;
        std::vector<int64_t> const strides = contiguousStrides(mInDims);
        mTaps.assign(static_cast<size_t>(rank), {});
        for (int32_t d = 0; d < rank; ++d)
        {
            int64_t const inLen = mInDims.d[d];
            int64_t const outLen = mOutDims.d[d];
            double const scale = scales.empty() ? 0.0 : scales[static_cast<size_t>(d)];
            auto& list = mTaps[static_cast<size_t>(d)];
            list.resize(static_cast<size_t>(outLen));
            for (int64_t o = 0; o < outLen; ++o)
            {
                double const x = resizeSourceCoordinate(mAttrs.params, o, inLen, outLen, scale);
                list[static_cast<size_t>(o)] = tapsFor(mAttrs.params, x, inLen, strides[static_cast<size_t>(d)]);
            }
        }
        mTapsScales = scales;
    }

    KernelSetup mSetup;
    ResizeAttrs mAttrs;
    State mState{State::kNONE};
    bool mScalesFromInput{false}; //!< input 1 holds FLOAT scales, read at each run
    nvinfer1::Dims mInDims{};
    nvinfer1::Dims mOutDims{};
    int64_t mOutVolume{0};
    std::vector<std::vector<std::vector<Tap>>> mTaps; //!< [dimension][output coordinate] -> taps
    std::vector<double> mTapsScales;                  //!< the scales mTaps were built for (input scales)
};

} // namespace

StatusOr<std::unique_ptr<Kernel>> createResizeKernel(KernelSetup const& setup)
{
    KILN_ASSIGN_OR_RETURN(ResizeAttrs attrs, readResizeAttrs(setup));
    if (setup.inputTypes.empty() || setup.outputTypes.size() != 1 || elementSize(setup.inputTypes[0]) <= 0)
    {
        return internalError("resize: missing buffer or unsupported type");
    }
    return std::unique_ptr<Kernel>(std::make_unique<ResizeKernel>(setup, std::move(attrs)));
}

} // namespace kiln
