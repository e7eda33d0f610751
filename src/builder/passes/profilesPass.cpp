// profilesPass: turns the config's optimization profiles into PlanProfiles, checking each one against the
// network inputs, and evaluates the network's shapes at every profile's kMIN/kOPT/kMAX so that a profile
// the network cannot run with fails the build (naming the profile, selector and the failing check).
// Data-dependent sizes (plugin size tensors) are evaluated at 0, their opt value and their upper bound.
#include "builder/buildContext.h"
#include "builder/dataDependentShapes.h"

namespace kiln
{
using nvinfer1::Dims;

namespace
{
char const* selectorName(int32_t s)
{
    return s == 0 ? "kMIN" : (s == 1 ? "kOPT" : "kMAX");
}

std::string dimsToString(Dims const& d)
{
    std::string s = "[";
    for (int32_t i = 0; i < d.nbDims; ++i)
    {
        s += (i ? "," : "") + std::to_string(d.d[i]);
    }
    return s + "]";
}

bool isDynamicInput(Plan const& plan, PlanTensor const& t)
{
    if (t.hostShapeTensor && t.type != nvinfer1::DataType::kFLOAT) // FLOAT ones have no profile values
    {
        return true;
    }
    for (ExprId id : t.dims)
    {
        if (!plan.shapes.isConstant(id))
        {
            return true;
        }
    }
    return false;
}

Dims staticDims(Plan const& plan, PlanTensor const& t)
{
    Dims d{};
    d.nbDims = static_cast<int32_t>(t.dims.size());
    for (size_t i = 0; i < t.dims.size(); ++i)
    {
        d.d[i] = plan.shapes.valueOrUnknown(t.dims[i]);
    }
    return d;
}

Status makeProfile(BuildContext& ctx, std::map<std::string, ProfileEntry> const& entries, int32_t index, PlanProfile& out)
{
    Plan const& plan = ctx.plan;
    std::string const where = "optimization profile " + std::to_string(index);
    for (auto const& [name, entry] : entries)
    {
        bool found = false;
        for (int32_t io : plan.ioTensors)
        {
            PlanTensor const& t = plan.tensors[static_cast<size_t>(io)];
            found = found || (t.ioMode == nvinfer1::TensorIOMode::kINPUT && t.name == name);
        }
        if (!found)
        {
            return invalidConfig(where + " sets shapes for '" + name + "', which is not a network input");
        }
    }
    for (int32_t io : plan.ioTensors)
    {
        PlanTensor const& t = plan.tensors[static_cast<size_t>(io)];
        if (t.ioMode != nvinfer1::TensorIOMode::kINPUT)
        {
            continue;
        }
        PlanProfileInput in;
        in.tensor = io;
        Dims const declared = staticDims(plan, t);
        auto it = entries.find(t.name);
        bool const hasDims = it != entries.end() && it->second.dimsSet[0];
        if (!hasDims)
        {
            for (int32_t i = 0; i < declared.nbDims; ++i)
            {
                if (declared.d[i] < 0)
                {
                    return invalidConfig(where + " does not set dimensions for input '" + t.name + "', which has "
                        + "runtime dimensions " + dimsToString(declared) + " (use IOptimizationProfile::setDimensions)");
                }
            }
            in.min = in.opt = in.max = declared;
        }
        else
        {
            ProfileEntry const& e = it->second;
            in.min = e.dims[0];
            in.opt = e.dims[1];
            in.max = e.dims[2];
            for (int32_t s = 0; s < 3; ++s)
            {
                Dims const& d = e.dims[s];
                if (d.nbDims != declared.nbDims)
                {
                    return invalidConfig(where + ": " + selectorName(s) + " dimensions " + dimsToString(d) + " of input '"
                        + t.name + "' have rank " + std::to_string(d.nbDims) + ", but the input has rank "
                        + std::to_string(declared.nbDims));
                }
                for (int32_t i = 0; i < d.nbDims; ++i)
                {
                    if (declared.d[i] >= 0 && d.d[i] != declared.d[i])
                    {
                        return invalidConfig(where + ": " + selectorName(s) + " dimension " + std::to_string(i)
                            + " of input '" + t.name + "' is " + std::to_string(d.d[i]) + ", but the network fixes it to "
                            + std::to_string(declared.d[i]));
                    }
                }
            }
            for (int32_t i = 0; i < declared.nbDims; ++i)
            {
                if (in.min.d[i] > in.opt.d[i] || in.opt.d[i] > in.max.d[i])
                {
                    return invalidConfig(where + ": input '" + t.name + "' needs kMIN <= kOPT <= kMAX, got "
                        + dimsToString(in.min) + ", " + dimsToString(in.opt) + ", " + dimsToString(in.max));
                }
            }
        }
        // FLOAT shape tensor inputs (run-time resize scales) have no profile values: setShapeValuesV2 takes
        // integers. What depends on them is sized at run time (see profileSymbolValues).
        if (t.hostShapeTensor && t.type != nvinfer1::DataType::kFLOAT)
        {
            if (it == entries.end() || !it->second.valuesSet[0] || !it->second.valuesSet[1] || !it->second.valuesSet[2])
            {
                return invalidConfig(where + " does not set values for shape tensor input '" + t.name
                    + "' (use IOptimizationProfile::setShapeValuesV2 for kMIN, kOPT and kMAX)");
            }
            ProfileEntry const& e = it->second;
            if (e.values[0].size() != t.values.size())
            {
                return invalidConfig(where + ": shape tensor input '" + t.name + "' has " + std::to_string(t.values.size())
                    + " values, but the profile gives " + std::to_string(e.values[0].size()));
            }
            in.minValues = e.values[0];
            in.optValues = e.values[1];
            in.maxValues = e.values[2];
        }
        out.inputs.push_back(std::move(in));
    }
    return Status::ok();
}

} // namespace

StatusOr<std::vector<int64_t>> profileSymbolValues(Plan const& plan, PlanProfile const& profile, int32_t selector)
{
    std::vector<int64_t> values(plan.shapes.symbols().size(), 0);
    std::vector<int8_t> bound(values.size(), 0);
    auto bind = [&](ExprId id, int64_t v, std::string const& what) -> Status {
        ExprNode const& n = plan.shapes.node(id);
        if (n.op != ExprOp::kSYMBOL)
        {
            return Status::ok();
        }
        size_t const s = static_cast<size_t>(n.value);
        if (bound[s] && values[s] != v)
        {
            return invalidConfig(std::string(selectorName(selector)) + ": dimension '" + plan.shapes.symbols()[s].name
                + "' is " + std::to_string(values[s]) + " in one input but " + std::to_string(v) + " in " + what);
        }
        values[s] = v;
        bound[s] = 1;
        return Status::ok();
    };
    for (PlanProfileInput const& in : profile.inputs)
    {
        PlanTensor const& t = plan.tensors[static_cast<size_t>(in.tensor)];
        Dims const& d = selector == 0 ? in.min : (selector == 1 ? in.opt : in.max);
        for (size_t i = 0; i < t.dims.size() && static_cast<int32_t>(i) < d.nbDims; ++i)
        {
            KILN_RETURN_IF_ERROR(bind(t.dims[i], d.d[i], "input '" + t.name + "'"));
        }
        std::vector<int64_t> const& v = selector == 0 ? in.minValues : (selector == 1 ? in.optValues : in.maxValues);
        for (size_t i = 0; i < t.values.size() && i < v.size(); ++i)
        {
            KILN_RETURN_IF_ERROR(bind(t.values[i], v[i], "shape tensor input '" + t.name + "'"));
        }
    }
    for (size_t s = 0; s < values.size(); ++s)
    {
        if (plan.shapes.symbols()[s].kind == SymbolKind::kINPUT_FLOAT_VALUE)
        {
            values[s] = unknownFloatBits(); // not known before the run: what depends on it is not evaluated
            continue;
        }
        if (!bound[s] && plan.shapes.symbols()[s].kind != SymbolKind::kDATA_DEPENDENT)
        {
            return internalError("shape symbol '" + plan.shapes.symbols()[s].name + "' is not bound by any input");
        }
    }
    // Plugin size tensors: 0 at kMIN, their opt value at kOPT and their upper bound at kMAX.
    KILN_RETURN_IF_ERROR(bindDataDependentSymbols(plan.shapes, selector, values));
    return values;
}

Status profilesPass(BuildContext& ctx)
{
    Plan& plan = ctx.plan;
    auto const& profiles = ctx.config.profiles();
    bool dynamic = false;
    for (int32_t io : plan.ioTensors)
    {
        PlanTensor const& t = plan.tensors[static_cast<size_t>(io)];
        dynamic = dynamic || (t.ioMode == nvinfer1::TensorIOMode::kINPUT && isDynamicInput(plan, t));
    }
    if (profiles.empty())
    {
        if (dynamic)
        {
            return invalidConfig("the network has inputs with runtime dimensions or shape tensor inputs, but no "
                                 "optimization profile was added to the builder config (IBuilderConfig::addOptimizationProfile)");
        }
        PlanProfile p;
        KILN_RETURN_IF_ERROR(makeProfile(ctx, {}, 0, p));
        plan.profiles.push_back(std::move(p));
    }
    for (size_t i = 0; i < profiles.size(); ++i)
    {
        PlanProfile p;
        KILN_RETURN_IF_ERROR(makeProfile(ctx, profiles[i], static_cast<int32_t>(i), p));
        plan.profiles.push_back(std::move(p));
    }
    for (size_t i = 0; i < plan.profiles.size(); ++i)
    {
        for (int32_t s = 0; s < 3; ++s)
        {
            std::string const where = "optimization profile " + std::to_string(i) + " at " + selectorName(s) + " shapes";
            auto symbols = profileSymbolValues(plan, plan.profiles[i], s);
            if (!symbols.isOk())
            {
                return symbols.status().withContext(where);
            }
            std::vector<int64_t> values;
            KILN_RETURN_IF_ERROR(plan.shapes.evaluate(*symbols, values).withContext(where));
            for (PlanTensor const& t : plan.tensors)
            {
                for (ExprId id : t.dims)
                {
                    if (values[static_cast<size_t>(id)] < 0)
                    {
                        return invalidConfig(where + ": tensor '" + t.name + "' would get a negative dimension ("
                            + plan.shapes.toString(id) + " = " + std::to_string(values[static_cast<size_t>(id)]) + ")");
                    }
                }
            }
        }
    }
    return Status::ok();
}

} // namespace kiln
