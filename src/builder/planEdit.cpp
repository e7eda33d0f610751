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

//! True when the permutation stored under `key` is absent, empty or the identity.
bool identityPermutation(PlanNode const& node, char const* key)
{
    if (!node.attrs.has(key))
    {
        return true;
    }
    std::vector<int64_t> const perm = node.attrs.getInts(key);
    for (size_t i = 0; i < perm.size(); ++i)
    {
        if (perm[i] != static_cast<int64_t>(i))
        {
            return false;
        }
    }
    return true;
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

bool isPureReshape(PlanNode const& node)
{
    return node.kind == nvinfer1::LayerType::kSHUFFLE && !node.inputs.empty() && node.inputs[0] >= 0
        && node.outputs.size() == 1 && !node.attrs.has("cf.loop") && identityPermutation(node, "first_transpose")
        && identityPermutation(node, "second_transpose");
}

} // namespace kiln
