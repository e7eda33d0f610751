// Building blocks of the CPU kernels of the elementwise family (elementwise, unary, activation, select, cast,
// identity, constant, parametric ReLU, scale): a broadcasting walker that visits the output in contiguous rows,
// and chunked typed load/store of any storage type into a compute buffer (float or int64). The walks, mapChunks and
// convertElements split large tensors over the CPU thread pool (core/threadPool.h) in pieces of at least kGRAIN
// elements; their callbacks must only write the output elements they are given. The backend-neutral type and view
// checks are in backends/common/elementWiseChecks.h.
#pragma once

#include "backends/common/elementWiseChecks.h"
#include "backends/cpu/kernels/reducedFloat.h"
#include "backends/kernel.h"
#include "core/dataType.h"
#include "core/threadPool.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

namespace kiln::ew
{

//! Elements processed per compute chunk (buffers live on the stack).
constexpr int64_t kCHUNK = 256;
//! Least elements per thread-pool task for memory-bound elementwise work (64 KiB of FP32): smaller tensors stay on
//! the calling thread.
constexpr int64_t kGRAIN = 16384;
//! Least elements per task for work of tens of cycles per element (exp, erf, tanh, ...).
constexpr int64_t kGRAIN_HEAVY = 2048;

//! Visits a contiguous row-major output in rows, giving for each operand the element offset of the row start
//! and the element stride along the row (0 when the operand is broadcast along it). Adjacent dimensions that
//! every operand walks contiguously are merged, so same-shape operands give a single long row.
class BroadcastWalker
{
public:
    static constexpr int32_t kMAX_OPERANDS = 4;

    //! Fails when an operand's rank differs from the output's or an extent is neither the output's nor 1.
    static StatusOr<BroadcastWalker> make(nvinfer1::Dims const& out, std::vector<nvinfer1::Dims> const& operands)
    {
        if (operands.size() > static_cast<size_t>(kMAX_OPERANDS))
        {
            return internalError("BroadcastWalker: too many operands");
        }
        if (out.nbDims < 0 || out.nbDims > nvinfer1::Dims::MAX_DIMS)
        {
            return invalidArgument("output rank " + std::to_string(out.nbDims) + " is invalid");
        }
        BroadcastWalker w;
        w.mNbOperands = static_cast<int32_t>(operands.size());
        // An empty output (some extent 0) walks nothing: its other extents may multiply past int64 ([2^62, 8, 0]), so
        // no volume or stride is formed for it.
        bool empty = false;
        for (int32_t i = 0; i < out.nbDims; ++i)
        {
            if (out.d[i] < 0)
            {
                return invalidArgument("output dimensions " + dimsToString(out) + " are invalid");
            }
            empty = empty || out.d[i] == 0;
        }
        w.mVolume = empty ? 0 : 1;
        for (int32_t i = 0; i < out.nbDims && !empty; ++i)
        {
            w.mVolume *= out.d[i];
        }
        // Per operand: contiguous strides of its own dims, zeroed where it is broadcast.
        std::vector<std::array<int64_t, nvinfer1::Dims::MAX_DIMS>> strides(operands.size());
        for (size_t k = 0; k < operands.size(); ++k)
        {
            nvinfer1::Dims const& in = operands[k];
            if (in.nbDims != out.nbDims)
            {
                return invalidArgument("operand " + std::to_string(k) + " has dimensions " + dimsToString(in)
                    + ", which do not broadcast to the output " + dimsToString(out));
            }
            int64_t s = 1;
            for (int32_t i = out.nbDims - 1; i >= 0; --i)
            {
                if (in.d[i] != out.d[i] && in.d[i] != 1)
                {
                    return invalidArgument("operand " + std::to_string(k) + " has dimensions " + dimsToString(in)
                        + ", which do not broadcast to the output " + dimsToString(out));
                }
                strides[k][static_cast<size_t>(i)] = (in.d[i] == 1) ? 0 : s;
                s = empty ? s : s * in.d[i];
            }
        }
        if (empty)
        {
            return w;
        }
        // Drop extent-1 dimensions and merge contiguous neighbours (from the innermost outwards).
        for (int32_t i = out.nbDims - 1; i >= 0; --i)
        {
            int64_t const extent = out.d[i];
            if (extent == 1)
            {
                continue;
            }
            bool merge = !w.mExtents.empty();
            for (size_t k = 0; k < operands.size() && merge; ++k)
            {
                size_t const inner = w.mExtents.size() - 1;
                merge = strides[k][static_cast<size_t>(i)] == w.mStrides[k][inner] * w.mExtents[inner];
            }
            if (merge)
            {
                w.mExtents.back() *= extent;
                continue;
            }
            w.mExtents.push_back(extent);
            for (size_t k = 0; k < operands.size(); ++k)
            {
                w.mStrides[k].push_back(strides[k][static_cast<size_t>(i)]);
            }
        }
        // The lists were built innermost first; keep them that way (index 0 = row dimension).
        return w;
    }

