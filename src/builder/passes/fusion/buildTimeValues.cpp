// Host evaluation of plan tensors the build can compute (see buildTimeValues.h): a memoised walk up the producers,
// each value kept up to broadcasting so that an Expand to a run-time batch still has build-time values.
#include "builder/passes/fusion/buildTimeValues.h"

#include "backends/common/sliceParams.h"
#include "core/dataType.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <map>

namespace kiln::fusion
{
using nvinfer1::DataType;
using nvinfer1::ElementWiseOperation;
using nvinfer1::LayerType;

std::optional<std::vector<int64_t>> staticSliceParameter(Plan const& plan, PlanNode const& slice, size_t slot,
    char const* name)
{
    if (slot >= slice.inputs.size() || slice.inputs[slot] < 0)
    {
        return slice.attrs.getInts(name);
    }
    PlanTensor const& t = plan.tensors[static_cast<size_t>(slice.inputs[slot])];
    if (!t.hasValues)
    {
        return std::nullopt;
    }
    std::vector<int64_t> values;
    for (ExprId e : t.values)
    {
        if (!plan.shapes.isValid(e) || !plan.shapes.isConstant(e))
        {
            return std::nullopt;
        }
        values.push_back(plan.shapes.constantValue(e));
    }
    return values;
}

namespace
{

using Values = std::optional<BuildTimeValues>;

//! `v` as a tensor of `type` holds it.
double roundTo(DataType type, double v)
{
    switch (type)
    {
    case DataType::kFLOAT: return static_cast<double>(static_cast<float>(v));
    case DataType::kHALF: return halfToFloat(floatToHalf(static_cast<float>(v)));
    case DataType::kBF16: return bf16ToFloat(floatToBf16(static_cast<float>(v)));
    case DataType::kBOOL: return v != 0.0 ? 1.0 : 0.0;
    case DataType::kINT32:
    case DataType::kINT64:
    case DataType::kINT8:
    case DataType::kUINT8: return std::isfinite(v) ? std::trunc(v) : v;
    default: return v;
    }
}

int64_t volumeOf(std::vector<int64_t> const& dims)
{
    int64_t n = 1;
    for (int64_t d : dims)
    {
        n *= d;
    }
    return n;
}

std::vector<int64_t> stridesOf(std::vector<int64_t> const& dims)
{
    std::vector<int64_t> s(dims.size(), 1);
    for (size_t i = dims.size(); i-- > 1;)
    {
        s[i - 1] = s[i] * dims[i];
    }
    return s;
}

//! Calls f(index, coordinates) for every element of `dims` in row-major order.
template <typename F>
void forEachIndex(std::vector<int64_t> const& dims, F&& f)
{
    int64_t const n = volumeOf(dims);
    std::vector<int64_t> c(dims.size(), 0);
    for (int64_t i = 0; i < n; ++i)
    {
        f(i, c);
        for (size_t d = dims.size(); d-- > 0;)
        {
            if (++c[d] < dims[d])
            {
                break;
            }
            c[d] = 0;
        }
    }
}

class Evaluator
{
public:
    Evaluator(Plan const& plan, FusionGraph const& g, int64_t maxElements)
        : mPlan(plan)
        , mGraph(g)
        , mMax(maxElements)
    {
    }

    Values get(int32_t t, int32_t depth)
    {
        if (t < 0 || static_cast<size_t>(t) >= mPlan.tensors.size() || depth > 64)
        {
            return std::nullopt;
        }
        auto const found = mMemo.find(t);
        if (found != mMemo.end())
        {
            return found->second;
        }
        Values v = compute(t, depth);
        mMemo[t] = v;
        return v;
    }

private:
    //! The tensor's extents: a constant, or -1 for a run-time extent.
    std::vector<int64_t> extents(int32_t t) const
    {
        std::vector<int64_t> e;
        for (ExprId d : mPlan.tensors[static_cast<size_t>(t)].dims)
        {
            e.push_back(mPlan.shapes.isValid(d) && mPlan.shapes.isConstant(d) ? mPlan.shapes.constantValue(d) : -1);
        }
        return e;
    }

