// CPU kernel of IResizeLayer, following ONNX Resize: per dimension, each output coordinate maps to an input
// coordinate (coordinate transformation, single-pixel selector), which gives a list of taps (input index and
// weight): one for nearest, two for linear, four for cubic; indices outside the input are clamped to the edge
// (or, with exclude-outside, dropped and the weights renormalized). An output element is the sum over the
// product of the taps of every dimension. Nearest resizing copies bytes, so every type stays exact.
#include "backends/cpu/kernels/kernelFactories.h"
#include "core/dataType.h"

#include <cmath>
#include <algorithm>
#include <cstring>

namespace kiln
{
using nvinfer1::DataType;
using nvinfer1::InterpolationMode;
using nvinfer1::ResizeCoordinateTransformation;
using nvinfer1::ResizeRoundMode;
using nvinfer1::ResizeSelector;

namespace
{

struct Tap
{
    int64_t offset; // input index times the dimension's stride
    double weight;
};

struct ResizeParams
{
    InterpolationMode mode{InterpolationMode::kNEAREST};
    ResizeCoordinateTransformation transform{ResizeCoordinateTransformation::kASYMMETRIC};
    ResizeSelector selector{ResizeSelector::kFORMULA};
    ResizeRoundMode rounding{ResizeRoundMode::kFLOOR};
    double cubicA{-0.75};
    bool excludeOutside{false};
};

double cubicWeight(double t, double a)
{
    t = std::fabs(t);
    if (t <= 1.0)
    {
        return ((a + 2.0) * t - (a + 3.0)) * t * t + 1.0;
    }
    if (t < 2.0)
    {
        return ((a * t - 5.0 * a) * t + 8.0 * a) * t - 4.0 * a;
    }
    return 0.0;
}

//! Input coordinate of output coordinate `o` along a dimension (inLen -> outLen); `scale` > 0 when given.
double sourceCoordinate(ResizeParams const& p, int64_t o, int64_t inLen, int64_t outLen, double scale)
{
    if (outLen == 1 && p.selector == ResizeSelector::kUPPER)
    {
        return 0.0;
    }
    double const x = static_cast<double>(o);
    switch (p.transform)
    {
    case ResizeCoordinateTransformation::kALIGN_CORNERS:
    {
        // ONNX: the resized length is in * scale (not rounded) when the size came from scales.
        double const resized = scale > 0.0 ? static_cast<double>(inLen) * scale : static_cast<double>(outLen);
        return resized == 1.0 ? 0.0 : x * static_cast<double>(inLen - 1) / (resized - 1.0);
    }
    case ResizeCoordinateTransformation::kHALF_PIXEL:
        return scale > 0.0 ? (x + 0.5) / scale - 0.5
                           : (x + 0.5) * static_cast<double>(inLen) / static_cast<double>(outLen) - 0.5;
    case ResizeCoordinateTransformation::kASYMMETRIC:
    default:
        return scale > 0.0 ? x / scale : x * static_cast<double>(inLen) / static_cast<double>(outLen);
    }
}

int64_t clampIndex(int64_t i, int64_t n)
{
    return i < 0 ? 0 : (i >= n ? n - 1 : i);
}

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
        taps.push_back({clampIndex(static_cast<int64_t>(r), inLen) * stride, 1.0});
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
            raw.emplace_back(first + k, cubicWeight(frac - static_cast<double>(k), p.cubicA));
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
        int64_t const at = clampIndex(idx, inLen) * stride;
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
        taps.push_back({clampIndex(first, inLen) * stride, 0.0});
    }
    return taps;
}

class ResizeKernel final : public CpuKernel
{
public:
    ResizeKernel(ResizeParams params, std::vector<double> scales)
        : mParams(params)
        , mScales(std::move(scales))
    {
    }