    int64_t volume() const { return mVolume; }

    //! True when every operand is walked as one contiguous row of the output's volume (no broadcasting).
    bool contiguous() const
    {
        if (mExtents.size() > 1)
        {
            return false;
        }
        for (int32_t k = 0; k < mNbOperands && !mExtents.empty(); ++k)
        {
            if (mStrides[static_cast<size_t>(k)][0] != 1)
            {
                return false;
            }
        }
        return true;
    }

    //! f(int64_t outOffset, int64_t const* offsets, int64_t const* rowStrides, int64_t n) for the output elements
    //! [begin, end) in row order, cut into pieces of at most kCHUNK elements that do not cross a row: offsets are
    //! the operands' element offsets of the piece's start, rowStrides their element strides along the row.
    template <typename F>
    void forEachChunkIn(int64_t begin, int64_t end, F&& f) const
    {
        end = std::min(end, mVolume);
        if (begin >= end)
        {
            return;
        }
        std::array<int64_t, kMAX_OPERANDS> offsets{};
        std::array<int64_t, kMAX_OPERANDS> rowStrides{};
        if (mExtents.empty())
        {
            f(int64_t{0}, offsets.data(), rowStrides.data(), int64_t{1}); // every dimension has extent 1
            return;
        }
        int64_t const rowLength = mExtents[0];
        for (int32_t k = 0; k < mNbOperands; ++k)
        {
            rowStrides[static_cast<size_t>(k)] = mStrides[static_cast<size_t>(k)][0];
        }
        // The counters and operand offsets of the row that holds `begin`.
        size_t const outer = mExtents.size();
        std::array<int64_t, nvinfer1::Dims::MAX_DIMS> counter{};
        int64_t row = begin / rowLength;
        int64_t rest = row;
        for (size_t d = 1; d < outer; ++d)
        {
            counter[d] = rest % mExtents[d];
            rest /= mExtents[d];
            for (int32_t k = 0; k < mNbOperands; ++k)
            {
                offsets[static_cast<size_t>(k)] += counter[d] * mStrides[static_cast<size_t>(k)][d];
            }
        }
        std::array<int64_t, kMAX_OPERANDS> o{};
        int64_t position = begin - row * rowLength;
        while (begin < end)
        {
            int64_t const stop = std::min(rowLength, position + (end - begin));
            for (int64_t start = position; start < stop; start += kCHUNK)
            {
                int64_t const n = std::min(kCHUNK, stop - start);
                for (int32_t k = 0; k < mNbOperands; ++k)
                {
                    o[static_cast<size_t>(k)] = offsets[static_cast<size_t>(k)] + start * rowStrides[static_cast<size_t>(k)];
                }
                f(row * rowLength + start, o.data(), rowStrides.data(), n);
            }
            begin += stop - position;
            position = 0;
            ++row;
            for (size_t d = 1; d < outer; ++d)
            {
                if (++counter[d] < mExtents[d])
                {
                    for (int32_t k = 0; k < mNbOperands; ++k)
                    {
                        offsets[static_cast<size_t>(k)] += mStrides[static_cast<size_t>(k)][d];
                    }
                    break;
                }
                counter[d] = 0;
                for (int32_t k = 0; k < mNbOperands; ++k)
                {
                    offsets[static_cast<size_t>(k)] -= mStrides[static_cast<size_t>(k)][d] * (mExtents[d] - 1);
                }
            }
        }
    }

