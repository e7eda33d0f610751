// Plan edits shared by the builder's passes (see planEdit.h).
#include "builder/planEdit.h"

namespace kiln
{
namespace
{
template <typename T>
void eraseEntries(std::vector<T>& values, std::vector<bool> const& erased)
{
    if (values.size() != erased.size())
    {
        return; // not filled per node (yet)
    }
    std::vector<T> kept;
    kept.reserve(values.size());
    for (size_t n = 0; n < values.size(); ++n)
    {
        if (!erased[n])
        {
            kept.push_back(values[n]);
        }
    }
    values = std::move(kept);
}
} // namespace

void erasePlanNodes(Plan& plan, std::vector<bool> const& erased)
{
    for (PlanProfile& profile : plan.profiles)
    {
        eraseEntries(profile.workspaceSizes, erased);
        eraseEntries(profile.workspaceOffsets, erased);
    }
    eraseEntries(plan.nodes, erased);
}

void insertPlanNodes(Plan& plan, std::vector<PlanNode> front, std::vector<std::vector<PlanNode>> after)
{
    size_t const count = plan.nodes.size();
    after.resize(count);
    std::vector<PlanNode> nodes;
    std::vector<int8_t> added; // per new position: 1 for an inserted node
    auto take = [&](std::vector<PlanNode>& list) {
        for (PlanNode& n : list)
        {
            nodes.push_back(std::move(n));
            added.push_back(1);
        }
    };
    take(front);
    for (size_t k = 0; k < count; ++k)
    {
        nodes.push_back(std::move(plan.nodes[k]));
        added.push_back(0);
        take(after[k]);
    }
    auto spread = [&](std::vector<int64_t>& values, int64_t none) {
        if (values.size() != count)
        {
            return; // not filled per node (yet)
        }
        std::vector<int64_t> out;
        out.reserve(nodes.size());
        size_t old = 0;
        for (int8_t isNew : added)
        {
            out.push_back(isNew != 0 ? none : values[old++]);
        }
        values = std::move(out);
    };
    for (PlanProfile& profile : plan.profiles)
    {
        spread(profile.workspaceSizes, 0);
        spread(profile.workspaceOffsets, -1);
    }
    plan.nodes = std::move(nodes);
}

int32_t addDerivedTensor(Plan& plan, int32_t source, std::string name, nvinfer1::DataType type,
    nvinfer1::TensorFormat format, float scale)
{
    PlanTensor t = plan.tensors[static_cast<size_t>(source)];
    t.name = std::move(name);
    t.type = type;
    t.format = format;
    t.scale = type == nvinfer1::DataType::kINT8 ? scale : -1.0F;
    t.ioMode = nvinfer1::TensorIOMode::kNONE;
    t.hostShapeTensor = false;
    t.constant = -1;
    t.dimNames.clear();
    t.hasValues = false;
    t.values.clear();
    t.sizeTensorSymbol = -1;
    plan.tensors.push_back(std::move(t));
    return static_cast<int32_t>(plan.tensors.size()) - 1;
}

PlanNode makeReformatNode(Plan const& plan, std::string name, int32_t from, int32_t to)
{
    PlanTensor const& in = plan.tensors[static_cast<size_t>(from)];
    PlanTensor const& out = plan.tensors[static_cast<size_t>(to)];
    PlanNode n;
    n.kind = nvinfer1::LayerType::kIDENTITY;
    n.name = std::move(name);
    n.inputs = {from};
    n.outputs = {to};
    n.attrs.setInt("reformat", 1);
    n.attrs.setInt("inFormat", static_cast<int64_t>(in.format));
    n.attrs.setInt("outFormat", static_cast<int64_t>(out.format));
    n.attrs.setFloat("inScale", in.scale);
    n.attrs.setFloat("outScale", out.scale);
    return n;
}

} // namespace kiln
