// Shared host-side logic of the pooling kernels (see poolingParams.h).
#include "backends/common/poolingParams.h"

#include <string>

namespace kiln
{
using nvinfer1::DataType;
using nvinfer1::PoolingType;

StatusOr<PoolConfig> readPoolConfig(PlanNode const& node)
{
    PoolConfig cfg;
    auto params = parseWindowParams(node.attrs, WindowKind::kPOOLING);
    if (!params.isOk())
    {
        return params.status().withContext("layer '" + node.name + "'");
    }
    cfg.params = std::move(params.value());
    KILN_ASSIGN_OR_RETURN(int64_t type, node.attrs.requireInt("poolingType"));
    if (type < 0 || type >= nvinfer1::EnumMax<PoolingType>())
    {
        return invalidArgument("layer '" + node.name + "': invalid poolingType " + std::to_string(type));
    }
    cfg.type = static_cast<PoolingType>(type);
    KILN_ASSIGN_OR_RETURN(cfg.blend, node.attrs.requireFloat("blendFactor"));
    if (!(cfg.blend >= 0.0 && cfg.blend <= 1.0))
    {
        return invalidArgument("layer '" + node.name + "': blendFactor outside [0, 1]");
    }
    KILN_ASSIGN_OR_RETURN(int64_t exclude, node.attrs.requireInt("averageCountExcludesPadding"));
    cfg.excludePadding = exclude != 0;
    return cfg;
}

bool isPoolStorage(DataType t)
{
    return t == DataType::kFLOAT || t == DataType::kHALF || t == DataType::kBF16 || t == DataType::kINT8;
}

namespace
{
Status checkPoolShapesWith(PlanNode const& node, PoolConfig const& cfg, std::vector<TensorView> const& inputs,
    std::vector<TensorView> const& outputs, bool checkBuffers, std::vector<WindowExtent>& ext)
{
    auto fail = [&](std::string const& msg) { return invalidArgument("layer '" + node.name + "': " + msg); };
    WindowParams const& p = cfg.params;
    int32_t const rank = p.nbSpatial + 2;
    if (inputs.size() != 1 || outputs.size() != 1)
    {
        return fail("expected 1 input and 1 output");
    }
    TensorView const& in = inputs[0];
    TensorView const& out = outputs[0];
    if (in.dims.nbDims != rank || out.dims.nbDims != rank)
    {
        return fail("input/output rank does not match the " + std::to_string(p.nbSpatial) + "-D window");
    }
    if (!isPoolStorage(in.type) || !isPoolStorage(out.type))
    {
        return fail("unsupported input/output type");
    }
    if (checkBuffers && ((in.data == nullptr && in.volume() != 0) || (out.data == nullptr && out.volume() != 0)))
    {
        return fail("missing input or output buffer");
    }
    auto e = computeWindowExtents(WindowKind::kPOOLING, p, std::vector<int64_t>(in.dims.d + 2, in.dims.d + rank));
    if (!e.isOk())
    {
        return fail(e.status().message());
    }
    ext = std::move(e.value());
    if (out.dims.d[0] != in.dims.d[0] || out.dims.d[1] != in.dims.d[1])
    {
        return fail("output dimensions do not match [N, C, ...] of the input");
    }
    for (int32_t i = 0; i < p.nbSpatial; ++i)
    {
        if (out.dims.d[i + 2] != ext[static_cast<size_t>(i)].out)
        {
            return fail("output spatial dimension " + std::to_string(i) + " is " + std::to_string(out.dims.d[i + 2])
                + " but the padding mode gives " + std::to_string(ext[static_cast<size_t>(i)].out));
        }
    }
    return Status::ok();
}
} // namespace

Status checkPoolShapes(PlanNode const& node, PoolConfig const& cfg, std::vector<TensorView> const& inputs,
    std::vector<TensorView> const& outputs, std::vector<WindowExtent>& ext)
{
    return checkPoolShapesWith(node, cfg, inputs, outputs, true, ext);
}

Status poolShapes(PlanNode const& node, PoolConfig const& cfg, std::vector<TensorView> const& inputs,
    std::vector<TensorView> const& outputs, std::vector<WindowExtent>& ext)
{
    return checkPoolShapesWith(node, cfg, inputs, outputs, false, ext);
}

} // namespace kiln