    bool fits(std::vector<int64_t> const& dims) const
    {
        int64_t n = 1;
        for (int64_t d : dims)
        {
            if (d < 0 || (d > 0 && n > mMax / d))
            {
                return false;
            }
            n *= d;
        }
        return n <= mMax;
    }

    Values compute(int32_t t, int32_t depth)
    {
        PlanTensor const& pt = mPlan.tensors[static_cast<size_t>(t)];
        if (pt.constant >= 0)
        {
            return fromWeights(t);
        }
        if (pt.hasValues)
        {
            return fromShapeValues(t);
        }
        int32_t const n = mGraph.producer(t);
        if (n < 0)
        {
            return std::nullopt;
        }
        PlanNode const& node = mPlan.nodes[static_cast<size_t>(n)];
        if (node.outputs.size() != 1 || node.outputs[0] != t || node.attrs.has("cf.if") || node.attrs.has("cf.loop"))
        {
            return std::nullopt;
        }
        std::vector<Values> in;
        for (int32_t i : node.inputs)
        {
            in.push_back(i >= 0 ? get(i, depth + 1) : std::nullopt);
        }
        switch (node.kind)
        {
        case LayerType::kIDENTITY:
        case LayerType::kCAST: return in.size() == 1 && in[0] ? pointwise(t, {&*in[0]}, [](double const* x) { return x[0]; }) : std::nullopt;
        case LayerType::kUNARY: return unary(t, node, in);
        case LayerType::kELEMENTWISE: return elementWise(t, node, in);
        case LayerType::kSELECT:
            if (in.size() != 3 || !in[0] || !in[1] || !in[2])
            {
                return std::nullopt;
            }
            return pointwise(t, {&*in[0], &*in[1], &*in[2]}, [](double const* x) { return x[0] != 0.0 ? x[1] : x[2]; });
        case LayerType::kSLICE: return slice(t, node, in);
        case LayerType::kSHUFFLE: return shuffle(t, node, in);
        case LayerType::kFILL: return fill(t, node, in);
        default: return std::nullopt;
        }
    }

    Values fromWeights(int32_t t) const
    {
        PlanTensor const& pt = mPlan.tensors[static_cast<size_t>(t)];
        if (static_cast<size_t>(pt.constant) >= mPlan.weights.size())
        {
            return std::nullopt;
        }
        PlanWeights const& w = mPlan.weights[static_cast<size_t>(pt.constant)];
        BuildTimeValues v;
        v.dims = extents(t);
        if (!fits(v.dims) || w.data == nullptr || w.count != volumeOf(v.dims) || w.type != pt.type)
        {
            return std::nullopt;
        }
        v.values.resize(static_cast<size_t>(w.count));
        for (int64_t i = 0; i < w.count; ++i)
        {
            double x = 0.0;
            switch (w.type)
            {
            case DataType::kFLOAT: x = load<float>(w.data, i); break;
            case DataType::kHALF: x = halfToFloat(load<uint16_t>(w.data, i)); break;
            case DataType::kBF16: x = bf16ToFloat(load<uint16_t>(w.data, i)); break;
            case DataType::kINT32: x = load<int32_t>(w.data, i); break;
            case DataType::kINT64: x = static_cast<double>(load<int64_t>(w.data, i)); break;
            case DataType::kINT8: x = load<int8_t>(w.data, i); break;
            case DataType::kUINT8:
            case DataType::kBOOL: x = load<uint8_t>(w.data, i); break;
            default: return std::nullopt;
            }
            v.values[static_cast<size_t>(i)] = w.type == DataType::kBOOL ? (x != 0.0 ? 1.0 : 0.0) : x;
        }
        return v;
    }

    template <typename T>
    static T load(uint8_t const* data, int64_t i)
    {
        T x{};
        std::memcpy(&x, data + static_cast<size_t>(i) * sizeof(T), sizeof(T));
        return x;
    }

