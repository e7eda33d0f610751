// CPU reference kernel of IGridSampleLayer (4-D): for every output pixel, the grid's normalized (x, y) in [-1, 1] is
// mapped to input coordinates (alignCorners: -1 and 1 are the centres of the corner pixels; otherwise their outer
// edges), then sampled with nearest (round half to even), bilinear or bicubic (Keys, a = -0.75) interpolation.
// Out-of-range locations follow the sample mode: kFILL reads zeros, kCLAMP clamps to the border, kREFLECT reflects
// at the borders. This matches ONNX GridSample (and PyTorch grid_sample) semantics. Arithmetic is in FP32.
#include "backends/common/gridSampleParams.h"
#include "backends/cpu/kernels/kernelFactories.h"
#include "core/dataType.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

namespace kiln
{
namespace
{
using nvinfer1::InterpolationMode;
using nvinfer1::SampleMode;

float denormalize(float n, int64_t length, bool alignCorners)
{
    float const len = static_cast<float>(length);
    return alignCorners ? (n + 1.0F) / 2.0F * (len - 1.0F) : ((n + 1.0F) * len - 1.0F) / 2.0F;
}

//! Reflect x at lo and hi until it lies in [lo, hi].
float reflect(float x, float lo, float hi)
{
    float const range = hi - lo;
    if (!(range > 0.0F))
    {
        return lo;
    }
    if (x < lo)
    {
        float const dx = lo - x;
        auto const n = static_cast<int64_t>(dx / range);
        float const r = dx - static_cast<float>(n) * range;
        return n % 2 == 0 ? lo + r : hi - r;
    }
    if (x > hi)
    {
        float const dx = x - hi;
        auto const n = static_cast<int64_t>(dx / range);
        float const r = dx - static_cast<float>(n) * range;
        return n % 2 == 0 ? hi - r : lo + r;
    }
    return x;
}

struct Axis
{
    int64_t size{0};
    float lo{0.0F}; // border used by reflection
    float hi{0.0F};
};

//! Index `i` along `axis` after padding; -1 means "reads zero" (kFILL out of range).
int64_t padIndex(int64_t i, Axis const& axis, SampleMode mode)
{
    if (i >= 0 && i < axis.size)
    {
        return i;
    }
    switch (mode)
    {
    case SampleMode::kCLAMP: return std::clamp<int64_t>(i, 0, axis.size - 1);
    case SampleMode::kREFLECT:
    {
        auto const r = static_cast<int64_t>(reflect(static_cast<float>(i), axis.lo, axis.hi));
        return std::clamp<int64_t>(r, 0, axis.size - 1);
    }
    default: return -1;
    }
}

//! Coordinate adjustment before interpolation: out-of-border coordinates are clamped or reflected.
float adjust(float v, Axis const& axis, SampleMode mode)
{
    if (v >= axis.lo && v <= axis.hi)
    {
        return v;
    }
    if (mode == SampleMode::kCLAMP)
    {
        return std::clamp(v, 0.0F, static_cast<float>(axis.size - 1));
    }
    if (mode == SampleMode::kREFLECT)
    {
        return reflect(v, axis.lo, axis.hi);
    }
    return v;
}

void cubicCoefficients(float t, std::array<float, 4>& c)
{
    float const a = -0.75F;
    t = std::fabs(t);
    float const t1 = t + 1.0F;
    float const t2 = 1.0F - t;
    float const t3 = 2.0F - t;
    c[0] = ((a * t1 - 5.0F * a) * t1 + 8.0F * a) * t1 - 4.0F * a;
    c[1] = ((a + 2.0F) * t - (a + 3.0F)) * t * t + 1.0F;
    c[2] = ((a + 2.0F) * t2 - (a + 3.0F)) * t2 * t2 + 1.0F;
    c[3] = ((a * t3 - 5.0F * a) * t3 + 8.0F * a) * t3 - 4.0F * a;
}

//! create: interpolation, sample mode and corner alignment; reshape: the geometry, the border of each axis and the
//! float copy of the input; run: the sampling.
class GridSampleKernel final : public Kernel
{
public:
    explicit GridSampleKernel(KernelSetup const& setup)
        : mSetup(setup)
        , mParams(readGridSampleParams(setup))
    {
    }

    Status reshape(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs) override
    {
        mReady = false;
        KILN_RETURN_IF_ERROR(gridSampleShapes(mSetup, mParams, inputs, outputs));
        bool const align = mParams.alignCorners;
        int64_t const h = mParams.h;
        int64_t const w = mParams.w;
        mAxisY = Axis{h, align ? 0.0F : -0.5F, align ? static_cast<float>(h - 1) : static_cast<float>(h) - 0.5F};
        mAxisX = Axis{w, align ? 0.0F : -0.5F, align ? static_cast<float>(w - 1) : static_cast<float>(w) - 0.5F};
        mOutVolume = outputs[0].volume();
        mData.resize(static_cast<size_t>(inputs[0].volume()));
        mReady = true;
        return Status::ok();
    }

