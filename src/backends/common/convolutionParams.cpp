// Shared host-side logic of the convolution and deconvolution kernels (see convolutionParams.h).
#include "backends/common/convolutionParams.h"

#include <algorithm>
#include <string>

namespace kiln
{
using nvinfer1::DataType;

StatusOr<ConvConfig> readConvConfig(PlanNode const& node, bool deconvolution)
{
    ConvConfig cfg;
    cfg.deconvolution = deconvolution;
    auto params = parseWindowParams(node.attrs, deconvolution ? WindowKind::kDECONVOLUTION : WindowKind::kCONVOLUTION);
    if (!params.isOk())
    {
        return params.status().withContext("layer '" + node.name + "'");
    }
    cfg.params = std::move(params.value());
    KILN_ASSIGN_OR_RETURN(cfg.k, node.attrs.requireInt("nbOutputMaps"));
    KILN_ASSIGN_OR_RETURN(cfg.groups, node.attrs.requireInt("nbGroups"));
    if (cfg.k < 1 || cfg.groups < 1 || cfg.k % cfg.groups != 0)
    {
        return invalidArgument("layer '" + node.name + "': invalid nbOutputMaps " + std::to_string(cfg.k)
            + " / nbGroups " + std::to_string(cfg.groups));
    }
    return cfg;
}

size_t convolutionOwnInputs(PlanNode const& node)
{
    bool const fusedAdd = node.attrs.getInt("fuse.add", 0) != 0;
    return fusedAdd && !node.inputs.empty() ? node.inputs.size() - 1 : node.inputs.size();
}

StatusOr<FusedEpilogue> readConvolutionEpilogue(PlanNode const& node, bool gateAllowed)
{
    size_t const own = convolutionOwnInputs(node);
    if (node.attrs.getInt("fuse.add", 0) != 0 && (own < 1 || own > 3))
    {
        return invalidArgument("layer '" + node.name + "': fused addition (fuse.add) needs the data input, optional "
            "kernel and bias tensors and then the added tensor; the node has " + std::to_string(node.inputs.size())
            + " inputs");
    }
    return readFusedEpilogue(node, own, false, gateAllowed);
}

bool isConvFloatStorage(DataType t)
{
    return t == DataType::kFLOAT || t == DataType::kHALF || t == DataType::kBF16;
}

std::vector<int64_t> convKernelShape(ConvConfig const& cfg, int64_t c)
{
    std::vector<int64_t> s;
    s.reserve(2 + cfg.params.kernel.size());
    s.push_back(cfg.deconvolution ? c : cfg.k);
    s.push_back(cfg.deconvolution ? cfg.k / cfg.groups : c / cfg.groups);
    for (int64_t e : cfg.params.kernel)
    {
        s.push_back(e);
    }
    return s;
}

WindowGeometry toWindowGeometry(WindowParams const& p, std::vector<WindowExtent> const& ext)
{
    WindowGeometry g;
    int32_t const offset = 3 - p.nbSpatial;
    for (int32_t i = 0; i < p.nbSpatial && i < static_cast<int32_t>(ext.size()); ++i)
    {
        int32_t const j = i + offset;
        size_t const s = static_cast<size_t>(i);
        g.in[j] = ext[s].in;
        g.out[j] = ext[s].out;
        g.kernel[j] = p.kernel[s];
        g.stride[j] = p.stride[s];
        g.dilation[j] = p.dilation[s];
        g.padBefore[j] = ext[s].padBefore;
        g.padAfter[j] = ext[s].padAfter;
    }
    return g;
}

namespace
{
std::vector<int64_t> extents(nvinfer1::Dims const& d)
{
    return std::vector<int64_t>(d.d, d.d + std::max(0, std::min(d.nbDims, nvinfer1::Dims::MAX_DIMS)));
}

int64_t product(std::vector<int64_t> const& v)
{
    int64_t p = 1;
    for (int64_t x : v)
    {
        p *= x;
    }
    return p;
}
} // namespace

namespace
{
//! checkConvShapes with the presence of the kernel and bias inputs given, and the buffers checked or not.
Status checkConvShapesWith(PlanNode const& node, ConvConfig const& cfg, std::vector<TensorView> const& inputs,
    std::vector<TensorView> const& outputs, int64_t slotKernelCount, int64_t slotBiasCount, bool kernelTensor,
    bool biasTensor, bool checkBuffers, ConvShapes& s)
{
    auto fail = [&](std::string const& msg) { return invalidArgument("layer '" + node.name + "': " + msg); };
    WindowParams const& p = cfg.params;
    int32_t const rank = p.nbSpatial + 2;
    if (inputs.empty() || inputs.size() > 3 || outputs.size() != 1)
    {
        return fail("expected 1 to 3 inputs and 1 output");
    }
    TensorView const& in = inputs[0];
    TensorView const& out = outputs[0];
    if (in.dims.nbDims != rank || out.dims.nbDims != rank)
    {
        return fail("input/output rank does not match the " + std::to_string(p.nbSpatial) + "-D kernel");
    }
    if (!isConvFloatStorage(in.type) || !isConvFloatStorage(out.type))
    {
        return fail("unsupported input/output type");
    }
    s.n = in.dims.d[0];
    s.c = in.dims.d[1];
    if (s.c < 1 || s.c % cfg.groups != 0)
    {
        return fail("input channels " + std::to_string(s.c) + " are not a positive multiple of nbGroups");
    }
    if (checkBuffers && ((in.data == nullptr && in.volume() != 0) || (out.data == nullptr && out.volume() != 0)))
    {
        return fail("missing input or output buffer");
    }
    std::vector<int64_t> const spatial(in.dims.d + 2, in.dims.d + rank);
    auto ext = computeWindowExtents(cfg.deconvolution ? WindowKind::kDECONVOLUTION : WindowKind::kCONVOLUTION, p, spatial);
    if (!ext.isOk())
    {
        return fail(ext.status().message());
    }
    s.ext = std::move(ext.value());
    if (out.dims.d[0] != s.n || out.dims.d[1] != cfg.k)
    {
        return fail("output dimensions do not match [N, K, ...]");
    }
    for (int32_t i = 0; i < p.nbSpatial; ++i)
    {
        if (out.dims.d[i + 2] != s.ext[static_cast<size_t>(i)].out)
        {
            return fail("output spatial dimension " + std::to_string(i) + " is " + std::to_string(out.dims.d[i + 2])
                + " but the padding mode gives " + std::to_string(s.ext[static_cast<size_t>(i)].out));
        }
    }
    std::vector<int64_t> const kShape = convKernelShape(cfg, s.c);
    s.kernelTensor = inputs.size() > 1 && kernelTensor;
    if (s.kernelTensor)
    {
        TensorView const& kt = inputs[1];
        if (extents(kt.dims) != kShape || !isConvFloatStorage(kt.type))
        {
            return fail("kernel input 1 does not have the expected shape or type");
        }
    }
    else if (slotKernelCount != product(kShape))
    {
        return fail("kernel weights have " + std::to_string(slotKernelCount) + " values but "
            + std::to_string(product(kShape)) + " are needed");
    }
    s.biasTensor = inputs.size() > 2 && biasTensor;
    if (s.biasTensor)
    {
        TensorView const& bt = inputs[2];
        if (bt.dims.nbDims != 1 || bt.dims.d[0] != cfg.k || !isConvFloatStorage(bt.type))
        {
            return fail("bias input 2 must be [K] with a float type");
        }
    }
    else if (slotBiasCount != 0 && slotBiasCount != cfg.k)
    {
        return fail("bias weights have " + std::to_string(slotBiasCount) + " values but nbOutputMaps is "
            + std::to_string(cfg.k));
    }
    s.hasBias = s.biasTensor || slotBiasCount != 0;
    return Status::ok();
}

} // namespace

Status checkConvShapes(PlanNode const& node, ConvConfig const& cfg, std::vector<TensorView> const& inputs,
    std::vector<TensorView> const& outputs, int64_t slotKernelCount, int64_t slotBiasCount, ConvShapes& s)
{
    bool const kernelTensor = inputs.size() > 1 && inputs[1].data != nullptr;
    bool const biasTensor = inputs.size() > 2 && inputs[2].data != nullptr;
    return checkConvShapesWith(
        node, cfg, inputs, outputs, slotKernelCount, slotBiasCount, kernelTensor, biasTensor, true, s);
}

Status convShapes(KernelSetup const& setup, ConvConfig const& cfg, std::vector<TensorView> const& inputs,
    std::vector<TensorView> const& outputs, int64_t slotKernelCount, int64_t slotBiasCount, ConvShapes& s)
{
    auto const connected = [&](size_t slot) { return slot < setup.inputPresent.size() && setup.inputPresent[slot]; };
    return checkConvShapesWith(
        *setup.node, cfg, inputs, outputs, slotKernelCount, slotBiasCount, connected(1), connected(2), false, s);
}

std::string convolutionTypeProblem(KernelSetup const& setup, size_t own, bool hasAdd)
{
    if (setup.inputTypes.empty() || setup.outputTypes.size() != 1)
    {
        return "expected 1 to 3 inputs and 1 output";
    }
    if (!isConvFloatStorage(setup.inputTypes[0]) || !isConvFloatStorage(setup.outputTypes[0]))
    {
        return "input/output types must be kFLOAT, kHALF or kBF16";
    }
    for (size_t i = 1; i < own && i < setup.inputTypes.size(); ++i)
    {
        bool const present = i >= setup.inputPresent.size() || setup.inputPresent[i];
        if (present && !isConvFloatStorage(setup.inputTypes[i]))
        {
            return "kernel/bias input " + std::to_string(i) + " must be kFLOAT, kHALF or kBF16";
        }
    }
    if (hasAdd && !isConvFloatStorage(setup.inputTypes.back()))
    {
        return "the fused addition's input must be kFLOAT, kHALF or kBF16";
    }
    for (size_t i = 0; i < setup.weights.size() && i < 2; ++i)
    {
        WeightsView const& w = setup.weights[i];
        if (w.present() && (w.data == nullptr || !isConvFloatStorage(w.type)))
        {
            return "weights slot " + std::to_string(i) + " has no data or a non-float type";
        }
    }
    return {};
}

} // namespace kiln
