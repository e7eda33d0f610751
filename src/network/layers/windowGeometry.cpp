// The window geometry shared by convolution, deconvolution and pooling (declared in convolutionLayer.h): PaddingMode
// formulas, window parameter parsing, output extents and the window attributes' defaults.
#include "network/layers/convolutionLayer.h"

#include "core/dataType.h"
#include "network/layerTable.h"
#include "network/networkDefinition.h"

#include <limits>

namespace kiln
{
using nvinfer1::DataType;
using nvinfer1::Dims;
using nvinfer1::PaddingMode;
using nvinfer1::Weights;

namespace
{

std::string dimsToString(std::vector<int64_t> const& v)
{
    std::string s = "(";
    for (size_t i = 0; i < v.size(); ++i)
    {
        s += (i ? ", " : "") + std::to_string(v[i]);
    }
    return s + ")";
}

std::string dimsToString(Dims const& d)
{
    std::vector<int64_t> v;
    for (int32_t i = 0; i < d.nbDims && i < Dims::MAX_DIMS; ++i)
    {
        v.push_back(d.d[i]);
    }
    return dimsToString(v);
}

//! floor(a / b) for b > 0 and any sign of a.
int64_t floorDivInt(int64_t a, int64_t b)
{
    int64_t q = a / b;
    if ((a % b != 0) && (a < 0))
    {
        --q;
    }
    return q;
}

int64_t ceilDivInt(int64_t a, int64_t b)
{
    return -floorDivInt(-a, b);
}

Status readList(Attributes const& attrs, char const* key, int32_t nb, int64_t minValue, std::vector<int64_t>& out)
{
    KILN_ASSIGN_OR_RETURN(out, attrs.requireInts(key));
    if (static_cast<int32_t>(out.size()) != nb)
    {
        return invalidArgument(std::string(key) + " " + dimsToString(out) + " has " + std::to_string(out.size())
            + " values but the window has " + std::to_string(nb) + " spatial dimensions");
    }
    for (int64_t v : out)
    {
        if (v < minValue || v > kMAX_WINDOW_VALUE)
        {
            return invalidArgument(std::string(key) + " " + dimsToString(out) + " has a value outside ["
                + std::to_string(minValue) + ", " + std::to_string(kMAX_WINDOW_VALUE) + "]");
        }
    }
    return Status::ok();
}

} // namespace

// ------------------------------------------------------------------------------------------------------------
// Window geometry
// ------------------------------------------------------------------------------------------------------------

char const* paddingModeName(PaddingMode mode)
{
    switch (mode)
    {
    case PaddingMode::kEXPLICIT_ROUND_DOWN: return "kEXPLICIT_ROUND_DOWN";
    case PaddingMode::kEXPLICIT_ROUND_UP: return "kEXPLICIT_ROUND_UP";
    case PaddingMode::kSAME_UPPER: return "kSAME_UPPER";
    case PaddingMode::kSAME_LOWER: return "kSAME_LOWER";
    }
    return "unknown";
}

StatusOr<WindowParams> parseWindowParams(Attributes const& attrs, WindowKind kind)
{
    char const* kernelKey = kind == WindowKind::kPOOLING ? "windowSize" : "kernelSize";
    WindowParams p;
    KILN_ASSIGN_OR_RETURN(p.kernel, attrs.requireInts(kernelKey));
    int32_t const nb = static_cast<int32_t>(p.kernel.size());
    if (nb != 2 && nb != 3)
    {
        return invalidArgument(std::string(kernelKey) + " " + dimsToString(p.kernel) + " has " + std::to_string(nb)
            + " dimensions; only 2-D and 3-D windows are supported");
    }
    p.nbSpatial = nb;
    KILN_RETURN_IF_ERROR(readList(attrs, kernelKey, nb, 1, p.kernel));
    int64_t volume = 1;
    for (int64_t k : p.kernel)
    {
        volume *= k;
    }
    if (volume > kMAX_WINDOW_VOLUME)
    {
        return invalidArgument(std::string(kernelKey) + " " + dimsToString(p.kernel) + " has volume "
            + std::to_string(volume) + ", above the limit " + std::to_string(kMAX_WINDOW_VOLUME));
    }
    KILN_RETURN_IF_ERROR(readList(attrs, "stride", nb, 1, p.stride));
    if (kind == WindowKind::kPOOLING)
    {
        p.dilation.assign(static_cast<size_t>(nb), 1);
    }
    else
    {
        KILN_RETURN_IF_ERROR(readList(attrs, "dilation", nb, 1, p.dilation));
    }
    KILN_RETURN_IF_ERROR(readList(attrs, "prePadding", nb, 0, p.prePadding));
    KILN_RETURN_IF_ERROR(readList(attrs, "postPadding", nb, 0, p.postPadding));
    KILN_ASSIGN_OR_RETURN(int64_t mode, attrs.requireInt("paddingMode"));
    if (mode < 0 || mode >= nvinfer1::EnumMax<PaddingMode>())
    {
        return invalidArgument("paddingMode " + std::to_string(mode) + " is not a PaddingMode value");
    }
    p.mode = static_cast<PaddingMode>(mode);
    return p;
}

StatusOr<ShapeExpr> inferWindowOutput(
    InferContext& ctx, WindowKind kind, WindowParams const& p, ShapeExpr const& spatialIn, std::string const& inputName)
{
    if (static_cast<int32_t>(spatialIn.size()) != p.nbSpatial)
    {
        return ctx.error("internal: spatial rank mismatch");
    }
    bool const same = p.mode == PaddingMode::kSAME_UPPER || p.mode == PaddingMode::kSAME_LOWER;
    ShapeExpr out;
    for (int32_t i = 0; i < p.nbSpatial; ++i)
    {
        DimExpr const in = spatialIn[static_cast<size_t>(i)];
        int64_t const dk = p.dilatedKernel(i);
        int64_t const s = p.stride[static_cast<size_t>(i)];
        int64_t const pads = p.prePadding[static_cast<size_t>(i)] + p.postPadding[static_cast<size_t>(i)];
        std::string const where = "spatial dimension " + std::to_string(i) + " of input '" + inputName + "'";
        if (kind == WindowKind::kDECONVOLUTION)
        {
            KILN_RETURN_IF_ERROR(ctx.require(in.lt(1).logicalNot(), where + " must be at least 1"));
            DimExpr o;
            if (same)
            {
                // O = min(I * S, (I - 1) * S + DK); the minimum is decided by DK >= S alone.
                o = dk >= s ? in * s : in * s + (dk - s);
            }
            else
            {
                o = in * s + (dk - s - pads);
                KILN_RETURN_IF_ERROR(ctx.require(o.lt(1).logicalNot(),
                    where + ": the padding " + std::to_string(pads) + " trims the whole output (output extent (I - 1) * "
                        + std::to_string(s) + " + " + std::to_string(dk) + " - " + std::to_string(pads) + " < 1)"));
            }
            out.push_back(o);
            continue;
        }
        if (same)
        {
            out.push_back(in.ceilDiv(s));
            continue;
        }
        DimExpr const m = in + pads;
        KILN_RETURN_IF_ERROR(ctx.require(m.lt(dk).logicalNot(),
            where + " plus padding " + std::to_string(pads) + " is smaller than the "
                + (kind == WindowKind::kPOOLING ? std::string("window") : std::string("dilated kernel")) + " extent "
                + std::to_string(dk)));
        DimExpr const span = m - dk;
        out.push_back((p.mode == PaddingMode::kEXPLICIT_ROUND_UP ? span.ceilDiv(s) : span.floorDiv(s)) + 1);
    }
    return out;
}

StatusOr<std::vector<WindowExtent>> computeWindowExtents(
    WindowKind kind, WindowParams const& p, std::vector<int64_t> const& spatialIn)
{
    if (static_cast<int32_t>(spatialIn.size()) != p.nbSpatial)
    {
        return invalidArgument("input has " + std::to_string(spatialIn.size()) + " spatial dimensions but the window has "
            + std::to_string(p.nbSpatial));
    }
    bool const same = p.mode == PaddingMode::kSAME_UPPER || p.mode == PaddingMode::kSAME_LOWER;
    std::vector<WindowExtent> ext(static_cast<size_t>(p.nbSpatial));
    for (int32_t i = 0; i < p.nbSpatial; ++i)
    {
        WindowExtent& e = ext[static_cast<size_t>(i)];
        int64_t const in = spatialIn[static_cast<size_t>(i)];
        int64_t const dk = p.dilatedKernel(i);
        int64_t const s = p.stride[static_cast<size_t>(i)];
        e.in = in;
        if (in < 0)
        {
            return invalidArgument("negative input extent " + std::to_string(in));
        }
        if (kind == WindowKind::kDECONVOLUTION)
        {
            if (in < 1)
            {
                return invalidArgument("spatial dimension " + std::to_string(i) + " of the input must be at least 1");
            }
            if (same)
            {
                e.out = std::min(in * s, (in - 1) * s + dk);
                int64_t const total = std::max<int64_t>(dk - s, 0);
                int64_t const half = total / 2;
                e.padBefore = p.mode == PaddingMode::kSAME_UPPER ? half : total - half;
                e.padAfter = total - e.padBefore;
            }
            else
            {
                e.padBefore = p.prePadding[static_cast<size_t>(i)];
                e.padAfter = p.postPadding[static_cast<size_t>(i)];
                e.out = (in - 1) * s + dk - e.padBefore - e.padAfter;
                if (e.out < 1)
                {
                    return invalidArgument("spatial dimension " + std::to_string(i) + ": the padding trims the whole output");
                }
            }
            continue;
        }
        if (same)
        {
            e.out = ceilDivInt(in, s);
            int64_t const total = std::max<int64_t>(floorDivInt(in - 1, s) * s + dk - in, 0);
            int64_t const half = total / 2;
            e.padBefore = p.mode == PaddingMode::kSAME_UPPER ? half : total - half;
            e.padAfter = total - e.padBefore;
            continue;
        }
        e.padBefore = p.prePadding[static_cast<size_t>(i)];
        e.padAfter = p.postPadding[static_cast<size_t>(i)];
        int64_t const m = in + e.padBefore + e.padAfter;
        if (m < dk)
        {
            return invalidArgument("spatial dimension " + std::to_string(i) + " (" + std::to_string(in)
                + ") plus padding is smaller than the window extent " + std::to_string(dk));
        }
        e.out = (p.mode == PaddingMode::kEXPLICIT_ROUND_UP ? ceilDivInt(m - dk, s) : floorDivInt(m - dk, s)) + 1;
    }
    return ext;
}

Status checkWindowDims(Dims const& d, int64_t minValue, char const* what, int32_t exactRank)
{
    bool const rankOk = exactRank > 0 ? d.nbDims == exactRank : (d.nbDims == 2 || d.nbDims == 3);
    if (!rankOk)
    {
        return invalidArgument(std::string(what) + " has " + std::to_string(d.nbDims) + " dimensions; expected "
            + (exactRank > 0 ? std::to_string(exactRank) : std::string("2 or 3")));
    }
    for (int32_t i = 0; i < d.nbDims; ++i)
    {
        if (d.d[i] < minValue || d.d[i] > kMAX_WINDOW_VALUE)
        {
            return invalidArgument(std::string(what) + " " + dimsToString(d) + " has a value outside ["
                + std::to_string(minValue) + ", " + std::to_string(kMAX_WINDOW_VALUE) + "]");
        }
    }
    return Status::ok();
}

Dims attrDims(Attributes const& attrs, char const* key)
{
    Dims d = attrs.getDims(key);
    if (d.nbDims < 0)
    {
        d.nbDims = 0;
    }
    return d;
}

void initWindowAttrs(Attributes& attrs, char const* kernelKey, Dims const& kernel, bool withDilation)
{
    attrs.setDims(kernelKey, kernel);
    size_t const nb = static_cast<size_t>(kernel.nbDims);
    attrs.setInts("stride", std::vector<int64_t>(nb, 1));
    if (withDilation)
    {
        attrs.setInts("dilation", std::vector<int64_t>(nb, 1));
    }
    attrs.setInts("prePadding", std::vector<int64_t>(nb, 0));
    attrs.setInts("postPadding", std::vector<int64_t>(nb, 0));
    attrs.setInt("paddingMode", static_cast<int64_t>(PaddingMode::kEXPLICIT_ROUND_DOWN));
}

void resizeWindowDefaults(Attributes& attrs, int32_t nbSpatial, bool withDilation)
{
    auto resize = [&](char const* key, int64_t defaultValue) {
        std::vector<int64_t> v = attrs.getInts(key);
        if (static_cast<int32_t>(v.size()) == nbSpatial)
        {
            return;
        }
        for (int64_t x : v)
        {
            if (x != defaultValue)
            {
                return; // a user value: keep it (a rank mismatch is reported at build time)
            }
        }
        attrs.setInts(key, std::vector<int64_t>(static_cast<size_t>(nbSpatial), defaultValue));
    };
    resize("stride", 1);
    if (withDilation)
    {
        resize("dilation", 1);
    }
    resize("prePadding", 0);
    resize("postPadding", 0);
}

} // namespace kiln
