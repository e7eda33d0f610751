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

} // namespace kiln
