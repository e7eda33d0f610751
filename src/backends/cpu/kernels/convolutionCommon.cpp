// Shared helpers of the convolution-family and matrix-multiply CPU kernels (see convolutionCommon.h).
#include "backends/cpu/kernels/convolutionCommon.h"
#include "backends/common/convolutionParams.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <type_traits>

namespace kiln
{
using nvinfer1::DataType;

bool oneDnnBuilt()
{
    return KILN_HAVE_ONEDNN != 0;
}

StatusOr<CpuTactic> selectCpuTactic(PlanNode const& node)
{
    if (node.tactic.empty())
    {
        return oneDnnBuilt() ? CpuTactic::kONEDNN : CpuTactic::kREFERENCE;
    }
    if (node.tactic == kTACTIC_ONEDNN)
    {
        return oneDnnBuilt() ? CpuTactic::kONEDNN : CpuTactic::kREFERENCE;
    }
    if (node.tactic == kTACTIC_REFERENCE)
    {
        return CpuTactic::kREFERENCE;
    }
    return invalidArgument("layer '" + node.name + "': unknown CPU tactic '" + node.tactic
        + "' (expected 'onednn' or 'reference')");
}

namespace
{
std::atomic<uint64_t> gOneDnnRuns[4];

int32_t runSlot(nvinfer1::LayerType kind)
{
    switch (kind)
    {
    case nvinfer1::LayerType::kCONVOLUTION: return 0;
    case nvinfer1::LayerType::kDECONVOLUTION: return 1;
    case nvinfer1::LayerType::kPOOLING: return 2;
    case nvinfer1::LayerType::kMATRIX_MULTIPLY: return 3;
    default: return -1;
    }
}
} // namespace

uint64_t oneDnnRunCount(nvinfer1::LayerType kind)
{
    int32_t const slot = runSlot(kind);
    return slot < 0 ? 0 : gOneDnnRuns[slot].load(std::memory_order_relaxed);
}

void countOneDnnRun(nvinfer1::LayerType kind)
{
    int32_t const slot = runSlot(kind);
    if (slot >= 0)
    {
        gOneDnnRuns[slot].fetch_add(1, std::memory_order_relaxed);
    }
}

namespace
{
template <typename T>
double asDouble(T v)
{
    if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>)
    {
        return static_cast<double>(static_cast<float>(v));
    }
    else
    {
        return static_cast<double>(v);
    }
}
} // namespace

void convertToDouble(void const* src, DataType type, int64_t count, double* dst)
{
    bool const handled = dispatchType(type, [&](auto tag) {
        using T = decltype(tag);
        T const* p = static_cast<T const*>(src);
        for (int64_t i = 0; i < count; ++i)
        {
            dst[i] = asDouble(p[i]);
        }
    });
    if (!handled)
    {
        std::fill(dst, dst + count, 0.0);
    }
}

void convertFromDouble(double const* src, DataType type, int64_t count, void* dst)
{
    switch (type)
    {
    case DataType::kFLOAT:
    {
        float* p = static_cast<float*>(dst);
        for (int64_t i = 0; i < count; ++i)
        {
            p[i] = static_cast<float>(src[i]);
        }
        return;
    }
    case DataType::kHALF:
    {
        Half* p = static_cast<Half*>(dst);
        for (int64_t i = 0; i < count; ++i)
        {
            p[i] = Half(static_cast<float>(src[i]));
        }
        return;
    }
    case DataType::kBF16:
    {
        BFloat16* p = static_cast<BFloat16*>(dst);
        for (int64_t i = 0; i < count; ++i)
        {
            p[i] = BFloat16(static_cast<float>(src[i]));
        }
        return;
    }
    case DataType::kINT8:
    {
        int8_t* p = static_cast<int8_t*>(dst);
        for (int64_t i = 0; i < count; ++i)
        {
            double const r = std::nearbyint(src[i]); // default rounding: half to even
            p[i] = static_cast<int8_t>(std::clamp(std::isnan(r) ? 0.0 : r, -128.0, 127.0));
        }
        return;
    }
    default:
        for (int64_t i = 0; i < count; ++i)
        {
            storeElement(dst, type, i, src[i]);
        }
        return;
    }
}

Geometry3 toGeometry3(WindowParams const& p, std::vector<WindowExtent> const& ext)
{
    WindowGeometry const w = toWindowGeometry(p, ext);
    Geometry3 g;
    std::copy(w.in, w.in + 3, g.in.begin());
    std::copy(w.out, w.out + 3, g.out.begin());
    std::copy(w.kernel, w.kernel + 3, g.kernel.begin());
    std::copy(w.stride, w.stride + 3, g.stride.begin());
    std::copy(w.dilation, w.dilation + 3, g.dilation.begin());
    std::copy(w.padBefore, w.padBefore + 3, g.padBefore.begin());
    std::copy(w.padAfter, w.padAfter + 3, g.padAfter.begin());
    return g;
}

std::vector<int64_t> rowMajorStrides(int64_t const* dims, int32_t n)
{
    std::vector<int64_t> s(static_cast<size_t>(std::max(n, 0)), 1);
    for (int32_t i = n - 2; i >= 0; --i)
    {
        s[static_cast<size_t>(i)] = s[static_cast<size_t>(i + 1)] * dims[i + 1];
    }
    return s;
}

std::vector<int64_t> dimsVector(nvinfer1::Dims const& d)
{
    std::vector<int64_t> v;
    for (int32_t i = 0; i < d.nbDims && i < nvinfer1::Dims::MAX_DIMS; ++i)
    {
        v.push_back(d.d[i]);
    }
    return v;
}

#if KILN_HAVE_ONEDNN
dnnl::engine& oneDnnEngine()
{
    static dnnl::engine engine(dnnl::engine::kind::cpu, 0);
    return engine;
}

dnnl::memory::data_type oneDnnType(DataType type)
{
    switch (type)
    {
    case DataType::kFLOAT: return dnnl::memory::data_type::f32;
    case DataType::kHALF: return dnnl::memory::data_type::f16;
    case DataType::kBF16: return dnnl::memory::data_type::bf16;
    case DataType::kINT8: return dnnl::memory::data_type::s8;
    case DataType::kUINT8: return dnnl::memory::data_type::u8;
    case DataType::kINT32: return dnnl::memory::data_type::s32;
    default: return dnnl::memory::data_type::undef;
    }
}

bool isOneDnnReferenceImpl(dnnl::primitive_desc_base const& pd)
{
    std::string const impl = pd.impl_info_str();
    return impl.rfind("ref", 0) == 0;
}

dnnl::memory::dims toDnnlDims(std::vector<int64_t> const& v)
{
    return dnnl::memory::dims(v.begin(), v.end());
}

OneDnnStep::OneDnnStep(dnnl::primitive primitive, std::vector<std::pair<int, dnnl::memory>> const& args)
    : mPrimitive(std::move(primitive))
{
    for (auto const& [arg, mem] : args)
    {
        mArgs.push_back(dnnl_exec_arg_t{arg, mem.get()});
    }
}

void OneDnnStep::execute(dnnl::stream& stream) const
{
    dnnl::error::wrap_c_api(
        dnnl_primitive_execute(mPrimitive.get(), stream.get(), static_cast<int>(mArgs.size()), mArgs.data()),
        "could not execute a primitive");
}
#endif

} // namespace kiln
