// Test helpers that look inside a built engine: its plan (decoded from the engine bytes with the engine reader) and
// nodes by name.
#pragma once

#include "common/networkRunner.h"
#include "engine/engineReader.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>

namespace kiln::test
{

//! The plan of the engine `r` built (readEngine of its bytes); nullopt when the build failed.
inline std::optional<Plan> builtPlan(NetworkRunner& r)
{
    if (r.engineBytes().empty())
    {
        return std::nullopt;
    }
    auto plan = readEngine(r.engineBytes().data(), r.engineBytes().size());
    if (!plan.isOk())
    {
        ADD_FAILURE() << plan.status().message();
        return std::nullopt;
    }
    return std::move(plan).value();
}

//! The node named `name`, or nullptr.
inline PlanNode const* findNode(Plan const& plan, std::string const& name)
{
    for (PlanNode const& n : plan.nodes)
    {
        if (n.name == name)
        {
            return &n;
        }
    }
    return nullptr;
}

} // namespace kiln::test