    Values fromShapeValues(int32_t t) const
    {
        PlanTensor const& pt = mPlan.tensors[static_cast<size_t>(t)];
        BuildTimeValues v;
        v.dims = extents(t);
        if (!fits(v.dims) || static_cast<int64_t>(pt.values.size()) != volumeOf(v.dims))
        {
            return std::nullopt;
        }
        for (ExprId e : pt.values)
        {
            if (!mPlan.shapes.isValid(e) || !mPlan.shapes.isConstant(e))
            {
                return std::nullopt;
            }
            v.values.push_back(roundTo(pt.type, static_cast<double>(mPlan.shapes.constantValue(e))));
        }
        return v;
    }

    //! out = f(inputs) elementwise, the inputs broadcasting to the output (same rank; extents equal or 1).
    template <typename F>
    Values pointwise(int32_t t, std::vector<BuildTimeValues const*> const& ins, F&& f) const
    {
        std::vector<int64_t> const ext = extents(t);
        BuildTimeValues v;
        v.dims.assign(ext.size(), 1);
        for (BuildTimeValues const* x : ins)
        {
            if (x->dims.size() != ext.size())
            {
                return std::nullopt;
            }
            for (size_t d = 0; d < ext.size(); ++d)
            {
                if (x->dims[d] == 1)
                {
                    continue;
                }
                if ((v.dims[d] != 1 && v.dims[d] != x->dims[d]) || (ext[d] >= 0 && ext[d] != x->dims[d]))
                {
                    return std::nullopt;
                }
                v.dims[d] = x->dims[d];
            }
        }
        if (!fits(v.dims))
        {
            return std::nullopt;
        }
        std::vector<std::vector<int64_t>> strides;
        for (BuildTimeValues const* x : ins)
        {
            std::vector<int64_t> s = stridesOf(x->dims);
            for (size_t d = 0; d < s.size(); ++d)
            {
                s[d] = x->dims[d] == 1 ? 0 : s[d];
            }
            strides.push_back(std::move(s));
        }
        DataType const type = mPlan.tensors[static_cast<size_t>(t)].type;
        v.values.resize(static_cast<size_t>(volumeOf(v.dims)));
        std::vector<double> args(ins.size());
        forEachIndex(v.dims, [&](int64_t i, std::vector<int64_t> const& c) {
            for (size_t k = 0; k < ins.size(); ++k)
            {
                int64_t off = 0;
                for (size_t d = 0; d < c.size(); ++d)
                {
                    off += c[d] * strides[k][d];
                }
                args[k] = ins[k]->values[static_cast<size_t>(off)];
            }
            v.values[static_cast<size_t>(i)] = roundTo(type, f(args.data()));
        });
        return v;
    }

    Values unary(int32_t t, PlanNode const& node, std::vector<Values> const& in) const
    {
        if (in.size() != 1 || !in[0])
        {
            return std::nullopt;
        }
        switch (static_cast<nvinfer1::UnaryOperation>(node.attrs.getInt("operation", -1)))
        {
        case nvinfer1::UnaryOperation::kNOT: return pointwise(t, {&*in[0]}, [](double const* x) { return x[0] == 0.0 ? 1.0 : 0.0; });
        case nvinfer1::UnaryOperation::kNEG: return pointwise(t, {&*in[0]}, [](double const* x) { return -x[0]; });
        case nvinfer1::UnaryOperation::kABS: return pointwise(t, {&*in[0]}, [](double const* x) { return std::fabs(x[0]); });
        default: return std::nullopt;
        }
    }

