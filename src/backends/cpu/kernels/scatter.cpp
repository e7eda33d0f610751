// CPU kernel of IScatterLayer: copies data to the output, then writes updates at the positions the indices give
// (kELEMENT like ONNX ScatterElements, kND like ONNX ScatterND). Elements move as bytes, so every storage type
// works. Updates apply in row-major order, so with duplicate indices the last one wins (TensorRT leaves that case
// undefined). Indices in [-extent, -1] count from the end; any other out-of-range index is an execution error.
#include "backends/common/scatterParams.h"
#include "backends/cpu/kernels/indexing.h"
#include "backends/cpu/kernels/kernelFactories.h"
#include "core/dataType.h"

#include <cstring>
#include <algorithm>
#include <array>
#include <vector>

namespace kiln
{
namespace
{
using nvinfer1::DataType;
using nvinfer1::ScatterMode;

Status loadIndex(KernelSetup const& setup, TensorView const& indices, int64_t position, int64_t extent, int32_t axis,
    int64_t& index)
{
    int64_t const raw = loadInt(indices.data, indices.type, position);
    if (raw < -extent || raw >= extent)
    {
        return scatterError(setup, "index " + std::to_string(raw) + " (element " + std::to_string(position)
            + " of the indices) is out of range [" + std::to_string(-extent) + ", " + std::to_string(extent - 1)
            + "] for data axis " + std::to_string(axis));
    }
    index = raw < 0 ? raw + extent : raw;
    return Status::ok();
}

//! Everything a run needs besides the data, derived at reshape.
struct ScatterGeometry
{
    ScatterParams p;
    int32_t rank{0};        //!< data rank
    int64_t bytes{0};       //!< bytes of the data (copied to the output first)
    int64_t volume{0};      //!< kELEMENT: updates written
    int64_t extent{0};      //!< kELEMENT: the data extent along the axis
    int64_t tuples{0};      //!< kND: index tuples
    int64_t sliceBytes{0};  //!< kND: bytes of one written slice
    nvinfer1::Dims data{};    //!< data dims
    nvinfer1::Dims indices{}; //!< indices dims
    DimArray dataStrides{};   //!< row-major data strides (elements)
};

Status scatterElement(KernelSetup const& setup, ScatterGeometry const& g, TensorView const& indices,
    TensorView const& updates, TensorView const& out)
{
    int32_t const r = g.rank;
    int32_t const axis = g.p.axis;
    int64_t const esize = g.p.esize;
    DimArray coord{};
    auto const* src = static_cast<uint8_t const*>(updates.data);
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
        std::memcpy(dst + offset * esize, src + flat * esize, static_cast<size_t>(esize));
        advanceCoordinate(coord, g.indices, r);
    }
    return Status::ok();
}

Status scatterND(KernelSetup const& setup, ScatterGeometry const& g, TensorView const& indices,
    TensorView const& updates, TensorView const& out)
{
    int32_t const k = g.p.k;
    int64_t const esize = g.p.esize;
    auto const* src = static_cast<uint8_t const*>(updates.data);
    auto* dst = static_cast<uint8_t*>(out.data);
    for (int64_t t = 0; t < g.tuples; ++t)
    {
        int64_t offset = 0;
        for (int32_t j = 0; j < k; ++j)
        {
            int64_t index = 0;
            KILN_RETURN_IF_ERROR(loadIndex(setup, indices, t * k + j, g.data.d[j], j, index));
            offset += index * g.dataStrides[static_cast<size_t>(j)];
        }
        if (g.sliceBytes > 0)
        {
            std::memcpy(dst + offset * esize, src + t * g.sliceBytes, static_cast<size_t>(g.sliceBytes));
        }
    }
    return Status::ok();
}

//! create: mode and axis; reshape: the checks and the geometry of the mode; run: copies the data, then writes the
//! updates (an index out of range fails the run).
class ScatterKernel final : public Kernel
{
public:
    ScatterKernel(KernelSetup const& setup, ScatterParams params)
        : mSetup(setup)
    {
        mGeometry.p = params;
    }

    Status reshape(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs) override
    {
        mReady = false;
        ScatterGeometry& g = mGeometry;
        KILN_RETURN_IF_ERROR(scatterShapes(mSetup, g.p, inputs, outputs));
        nvinfer1::Dims const& data = inputs[0].dims;
        nvinfer1::Dims const& indices = inputs[1].dims;
        int32_t const r = data.nbDims;
        int32_t const q = indices.nbDims;
        g.rank = r;
        g.bytes = inputs[0].volume() * g.p.esize;
        g.data = data;
        g.indices = indices;
        g.dataStrides = stridesOf(data);
        if (g.p.mode == ScatterMode::kELEMENT)
        {
            g.volume = dimsProduct(indices, 0, r);
            g.extent = data.d[g.p.axis];
        }
        else
        {
            g.tuples = dimsProduct(indices, 0, q - 1);
            g.sliceBytes = dimsProduct(data, g.p.k, r) * g.p.esize;
        }
        mReady = true;
        return Status::ok();
    }

    Status run(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs, RunContext const&) override
    {
        if (!mReady)
        {
            return notReshaped(mSetup, "Scatter");
        }
        TensorView const& data = inputs[0];
        TensorView const& out = outputs[0];
        if (mGeometry.bytes > 0 && out.data != data.data)
        {
            std::memmove(out.data, data.data, static_cast<size_t>(mGeometry.bytes));
        }
        if (mGeometry.p.mode == ScatterMode::kELEMENT)
        {
            return scatterElement(mSetup, mGeometry, inputs[1], inputs[2], out);
        }
        return scatterND(mSetup, mGeometry, inputs[1], inputs[2], out);
    }

private:
    KernelSetup mSetup;
    ScatterGeometry mGeometry;
    bool mReady{false};
};

} // namespace

StatusOr<std::unique_ptr<Kernel>> createScatterKernel(KernelSetup const& setup)
{
    if (setup.node == nullptr)
    {
        return internalError("Scatter kernel: no plan node");
    }
    KILN_ASSIGN_OR_RETURN(ScatterParams const params, readScatterParams(setup));
    return std::unique_ptr<Kernel>(std::make_unique<ScatterKernel>(setup, params));
}

} // namespace kiln