    Status execute(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs) override
    {
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
        std::vector<double> scales = mScales;
        if (inputs.size() > 1 && inputs[1].type == DataType::kFLOAT && inputs[1].volume() == rank)
        {
            if (inputs[1].data == nullptr)
            {
                return internalError("resize: the scales input has no data");
            }
            scales.clear();
            for (int32_t i = 0; i < rank; ++i)
            {
                scales.push_back(loadElement(inputs[1].data, DataType::kFLOAT, i));
            }
        }
        if (!scales.empty() && static_cast<int32_t>(scales.size()) != rank)
        {
            return invalidArgument("resize: scale count differs from the rank");
        }
        int64_t const outVolume = out.volume();
        if (outVolume == 0)
        {
            return Status::ok();
        }
        for (int32_t d = 0; d < rank; ++d)
        {
            if (in.dims.d[d] == 0)
            {
                return invalidArgument("resize: dimension " + std::to_string(d) + " is empty but its output is not");
            }
        }
        int64_t const bytes = elementSize(in.type);
        if (bytes <= 0 || in.data == nullptr || out.data == nullptr)
        {
            return internalError("resize: missing buffer or unsupported type");
        }
        std::vector<int64_t> const strides = contiguousStrides(in.dims);
        std::vector<std::vector<std::vector<Tap>>> taps(static_cast<size_t>(rank));
        for (int32_t d = 0; d < rank; ++d)
        {
            int64_t const inLen = in.dims.d[d];
            int64_t const outLen = out.dims.d[d];
            double const scale = scales.empty() ? 0.0 : scales[static_cast<size_t>(d)];
            auto& list = taps[static_cast<size_t>(d)];
            list.resize(static_cast<size_t>(outLen));
            for (int64_t o = 0; o < outLen; ++o)
            {
                double const x = sourceCoordinate(mParams, o, inLen, outLen, scale);
                list[static_cast<size_t>(o)] = tapsFor(mParams, x, inLen, strides[static_cast<size_t>(d)]);
            }
        }

        auto const* src = static_cast<uint8_t const*>(in.data);
        auto* dst = static_cast<uint8_t*>(out.data);
        size_t const eb = static_cast<size_t>(bytes);
        bool const nearest = mParams.mode == InterpolationMode::kNEAREST;
        std::vector<int64_t> coord(static_cast<size_t>(rank), 0);
        std::vector<size_t> pick(static_cast<size_t>(rank), 0);
        for (int64_t o = 0; o < outVolume; ++o)
        {
            if (nearest)
            {
                int64_t offset = 0;
                for (int32_t d = 0; d < rank; ++d)
                {
                    offset += taps[static_cast<size_t>(d)][static_cast<size_t>(coord[static_cast<size_t>(d)])][0].offset;
                }
                std::memcpy(dst + static_cast<size_t>(o) * eb, src + static_cast<size_t>(offset) * eb, eb);
            }
            else
            {
                // Sum over every combination of taps (odometer over the per-dimension tap lists).
                std::fill(pick.begin(), pick.end(), 0);
                double acc = 0.0;
                while (true)
                {
                    int64_t offset = 0;
                    double weight = 1.0;
                    for (int32_t d = 0; d < rank; ++d)
                    {
                        Tap const& t = taps[static_cast<size_t>(d)][static_cast<size_t>(coord[static_cast<size_t>(d)])]
                                           [pick[static_cast<size_t>(d)]];
                        offset += t.offset;
                        weight *= t.weight;
                    }
                    acc += weight * loadElement(in.data, in.type, offset);
                    int32_t d = rank - 1;
                    for (; d >= 0; --d)
                    {
                        size_t const du = static_cast<size_t>(d);
                        if (++pick[du] < taps[du][static_cast<size_t>(coord[du])].size())
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
            for (int32_t d = rank; d-- > 0;)
            {
                size_t const du = static_cast<size_t>(d);
                if (++coord[du] < out.dims.d[d])
                {
                    break;
                }
                coord[du] = 0;
            }
        }
        return Status::ok();
    }

private:
    ResizeParams mParams;
    std::vector<double> mScales;
};

} // namespace

StatusOr<std::unique_ptr<CpuKernel>> createResizeKernel(KernelSetup const& setup)
{
    if (setup.node == nullptr)
    {
        return internalError("resize: no plan node");
    }
    Attributes const& attrs = setup.node->attrs;
    ResizeParams p;
    KILN_ASSIGN_OR_RETURN(int64_t const mode, attrs.requireInt("mode"));
    KILN_ASSIGN_OR_RETURN(int64_t const transform, attrs.requireInt("coord_transform"));
    KILN_ASSIGN_OR_RETURN(int64_t const selector, attrs.requireInt("selector"));
    KILN_ASSIGN_OR_RETURN(int64_t const rounding, attrs.requireInt("nearest_rounding"));
    KILN_ASSIGN_OR_RETURN(p.cubicA, attrs.requireFloat("cubic_coeff"));
    KILN_ASSIGN_OR_RETURN(int64_t const exclude, attrs.requireInt("exclude_outside"));
    if (mode < 0 || mode >= nvinfer1::EnumMax<InterpolationMode>() || transform < 0
        || transform >= nvinfer1::EnumMax<ResizeCoordinateTransformation>() || selector < 0
        || selector >= nvinfer1::EnumMax<ResizeSelector>() || rounding < 0
        || rounding >= nvinfer1::EnumMax<ResizeRoundMode>())
    {
        return invalidArgument("resize: an enumeration attribute is out of range");
    }
    p.mode = static_cast<InterpolationMode>(mode);
    p.transform = static_cast<ResizeCoordinateTransformation>(transform);
    p.selector = static_cast<ResizeSelector>(selector);
    p.rounding = static_cast<ResizeRoundMode>(rounding);
    p.excludeOutside = exclude != 0;
    std::vector<double> scales = attrs.has("scales") ? attrs.getFloats("scales") : std::vector<double>{};
    return std::unique_ptr<CpuKernel>(std::make_unique<ResizeKernel>(p, std::move(scales)));
}

} // namespace kiln