    //! forEachChunkIn over the whole output, split over the CPU thread pool in pieces of at least `grain` elements
    //! (f runs concurrently on disjoint output ranges).
    template <typename F>
    void forEachChunk(F&& f, int64_t grain = kGRAIN) const
    {
        parallelFor(mVolume, grain, [&](int64_t begin, int64_t end) { forEachChunkIn(begin, end, f); });
    }

private:
    int32_t mNbOperands{0};
    int64_t mVolume{0};
    std::vector<int64_t> mExtents;                                   // merged extents, innermost first
    std::array<std::vector<int64_t>, kMAX_OPERANDS> mStrides;        // per operand, per merged dimension
};

// ---------------------------------------------------------------------------------------------------------
// Conversions
// ---------------------------------------------------------------------------------------------------------

//! float -> integer: truncate toward zero, saturate to the type's range, NaN gives 0.
template <typename T>
T floatToInt(float v)
{
    if (std::isnan(v))
    {
        return T(0);
    }
    if constexpr (std::is_same_v<T, int64_t>)
    {
        if (v >= 9.2233720368547758e18F)
        {
            return std::numeric_limits<int64_t>::max();
        }
        if (v <= -9.2233720368547758e18F)
        {
            return std::numeric_limits<int64_t>::min();
        }
        return static_cast<int64_t>(v);
    }
    else
    {
        double const d = static_cast<double>(v);
        if (d >= static_cast<double>(std::numeric_limits<T>::max()))
        {
            return std::numeric_limits<T>::max();
        }
        if (d <= static_cast<double>(std::numeric_limits<T>::lowest()))
        {
            return std::numeric_limits<T>::lowest();
        }
        return static_cast<T>(d);
    }
}

//! Reads n elements of a buffer of `type` starting at element `offset` with element `stride` into dst, as C
//! (float or int64_t). Floats read as int64 truncate toward zero; BOOL reads as 0/1.
template <typename C>
void loadChunk(void const* data, nvinfer1::DataType type, int64_t offset, int64_t stride, int64_t n, C* dst)
{
    using nvinfer1::DataType;
    if constexpr (std::is_same_v<C, float>)
    {
        if (stride == 1 && (type == DataType::kBF16 || type == DataType::kHALF))
        {
            loadFloatRow(data, type, offset, n, dst); // a row at a time (BF16: vectorised)
            return;
        }
    }
    if (stride == 0 && n > 1)
    {
        loadChunk(data, type, offset, 1, 1, dst); // a broadcast operand: one conversion
        std::fill(dst + 1, dst + n, dst[0]);
        return;
    }
    auto const loop = [&](auto const* p, auto&& convert) {
        p += offset;
        if (stride == 1)
        {
            for (int64_t i = 0; i < n; ++i)
            {
                dst[i] = convert(p[i]);
            }
        }
        else
        {
            for (int64_t i = 0; i < n; ++i)
            {
                dst[i] = convert(p[i * stride]);
            }
        }
    };
    auto const fromFloat = [](float v) -> C {
        if constexpr (std::is_same_v<C, float>)
        {
            return v;
        }
        else
        {
            return floatToInt<C>(v);
        }
    };
    switch (type)
    {
    case DataType::kFLOAT: loop(static_cast<float const*>(data), fromFloat); break;
    case DataType::kHALF:
        loop(static_cast<uint16_t const*>(data), [&](uint16_t b) { return fromFloat(halfToFloat(b)); });
        break;
    case DataType::kBF16:
        loop(static_cast<uint16_t const*>(data), [&](uint16_t b) { return fromFloat(bf16ToFloat(b)); });
        break;
    case DataType::kINT8: loop(static_cast<int8_t const*>(data), [](int8_t v) { return static_cast<C>(v); }); break;
    case DataType::kUINT8:
        loop(static_cast<uint8_t const*>(data), [](uint8_t v) { return static_cast<C>(v); });
        break;
    case DataType::kINT32:
        loop(static_cast<int32_t const*>(data), [](int32_t v) { return static_cast<C>(v); });
        break;
    case DataType::kINT64:
        loop(static_cast<int64_t const*>(data), [](int64_t v) { return static_cast<C>(v); });
        break;
    case DataType::kBOOL:
        loop(static_cast<uint8_t const*>(data), [](uint8_t v) { return static_cast<C>(v != 0 ? 1 : 0); });
        break;
    default:
        for (int64_t i = 0; i < n; ++i)
        {
            dst[i] = C(0);
        }
        break;
    }
}

//! Writes n values of src (float or int64_t) into a contiguous buffer of `type` at element `offset`.
//! float -> integer truncates toward zero and saturates; int64 -> narrower integer wraps; -> BOOL is v != 0.
template <typename C>
void storeChunk(void* data, nvinfer1::DataType type, int64_t offset, int64_t n, C const* src)
{
    using nvinfer1::DataType;
    if constexpr (std::is_same_v<C, float>)
    {
        if (type == DataType::kBF16 || type == DataType::kHALF)
        {
            storeFloatRow(src, type, offset, n, data); // a row at a time (BF16: vectorised)
            return;
        }
    }
    auto const loop = [&](auto* p, auto&& convert) {
        p += offset;
        for (int64_t i = 0; i < n; ++i)
        {
            p[i] = convert(src[i]);
        }
    };
    auto const toInt = [](auto tag) {
        using T = decltype(tag);
        return [](C v) -> T {
            if constexpr (std::is_same_v<C, float>)
            {
                return floatToInt<T>(v);
            }
            else
            {
                return static_cast<T>(v); // two's complement wrap (C++20)
            }
        };
    };
    switch (type)
    {
    case DataType::kFLOAT: loop(static_cast<float*>(data), [](C v) { return static_cast<float>(v); }); break;
    case DataType::kHALF:
        loop(static_cast<uint16_t*>(data), [](C v) { return floatToHalf(static_cast<float>(v)); });
        break;
    case DataType::kBF16:
        loop(static_cast<uint16_t*>(data), [](C v) { return floatToBf16(static_cast<float>(v)); });
        break;
    case DataType::kINT8: loop(static_cast<int8_t*>(data), toInt(int8_t{})); break;
    case DataType::kUINT8: loop(static_cast<uint8_t*>(data), toInt(uint8_t{})); break;
    case DataType::kINT32: loop(static_cast<int32_t*>(data), toInt(int32_t{})); break;
    case DataType::kINT64: loop(static_cast<int64_t*>(data), toInt(int64_t{})); break;
    case DataType::kBOOL:
        loop(static_cast<uint8_t*>(data), [](C v) { return static_cast<uint8_t>(v != C(0) ? 1 : 0); });
        break;
    default: break;
    }
}

//! Maps the first `n` elements of `in` to `out` chunk by chunk: loaded as float (floatDomain) or int64, transformed by
//! onFloat(float const* x, float* r, m) or onInt(int64_t const* x, int64_t* r, m), stored in the output's type. Split
//! over the CPU thread pool in pieces of at least `grain` elements.
template <typename OnFloat, typename OnInt>
void mapChunks(TensorView const& in, TensorView const& out, int64_t n, bool floatDomain, OnFloat&& onFloat,
    OnInt&& onInt, int64_t grain = kGRAIN)
{
    parallelFor(n, grain, [&](int64_t begin, int64_t end) {
        for (int64_t start = begin; start < end; start += kCHUNK)
        {
            int64_t const m = std::min(kCHUNK, end - start);
            if (floatDomain)
            {
                float x[kCHUNK];
                float r[kCHUNK];
                loadChunk(in.data, in.type, start, 1, m, x);
                onFloat(x, r, m);
                storeChunk(out.data, out.type, start, m, r);
            }
            else
            {
                int64_t x[kCHUNK];
                int64_t r[kCHUNK];
                loadChunk(in.data, in.type, start, 1, m, x);
                onInt(x, r, m);
                storeChunk(out.data, out.type, start, m, r);
            }
        }
    });
}

//! Copies or converts `n` contiguous elements from one type to another (exact for same-type copies; integers and
//! BOOL go through int64, floats through float).
inline void convertElements(void const* src, nvinfer1::DataType srcType, void* dst, nvinfer1::DataType dstType,
    int64_t n)
{
    if (n <= 0)
    {
        return;
    }
    if (srcType == dstType)
    {
        int64_t const bytes = n * elementSize(srcType);
        parallelFor(bytes, kGRAIN * 4, [&](int64_t begin, int64_t end) {
            std::memcpy(static_cast<uint8_t*>(dst) + begin, static_cast<uint8_t const*>(src) + begin,
                static_cast<size_t>(end - begin));
        });
        return;
    }
    parallelFor(n, kGRAIN, [&](int64_t begin, int64_t end) {
        for (int64_t start = begin; start < end; start += kCHUNK)
        {
            int64_t const m = std::min(kCHUNK, end - start);
            if (isFloatKernelType(srcType))
            {
                float buf[kCHUNK];
                loadChunk(src, srcType, start, 1, m, buf);
                storeChunk(dst, dstType, start, m, buf);
            }
            else
            {
                int64_t buf[kCHUNK];
                loadChunk(src, srcType, start, 1, m, buf);
                storeChunk(dst, dstType, start, m, buf);
            }
        }
    });
}

//! The kernel of the element conversions (ICastLayer, IIdentityLayer, conditional inputs): the input's elements in
//! the output's type (convertElements). reshape checks that input and output have the same dims.
class ConvertKernel final : public Kernel
{
public:
    ConvertKernel(KernelSetup const& setup, char const* kind)
        : mSetup(setup)
        , mKind(kind)
    {
    }

    Status reshape(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs) override
    {
        mVolume = -1;
        KILN_RETURN_IF_ERROR(checkViewCounts(mSetup, inputs, outputs, 1, 1));
        KILN_RETURN_IF_ERROR(checkSameDims(mSetup, inputs[0].dims, outputs[0].dims, "input and output"));
        mVolume = outputs[0].volume();
        return Status::ok();
    }

    Status run(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs, RunContext const&) override
    {
        if (mVolume < 0)
        {
            return internalError(std::string(mKind) + " node '" + mSetup.node->name
                + "': run() without a successful reshape() for the current shapes");
        }
        TensorView const& in = inputs[0];
        TensorView const& out = outputs[0];
        if (in.data == out.data && in.type == out.type)
        {
            return Status::ok(); // the builder aliased the output onto the input
        }
        convertElements(in.data, in.type, out.data, out.type, mVolume);
        return Status::ok();
    }

private:
    KernelSetup mSetup;
    char const* mKind;
    int64_t mVolume{-1}; //!< elements; -1 until a successful reshape
};

} // namespace kiln::ew