    Status run(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs, RunContext const&) override
    {
        if (!mReady)
        {
            return notReshaped(mSetup, "GridSample");
        }
        if (mOutVolume == 0)
        {
            return Status::ok();
        }
        TensorView const& in = inputs[0];
        TensorView const& grid = inputs[1];
        TensorView const& out = outputs[0];
        InterpolationMode const mode = mParams.mode;
        SampleMode const sample = mParams.sample;
        bool const alignCorners = mParams.alignCorners;
        int64_t const n = mParams.n;
        int64_t const c = mParams.c;
        int64_t const h = mParams.h;
        int64_t const w = mParams.w;
        int64_t const ho = mParams.ho;
        int64_t const wo = mParams.wo;
        Axis const& ay = mAxisY;
        Axis const& ax = mAxisX;
        for (size_t i = 0; i < mData.size(); ++i)
        {
            mData[i] = static_cast<float>(loadElement(in.data, in.type, static_cast<int64_t>(i)));
        }
        float const* data = mData.data();
        for (int64_t b = 0; b < n; ++b)
        {
            for (int64_t oy = 0; oy < ho; ++oy)
            {
                for (int64_t ox = 0; ox < wo; ++ox)
                {
                    int64_t const g = ((b * ho + oy) * wo + ox) * 2;
                    float x = denormalize(static_cast<float>(loadElement(grid.data, grid.type, g)), w, alignCorners);
                    float y = denormalize(static_cast<float>(loadElement(grid.data, grid.type, g + 1)), h, alignCorners);
                    if (mode == InterpolationMode::kNEAREST)
                    {
                        x = std::nearbyint(x);
                        y = std::nearbyint(y);
                    }
                    x = adjust(x, ax, sample);
                    y = adjust(y, ay, sample);
                    // Taps along each axis: (index after padding or -1 for zero, weight).
                    std::array<int64_t, 4> ix{};
                    std::array<int64_t, 4> iy{};
                    std::array<float, 4> wx{};
                    std::array<float, 4> wy{};
                    int32_t taps = 1;
                    if (mode == InterpolationMode::kNEAREST)
                    {
                        ix[0] = padIndex(static_cast<int64_t>(x), ax, sample);
                        iy[0] = padIndex(static_cast<int64_t>(y), ay, sample);
                        wx[0] = 1.0F;
                        wy[0] = 1.0F;
                    }
                    else
                    {
                        float const fx = std::floor(x);
                        float const fy = std::floor(y);
                        auto const x0 = static_cast<int64_t>(fx);
                        auto const y0 = static_cast<int64_t>(fy);
                        if (mode == InterpolationMode::kLINEAR)
                        {
                            taps = 2;
                            float const tx = std::fabs(x - fx);
                            float const ty = std::fabs(y - fy);
                            wx = {1.0F - tx, tx, 0.0F, 0.0F};
                            wy = {1.0F - ty, ty, 0.0F, 0.0F};
                            for (int32_t k = 0; k < 2; ++k)
                            {
                                ix[static_cast<size_t>(k)] = padIndex(x0 + k, ax, sample);
                                iy[static_cast<size_t>(k)] = padIndex(y0 + k, ay, sample);
                            }
                        }
                        else
                        {
                            taps = 4;
                            cubicCoefficients(x - fx, wx);
                            cubicCoefficients(y - fy, wy);
                            for (int32_t k = 0; k < 4; ++k)
                            {
                                ix[static_cast<size_t>(k)] = padIndex(x0 - 1 + k, ax, sample);
                                iy[static_cast<size_t>(k)] = padIndex(y0 - 1 + k, ay, sample);
                            }
                        }
                    }
                    for (int64_t ch = 0; ch < c; ++ch)
                    {
                        float const* plane = data + (b * c + ch) * h * w;
                        float acc = 0.0F;
                        for (int32_t a = 0; a < taps; ++a)
                        {
                            float row = 0.0F;
                            int64_t const yy = iy[static_cast<size_t>(a)];
                            if (yy >= 0)
                            {
                                for (int32_t k = 0; k < taps; ++k)
                                {
                                    int64_t const xx = ix[static_cast<size_t>(k)];
                                    row += wx[static_cast<size_t>(k)] * (xx >= 0 ? plane[yy * w + xx] : 0.0F);
                                }
                            }
                            acc += wy[static_cast<size_t>(a)] * row;
                        }
                        storeElement(out.data, out.type, ((b * c + ch) * ho + oy) * wo + ox, static_cast<double>(acc));
                    }
                }
            }
        }
        return Status::ok();
    }

private:
    KernelSetup mSetup;
    GridSampleParams mParams;
    Axis mAxisY;
    Axis mAxisX;
    int64_t mOutVolume{0};
    std::vector<float> mData; //!< the input as float
    bool mReady{false};
};

} // namespace

StatusOr<std::unique_ptr<Kernel>> createGridSampleKernel(KernelSetup const& setup)
{
    if (setup.node == nullptr)
    {
        return internalError("GridSample kernel: no plan node");
    }
    return std::unique_ptr<Kernel>(std::make_unique<GridSampleKernel>(setup));
}

} // namespace kiln