    Values elementWise(int32_t t, PlanNode const& node, std::vector<Values> const& in) const
    {
        if (in.size() != 2 || !in[0] || !in[1])
        {
            return std::nullopt;
        }
        bool const integer = mPlan.tensors[static_cast<size_t>(node.inputs[0])].type == DataType::kINT32
            || mPlan.tensors[static_cast<size_t>(node.inputs[0])].type == DataType::kINT64;
        std::vector<BuildTimeValues const*> const ab{&*in[0], &*in[1]};
        switch (static_cast<ElementWiseOperation>(node.attrs.getInt("operation", -1)))
        {
        case ElementWiseOperation::kSUM: return pointwise(t, ab, [](double const* x) { return x[0] + x[1]; });
        case ElementWiseOperation::kSUB: return pointwise(t, ab, [](double const* x) { return x[0] - x[1]; });
        case ElementWiseOperation::kPROD: return pointwise(t, ab, [](double const* x) { return x[0] * x[1]; });
        case ElementWiseOperation::kDIV:
            if (integer)
            {
                return std::nullopt; // integer division's rounding is the kernel's; not needed for masks
            }
            return pointwise(t, ab, [](double const* x) { return x[0] / x[1]; });
        case ElementWiseOperation::kMIN: return pointwise(t, ab, [](double const* x) { return std::fmin(x[0], x[1]); });
        case ElementWiseOperation::kMAX: return pointwise(t, ab, [](double const* x) { return std::fmax(x[0], x[1]); });
        case ElementWiseOperation::kLESS: return pointwise(t, ab, [](double const* x) { return x[0] < x[1] ? 1.0 : 0.0; });
        case ElementWiseOperation::kGREATER: return pointwise(t, ab, [](double const* x) { return x[0] > x[1] ? 1.0 : 0.0; });
        case ElementWiseOperation::kEQUAL: return pointwise(t, ab, [](double const* x) { return x[0] == x[1] ? 1.0 : 0.0; });
        case ElementWiseOperation::kAND: return pointwise(t, ab, [](double const* x) { return x[0] != 0.0 && x[1] != 0.0 ? 1.0 : 0.0; });
        case ElementWiseOperation::kOR: return pointwise(t, ab, [](double const* x) { return x[0] != 0.0 || x[1] != 0.0 ? 1.0 : 0.0; });
        case ElementWiseOperation::kXOR: return pointwise(t, ab, [](double const* x) { return (x[0] != 0.0) != (x[1] != 0.0) ? 1.0 : 0.0; });
        default: return std::nullopt;
        }
    }

    //! A slice without a fill value: per axis, a broadcast input stays broadcast; otherwise the start and stride must
    //! be known and the output extent constant.
    Values slice(int32_t t, PlanNode const& node, std::vector<Values> const& in) const
    {
        auto const mode = static_cast<nvinfer1::SampleMode>(node.attrs.getInt("mode", -1));
        if (in.empty() || !in[0] || (mode != nvinfer1::SampleMode::kSTRICT_BOUNDS && mode != nvinfer1::SampleMode::kWRAP)
            || (node.inputs.size() > kSLICE_FILL_VALUE && node.inputs[kSLICE_FILL_VALUE] >= 0))
        {
            return std::nullopt;
        }
        BuildTimeValues const& x = *in[0];
        size_t const rank = x.dims.size();
        std::vector<int64_t> const ext = extents(t);
        auto const start = staticSliceParameter(mPlan, node, kSLICE_START, "start");
        auto const stride = staticSliceParameter(mPlan, node, kSLICE_STRIDE, "stride");
        auto axes = staticSliceParameter(mPlan, node, kSLICE_AXES, "axes");
        if (ext.size() != rank || !start || !stride || !axes)
        {
            return std::nullopt;
        }
        if (axes->empty())
        {
            for (size_t d = 0; d < rank; ++d)
            {
                axes->push_back(static_cast<int64_t>(d));
            }
        }
        if (start->size() != axes->size() || stride->size() != axes->size())
        {
            return std::nullopt;
        }
        std::vector<int64_t> first(rank, 0);
        std::vector<int64_t> step(rank, 1);
        for (size_t i = 0; i < axes->size(); ++i)
        {
            int64_t const a = (*axes)[i] < 0 ? (*axes)[i] + static_cast<int64_t>(rank) : (*axes)[i];
            if (a < 0 || a >= static_cast<int64_t>(rank))
            {
                return std::nullopt;
            }
            first[static_cast<size_t>(a)] = (*start)[i];
            step[static_cast<size_t>(a)] = (*stride)[i];
        }
        BuildTimeValues v;
        std::vector<std::vector<int64_t>> sources(rank);
        for (size_t d = 0; d < rank; ++d)
        {
            if (x.dims[d] == 1)
            {
                // A broadcast input holds the same value along the axis, wherever it is read (the run checks bounds).
                v.dims.push_back(1);
                sources[d] = {0};
                continue;
            }
            // An Expand's run-time extent reads one coordinate (stride 0); otherwise the extent must be constant.
            int64_t const count = ext[d] >= 0 ? ext[d] : (step[d] == 0 ? 1 : -1);
            if (count < 0)
            {
                return std::nullopt;
            }
            v.dims.push_back(count);
            for (int64_t o = 0; o < count; ++o)
            {
                int64_t i = first[d] + o * step[d];
                i = mode == nvinfer1::SampleMode::kWRAP ? ((i % x.dims[d]) + x.dims[d]) % x.dims[d] : i;
                if (i < 0 || i >= x.dims[d])
                {
                    return std::nullopt;
                }
                sources[d].push_back(i);
            }
        }
        if (!fits(v.dims))
        {
            return std::nullopt;
        }
        std::vector<int64_t> const s = stridesOf(x.dims);
        v.values.resize(static_cast<size_t>(volumeOf(v.dims)));
        forEachIndex(v.dims, [&](int64_t i, std::vector<int64_t> const& c) {
            int64_t off = 0;
            for (size_t d = 0; d < rank; ++d)
            {
                off += sources[d][static_cast<size_t>(c[d])] * s[d];
            }
            v.values[static_cast<size_t>(i)] = x.values[static_cast<size_t>(off)];
        });
        return v;
    }

