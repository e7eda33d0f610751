// Test helpers that look inside a built engine: its plan (decoded from the engine bytes with the engine reader) and
// nodes by name or by kind.
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

//! The first node of `kind`, or nullptr.
inline PlanNode const* firstNodeOfKind(Plan const& plan, nvinfer1::LayerType kind)
{
    for (PlanNode const& n : plan.nodes)
    {
        if (n.kind == kind)
        {
            return &n;
        }
    }
    return nullptr;
}

//! How many nodes of `kind` the plan has.
inline int32_t countKind(Plan const& plan, nvinfer1::LayerType kind)
{
    int32_t count = 0;
    for (PlanNode const& n : plan.nodes)
    {
        count += n.kind == kind ? 1 : 0;
    }
    return count;
}

} // namespace kiln::test
