// CPU kernel of IGatherLayer: kDEFAULT (with 0 or 1 elementwise dimension), kELEMENT and kND. Elements move as
// bytes, so every storage type works. Indices in [-extent, -1] count from the end; any other out-of-range index is
// an execution error naming the layer and the index (Kiln never reads outside the data tensor). kDEFAULT splits its
// output blocks over the CPU thread pool.
#include "backends/common/gatherParams.h"
#include "backends/cpu/kernels/indexing.h"
#include "backends/cpu/kernels/kernelFactories.h"
#include "core/dataType.h"
#include "core/threadPool.h"

#include <cstring>
#include <algorithm>
#include <array>
#include <vector>

namespace kiln
{
namespace
{
using nvinfer1::DataType;
using nvinfer1::GatherMode;

//! Reads indices[position], wraps a negative index, and fails when it lies outside [-extent, extent).
Status loadIndex(KernelSetup const& setup, TensorView const& indices, int64_t position, int64_t extent, int32_t axis,
    int64_t& index)
{
    int64_t const raw = loadInt(indices.data, indices.type, position);
    if (raw < -extent || raw >= extent)
    {
        return gatherError(setup, "index " + std::to_string(raw) + " (element " + std::to_string(position)
            + " of the indices) is out of range [" + std::to_string(-extent) + ", " + std::to_string(extent - 1)
            + "] for data axis " + std::to_string(axis));
    }
    index = raw < 0 ? raw + extent : raw;
    return Status::ok();
}

//! Everything a run needs besides the data, derived at reshape.
struct GatherGeometry
{
    GatherParams p;
    int32_t rank{0};         //!< data rank
    int64_t outer{1};        //!< kDEFAULT: product of the data dims between b and the axis
    int64_t extent{0};       //!< kDEFAULT/kELEMENT: the data extent along the axis
    int64_t innerBytes{0};   //!< kDEFAULT: bytes of one gathered block
    int64_t perBatch{0};     //!< kDEFAULT: indices per batch item
    int64_t volume{0};       //!< kELEMENT: elements gathered
    int64_t tuples{0};       //!< kND: index tuples per batch item
    int64_t sliceBytes{0};   //!< kND: bytes of one gathered slice
    int64_t batchElems{0};   //!< kND: data elements per batch item
    nvinfer1::Dims data{};    //!< data dims
    nvinfer1::Dims indices{}; //!< indices dims
    DimArray dataStrides{};   //!< row-major data strides (elements)
};

Status gatherDefault(KernelSetup const& setup, GatherGeometry const& g, TensorView const& data,
    TensorView const& indices, TensorView const& out)
{
    GatherParams const& p = g.p;
    auto const* src = static_cast<uint8_t const*>(data.data);
    // Units (n, o, j) in output order, each one block of innerBytes, split over the thread pool (>= 64 KiB a task).
    int64_t const units = p.batch * g.outer * g.perBatch;
    int64_t const grain = std::max<int64_t>(1, 65536 / std::max<int64_t>(g.innerBytes, 1));
    return parallelFor(units, grain, [&](int64_t begin, int64_t end) -> Status {
        int64_t j = begin % g.perBatch;
        int64_t o = (begin / g.perBatch) % g.outer;
        int64_t n = begin / g.perBatch / g.outer;
        auto* dst = static_cast<uint8_t*>(out.data) + begin * g.innerBytes;
        for (int64_t u = begin; u < end; ++u)
        {
            int64_t const db = p.dataBatch == 1 ? 0 : n;
            int64_t const ib = p.indexBatch == 1 ? 0 : n;
            int64_t index = 0;
            KILN_RETURN_IF_ERROR(loadIndex(setup, indices, ib * g.perBatch + j, g.extent, p.axis, index));
            if (g.innerBytes > 0)
            {
                std::memcpy(dst, src + ((db * g.outer + o) * g.extent + index) * g.innerBytes,
                    static_cast<size_t>(g.innerBytes));
            }
            dst += g.innerBytes;
            if (++j == g.perBatch)
            {
                j = 0;
                if (++o == g.outer)
                {
                    o = 0;
                    ++n;
                }
            }
        }
        return Status::ok();
    });
}

Status gatherElement(KernelSetup const& setup, GatherGeometry const& g, TensorView const& data,
    TensorView const& indices, TensorView const& out)
{
    int32_t const r = g.rank;
    int32_t const axis = g.p.axis;
    int64_t const esize = g.p.esize;
    DimArray coord{};
    auto const* src = static_cast<uint8_t const*>(data.data);
    auto* dst = static_cast<uint8_t*>(out.data);
    for (int64_t flat = 0; flat < g.volume; ++flat)
    {
        int64_t index = 0;
        KILN_RETURN_IF_ERROR(loadIndex(setup, indices, flat, g.extent, axis, index));
        int64_t offset = 0;
        for (int32_t d = 0; d < r; ++d)
        {
            offset += (d == axis ? index : coord[static_cast<size_t>(d)]) * g.dataStrides[static_cast<size_t>(d)];
        }
        std::memcpy(dst + flat * esize, src + offset * esize, static_cast<size_t>(esize));
        advanceCoordinate(coord, g.indices, r);
    }
    return Status::ok();
}

Status gatherND(KernelSetup const& setup, GatherGeometry const& g, TensorView const& data, TensorView const& indices,
    TensorView const& out)
{
    int32_t const b = g.p.b;
    int64_t const k = g.p.k;
    int64_t const esize = g.p.esize;
    auto const* src = static_cast<uint8_t const*>(data.data);
    auto* dst = static_cast<uint8_t*>(out.data);
    for (int64_t n = 0; n < g.p.batch; ++n)
    {
        for (int64_t t = 0; t < g.tuples; ++t)
        {
            int64_t const tupleStart = (n * g.tuples + t) * k;
            int64_t offset = n * g.batchElems;
            for (int64_t j = 0; j < k; ++j)
            {
                int32_t const dim = b + static_cast<int32_t>(j);
                int64_t index = 0;
                KILN_RETURN_IF_ERROR(
                    loadIndex(setup, indices, tupleStart + j, g.data.d[dim], dim, index));
                offset += index * g.dataStrides[static_cast<size_t>(dim)];
            }
            if (g.sliceBytes > 0)
            {
                std::memcpy(dst, src + offset * esize, static_cast<size_t>(g.sliceBytes));
            }
            dst += g.sliceBytes;
        }
    }
    return Status::ok();
}

//! create: mode, axis and elementwise dims; reshape: the checks and the geometry of the mode; run: the copies (an
//! index out of range fails the run).
class GatherKernel final : public Kernel
{
public:
    GatherKernel(KernelSetup const& setup, GatherParams params)
        : mSetup(setup)
    {
        mGeometry.p = params;
    }

