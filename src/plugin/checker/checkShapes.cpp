// ShapeModel implementation: symbolic inputs, one shape inference, evaluation at the main/alternative shapes.
#include "plugin/checker/checkShapes.h"

#include <algorithm>
#include <functional>

namespace kiln::checker
{

ShapeModel::ShapeModel(CheckSpec const& spec, bool symbolic)
    : mSpec(spec)
    , mHasAlt(!spec.altShapes.empty())
{
    for (int32_t i = 0; i < spec.nbInputs(); ++i)
    {
        nvinfer1::Dims const& main = spec.shapes[static_cast<size_t>(i)];
        ShapeExpr shape;
        for (int32_t k = 0; k < main.nbDims; ++k)
        {
            bool differs = mHasAlt && spec.altShapes[static_cast<size_t>(i)].d[k] != main.d[k];
            if (symbolic && differs)
            {
                ExprId id = mGraph.symbol(SymbolKind::kINPUT_DIM,
                    "input" + std::to_string(i) + "[" + std::to_string(k) + "]");
                auto symbolIndex = static_cast<size_t>(mGraph.node(id).value);
                if (mSymbolSource.size() <= symbolIndex)
                {
                    mSymbolSource.resize(symbolIndex + 1, {-1, -1});
                }
                mSymbolSource[symbolIndex] = {i, k};
                shape.emplace_back(&mGraph, id);
            }
            else
            {
                shape.emplace_back(&mGraph, mGraph.constant(main.d[k]));
            }
        }
        mInputs.push_back(std::move(shape));
    }
    for (std::vector<int64_t> const& values : spec.shapeInputs)
    {
        std::vector<DimExpr> exprs;
        for (int64_t v : values)
        {
            exprs.emplace_back(&mGraph, mGraph.constant(v));
        }
        mShapeInputs.push_back(std::move(exprs));
    }
}

Status ShapeModel::infer(PluginAdapter& plugin)
{
    KILN_ASSIGN_OR_RETURN(mShapes, plugin.outputShapes(mGraph, mInputs, mShapeInputs));
    mInferred = true;
    return Status::ok();
}

bool ShapeModel::isSizeTensorOutput(int32_t output) const
{
    return std::any_of(mShapes.sizeTensors.begin(), mShapes.sizeTensors.end(),
        [output](PluginSizeTensor const& st) { return st.output == output; });
}

bool ShapeModel::hasDataDependentExtent(int32_t output) const
{
    if (output < 0 || output >= nbOutputs())
    {
        return false;
    }
    std::vector<int8_t> memo(mGraph.nodes().size(), -1);
    std::function<bool(ExprId)> depends = [&](ExprId id) -> bool {
        if (!mGraph.isValid(id))
        {
            return false;
        }
        int8_t& known = memo[static_cast<size_t>(id)];
        if (known >= 0)
        {
            return known != 0;
        }
        ExprNode const& node = mGraph.node(id);
        bool result = false;
        if (node.op == ExprOp::kSYMBOL)
        {
            auto s = static_cast<size_t>(node.value);
            result = s < mGraph.symbols().size() && mGraph.symbols()[s].kind == SymbolKind::kDATA_DEPENDENT;
        }
        else if (node.op != ExprOp::kCONSTANT)
        {
            result = depends(node.a) || depends(node.b) || depends(node.c);
        }
        known = result ? 1 : 0;
        return result;
    };
    for (DimExpr const& d : mShapes.outputs[static_cast<size_t>(output)])
    {
        if (depends(d.id()))
        {
            return true;
        }
    }
    return false;
}

nvinfer1::Dims ShapeModel::inputDims(int32_t input, ShapeSet set) const
{
    bool alt = set == ShapeSet::kALTERNATIVE && mHasAlt;
    return alt ? mSpec.altShapes[static_cast<size_t>(input)] : mSpec.shapes[static_cast<size_t>(input)];
}

Status ShapeModel::evaluate(ShapeSet set, std::map<int32_t, int64_t> const* sizes, std::vector<int64_t>& values) const
{
    if (!mInferred)
    {
        return internalError("plugin checker: output shapes evaluated before shape inference");
    }
    std::vector<SymbolInfo> const& symbols = mGraph.symbols();
    std::vector<int64_t> symbolValues(symbols.size(), 0);
    for (size_t s = 0; s < symbols.size(); ++s)
    {
        if (s < mSymbolSource.size() && mSymbolSource[s].first >= 0)
        {
            nvinfer1::Dims dims = inputDims(mSymbolSource[s].first, set);
            symbolValues[s] = dims.d[mSymbolSource[s].second];
        }
    }
    // Pass 1: data-dependent symbols at 0, to learn the upper bounds (they depend on input extents only).
    KILN_RETURN_IF_ERROR(mGraph.evaluate(symbolValues, values));
    for (PluginSizeTensor const& st : mShapes.sizeTensors)
    {
        auto s = static_cast<size_t>(mGraph.node(st.symbol).value);
        int64_t value = values[static_cast<size_t>(st.upper)];
        if (sizes != nullptr)
        {
            auto it = sizes->find(st.output);
            if (it != sizes->end())
            {
                value = it->second;
            }
        }
        symbolValues[s] = value;
    }
    if (mShapes.sizeTensors.empty())
    {
        return Status::ok();
    }
    return mGraph.evaluate(symbolValues, values);
}

nvinfer1::Dims ShapeModel::dimsOf(ShapeExpr const& shape, std::vector<int64_t> const& values) const
{
    nvinfer1::Dims dims{};
    dims.nbDims = static_cast<int32_t>(shape.size());
    for (size_t k = 0; k < shape.size() && k < static_cast<size_t>(nvinfer1::Dims::MAX_DIMS); ++k)
    {
        dims.d[k] = values[static_cast<size_t>(shape[k].id())];
    }
    return dims;
}

StatusOr<std::vector<nvinfer1::Dims>> ShapeModel::outputUpperDims(ShapeSet set) const
{
    return outputDims(set, {});
}

StatusOr<std::vector<nvinfer1::Dims>> ShapeModel::outputDims(
    ShapeSet set, std::map<int32_t, int64_t> const& sizes) const
{
    std::vector<int64_t> values;
    KILN_RETURN_IF_ERROR(evaluate(set, &sizes, values));
    std::vector<nvinfer1::Dims> dims;
    for (ShapeExpr const& shape : mShapes.outputs)
    {
        dims.push_back(dimsOf(shape, values));
    }
    return dims;
}

StatusOr<int64_t> ShapeModel::sizeUpperBound(int32_t output, ShapeSet set) const
{
    std::vector<int64_t> values;
    KILN_RETURN_IF_ERROR(evaluate(set, nullptr, values));
    for (PluginSizeTensor const& st : mShapes.sizeTensors)
    {
        if (st.output == output)
        {
            return values[static_cast<size_t>(st.upper)];
        }
    }
    return internalError("plugin checker: output " + std::to_string(output) + " is not a size tensor");
}

nvinfer1::Dims ShapeModel::buildFormDims(int32_t pos) const
{
    int32_t const nbIn = static_cast<int32_t>(mInputs.size());
    ShapeExpr const& shape = pos < nbIn ? mInputs[static_cast<size_t>(pos)]
                                        : mShapes.outputs[static_cast<size_t>(pos - nbIn)];
    nvinfer1::Dims dims{};
    dims.nbDims = static_cast<int32_t>(shape.size());
    for (size_t k = 0; k < shape.size(); ++k)
    {
        dims.d[k] = shape[k].known();
    }
    return dims;
}

StatusOr<std::vector<nvinfer1::DynamicPluginTensorDesc>> ShapeModel::buildDescs(
    std::vector<nvinfer1::PluginTensorDesc> const& io) const
{
    int32_t const nbIn = static_cast<int32_t>(mInputs.size());
    // Output extents at both shape sets, with data-dependent extents at 0 and at their upper bound.
    std::map<int32_t, int64_t> zeros;
    for (PluginSizeTensor const& st : mShapes.sizeTensors)
    {
        zeros[st.output] = 0;
    }
    std::vector<std::vector<nvinfer1::Dims>> samples;
    for (ShapeSet set : {ShapeSet::kMAIN, ShapeSet::kALTERNATIVE})
    {
        KILN_ASSIGN_OR_RETURN(auto upper, outputUpperDims(set));
        KILN_ASSIGN_OR_RETURN(auto lower, outputDims(set, zeros));
        samples.push_back(std::move(upper));
        samples.push_back(std::move(lower));
    }
    // opt: the main shapes with each size tensor at its opt value.
    std::vector<int64_t> values;
    KILN_RETURN_IF_ERROR(evaluate(ShapeSet::kMAIN, nullptr, values));
    std::map<int32_t, int64_t> optSizes;
    for (PluginSizeTensor const& st : mShapes.sizeTensors)
    {
        optSizes[st.output] = st.opt >= 0 ? values[static_cast<size_t>(st.opt)] : values[static_cast<size_t>(st.upper)];
    }
    KILN_ASSIGN_OR_RETURN(auto optDims, outputDims(ShapeSet::kMAIN, optSizes));

    std::vector<nvinfer1::DynamicPluginTensorDesc> descs;
    for (size_t pos = 0; pos < io.size(); ++pos)
    {
        nvinfer1::DynamicPluginTensorDesc d{};
        d.desc = io[pos];
        d.desc.dims = buildFormDims(static_cast<int32_t>(pos));
        if (static_cast<int32_t>(pos) < nbIn)
        {
            nvinfer1::Dims a = inputDims(static_cast<int32_t>(pos), ShapeSet::kMAIN);
            nvinfer1::Dims b = inputDims(static_cast<int32_t>(pos), ShapeSet::kALTERNATIVE);
            d.min = a;
            d.max = a;
            d.opt = a;
            for (int32_t k = 0; k < a.nbDims; ++k)
            {
                d.min.d[k] = std::min(a.d[k], b.d[k]);
                d.max.d[k] = std::max(a.d[k], b.d[k]);
            }
        }
        else
        {
            auto o = pos - static_cast<size_t>(nbIn);
            d.min = samples[0][o];
            d.max = samples[0][o];
            for (auto const& sample : samples)
            {
                for (int32_t k = 0; k < d.min.nbDims; ++k)
                {
                    d.min.d[k] = std::min(d.min.d[k], sample[o].d[k]);
                    d.max.d[k] = std::max(d.max.d[k], sample[o].d[k]);
                }
            }
            d.opt = optDims[o];
        }
        descs.push_back(d);
    }
    return descs;
}

} // namespace kiln::checker