    //! The input broadcast up to its constant extents (nullopt where an extent is known only at run time).
    std::optional<BuildTimeValues> materialised(BuildTimeValues const& x, std::vector<int64_t> const& ext) const
    {
        if (x.dims.size() != ext.size() || !fits(ext))
        {
            return std::nullopt;
        }
        BuildTimeValues v;
        v.dims = ext;
        std::vector<int64_t> s = stridesOf(x.dims);
        for (size_t d = 0; d < s.size(); ++d)
        {
            if (x.dims[d] != ext[d] && x.dims[d] != 1)
            {
                return std::nullopt;
            }
            s[d] = x.dims[d] == 1 ? 0 : s[d];
        }
        v.values.resize(static_cast<size_t>(volumeOf(ext)));
        forEachIndex(ext, [&](int64_t i, std::vector<int64_t> const& c) {
            int64_t off = 0;
            for (size_t d = 0; d < c.size(); ++d)
            {
                off += c[d] * s[d];
            }
            v.values[static_cast<size_t>(i)] = x.values[static_cast<size_t>(off)];
        });
        return v;
    }

    //! out = transpose2(reshape(transpose1(in))) on constant extents.
    Values shuffle(int32_t t, PlanNode const& node, std::vector<Values> const& in) const
    {
        if (in.empty() || !in[0] || node.inputs.empty())
        {
            return std::nullopt;
        }
        auto const x = materialised(*in[0], extents(node.inputs[0]));
        std::vector<int64_t> const out = extents(t);
        if (!x || !fits(out))
        {
            return std::nullopt;
        }
        size_t const rin = x->dims.size();
        size_t const rout = out.size();
        std::vector<int64_t> p1 = node.attrs.getInts("first_transpose");
        std::vector<int64_t> p2 = node.attrs.getInts("second_transpose");
        auto permutation = [](std::vector<int64_t>& p, size_t rank) {
            if (p.empty())
            {
                for (size_t i = 0; i < rank; ++i)
                {
                    p.push_back(static_cast<int64_t>(i));
                }
            }
            if (p.size() < rank)
            {
                return false;
            }
            p.resize(rank);
            std::vector<bool> seen(rank, false);
            for (int64_t i : p)
            {
                if (i < 0 || i >= static_cast<int64_t>(rank) || seen[static_cast<size_t>(i)])
                {
                    return false;
                }
                seen[static_cast<size_t>(i)] = true;
            }
            return true;
        };
        if (!permutation(p1, rin) || !permutation(p2, rout) || volumeOf(out) != volumeOf(x->dims))
        {
            return std::nullopt;
        }
        // First transpose: t1[c] = x[c permuted back].
        std::vector<int64_t> d1(rin);
        for (size_t i = 0; i < rin; ++i)
        {
            d1[i] = x->dims[static_cast<size_t>(p1[i])];
        }
        std::vector<int64_t> const sx = stridesOf(x->dims);
        std::vector<double> t1(x->values.size());
        forEachIndex(d1, [&](int64_t i, std::vector<int64_t> const& c) {
            int64_t off = 0;
            for (size_t d = 0; d < rin; ++d)
            {
                off += c[d] * sx[static_cast<size_t>(p1[d])];
            }
            t1[static_cast<size_t>(i)] = x->values[static_cast<size_t>(off)];
        });
        // The reshape keeps the row-major order; its dims r satisfy out[i] = r[p2[i]].
        std::vector<int64_t> r(rout);
        for (size_t i = 0; i < rout; ++i)
        {
            r[static_cast<size_t>(p2[i])] = out[i];
        }
        std::vector<int64_t> const sr = stridesOf(r);
        BuildTimeValues v;
        v.dims = out;
        v.values.resize(t1.size());
        forEachIndex(out, [&](int64_t i, std::vector<int64_t> const& c) {
            int64_t off = 0;
            for (size_t d = 0; d < rout; ++d)
            {
                off += c[d] * sr[static_cast<size_t>(p2[d])];
            }
            v.values[static_cast<size_t>(i)] = t1[static_cast<size_t>(off)];
        });
        return v;
    }