    Status reshape(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs) override
    {
        mReady = false;
        GatherGeometry& g = mGeometry;
        KILN_RETURN_IF_ERROR(gatherShapes(mSetup, g.p, inputs, outputs));
        nvinfer1::Dims const& data = inputs[0].dims;
        nvinfer1::Dims const& indices = inputs[1].dims;
        int32_t const r = data.nbDims;
        int32_t const q = indices.nbDims;
        int32_t const axis = g.p.axis;
        int32_t const b = g.p.b;
        g.rank = r;
        g.data = data;
        g.indices = indices;
        g.dataStrides = stridesOf(data);
        switch (g.p.mode)
        {
        case GatherMode::kDEFAULT:
            g.outer = dimsProduct(data, b, axis);
            g.extent = data.d[axis];
            g.innerBytes = dimsProduct(data, axis + 1, r) * g.p.esize;
            g.perBatch = dimsProduct(indices, b, q);
            break;
        case GatherMode::kELEMENT:
            g.extent = data.d[axis];
            g.volume = dimsProduct(indices, 0, r);
            break;
        case GatherMode::kND:
            g.p.batch = dimsProduct(indices, 0, b);
            g.tuples = dimsProduct(indices, b, q - 1);
            g.sliceBytes = dimsProduct(data, b + static_cast<int32_t>(g.p.k), r) * g.p.esize;
            g.batchElems = dimsProduct(data, b, r);
            break;
        }
        mReady = true;
        return Status::ok();
    }

    Status run(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs, RunContext const&) override
    {
        if (!mReady)
        {
            return notReshaped(mSetup, "Gather");
        }
        switch (mGeometry.p.mode)
        {
        case GatherMode::kDEFAULT: return gatherDefault(mSetup, mGeometry, inputs[0], inputs[1], outputs[0]);
        case GatherMode::kELEMENT: return gatherElement(mSetup, mGeometry, inputs[0], inputs[1], outputs[0]);
        case GatherMode::kND: break;
        }
        return gatherND(mSetup, mGeometry, inputs[0], inputs[1], outputs[0]);
    }

private:
    KernelSetup mSetup;
    GatherGeometry mGeometry;
    bool mReady{false};
};

} // namespace

StatusOr<std::unique_ptr<Kernel>> createGatherKernel(KernelSetup const& setup)
{
    if (setup.node == nullptr)
    {
        return internalError("Gather kernel: no plan node");
    }
    KILN_ASSIGN_OR_RETURN(GatherParams const params, readGatherParams(setup));
    return std::unique_ptr<Kernel>(std::make_unique<GatherKernel>(setup, params));
}

} // namespace kiln