    //! A linspace fill: alpha + Σ beta[d]·index[d], alpha and beta from the inputs (build-time values) or, for one
    //! dimension, the attributes.
    Values fill(int32_t t, PlanNode const& node, std::vector<Values> const& in) const
    {
        if (node.attrs.getInt("op", -1) != static_cast<int64_t>(nvinfer1::FillOperation::kLINSPACE))
        {
            return std::nullopt;
        }
        std::vector<int64_t> const out = extents(t);
        if (!fits(out))
        {
            return std::nullopt;
        }
        double alpha = 0.0;
        std::vector<double> beta;
        bool const dynamic = node.inputs.size() > 2 && node.inputs[1] >= 0 && node.inputs[2] >= 0;
        if (dynamic)
        {
            if (!in[1] || !in[2] || in[1]->values.size() != 1 || in[2]->values.size() != out.size())
            {
                return std::nullopt;
            }
            alpha = in[1]->values[0];
            beta = in[2]->values;
        }
        else
        {
            if (out.size() != 1 || (node.inputs.size() > 1 && node.inputs[1] >= 0))
            {
                return std::nullopt;
            }
            bool const ints = node.attrs.getInt("int_params", 0) != 0;
            alpha = ints ? static_cast<double>(node.attrs.getInt("alpha_int", 0)) : node.attrs.getFloat("alpha", 0.0);
            beta = {ints ? static_cast<double>(node.attrs.getInt("beta_int", 1)) : node.attrs.getFloat("beta", 1.0)};
        }
        DataType const type = mPlan.tensors[static_cast<size_t>(t)].type;
        BuildTimeValues v;
        v.dims = out;
        v.values.resize(static_cast<size_t>(volumeOf(out)));
        forEachIndex(out, [&](int64_t i, std::vector<int64_t> const& c) {
            double x = alpha;
            for (size_t d = 0; d < c.size(); ++d)
            {
                x += beta[d] * static_cast<double>(c[d]);
            }
            v.values[static_cast<size_t>(i)] = roundTo(type, x);
        });
        return v;
    }

    Plan const& mPlan;
    FusionGraph const& mGraph;
    int64_t mMax;
    std::map<int32_t, Values> mMemo;
};

} // namespace

std::optional<BuildTimeValues> buildTimeValues(Plan const& plan, FusionGraph const& g, int32_t t, int64_t maxElements)
{
    Evaluator e(plan, g, maxElements);
    return e.get(t, 0);
}

} // namespace kiln::fusion
