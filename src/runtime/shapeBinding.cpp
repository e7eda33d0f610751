// Shape binding: symbol values from input shapes and host shape values, profile checks, evaluation.
#include "runtime/shapeBinding.h"
#include "core/quoting.h"

#include "core/dataType.h"
#include "core/tensorFormat.h"

#include <cstring>

namespace kiln
{

using nvinfer1::DataType;
using nvinfer1::Dims;

namespace
{

std::string valuesText(std::vector<int64_t> const& v)
{
    std::string s = "[";
    for (size_t i = 0; i < v.size(); ++i)
    {
        s += (i ? "," : "") + std::to_string(v[i]);
    }
    return s + "]";
}

bool isShapeValueInput(EngineData const& d, PlanTensor const& t)
{
    if (!t.hasValues)
    {
        return false;
    }
    for (ExprId id : t.values)
    {
        if (d.plan.shapes.node(id).op == ExprOp::kSYMBOL)
        {
            return true;
        }
    }
    return t.hostShapeTensor;
}

std::string binderText(EngineData const& d, int32_t position, bool value, int32_t index)
{
    return "input " + singleQuoted(d.ioTensor(position).name) + (value ? " value " : " dimension ") + std::to_string(index);
}

} // namespace

std::string dimsText(Dims const& dims)
{
    std::string s = "[";
    for (int32_t i = 0; i < dims.nbDims && i < Dims::MAX_DIMS; ++i)
    {
        s += (i ? "," : "") + std::to_string(dims.d[i]);
    }
    return s + "]";
}

Dims engineDims(EngineData const& d, int32_t tensor)
{
    PlanTensor const& t = d.plan.tensors[static_cast<size_t>(tensor)];
    Dims out{};
    out.nbDims = static_cast<int32_t>(t.dims.size());
    for (size_t i = 0; i < t.dims.size(); ++i)
    {
        out.d[i] = d.plan.shapes.valueOrUnknown(t.dims[i]);
    }
    return out;
}

Status checkInputShape(EngineData const& d, int32_t profile, int32_t position, Dims const& dims)
{
    PlanTensor const& t = d.ioTensor(position);
    std::string const what = "input " + singleQuoted(t.name);
    if (dims.nbDims < 0 || dims.nbDims > Dims::MAX_DIMS || static_cast<size_t>(dims.nbDims) != t.dims.size())
    {
        return invalidArgument(what + " has rank " + std::to_string(t.dims.size()) + ", but the given dims have "
            + std::to_string(dims.nbDims) + " dimensions");
    }
    Dims const built = engineDims(d, d.plan.ioTensors[static_cast<size_t>(position)]);
    for (int32_t i = 0; i < dims.nbDims; ++i)
    {
        if (dims.d[i] < 0)
        {
            return invalidArgument("dims " + dimsText(dims) + " for " + what + ": dimension " + std::to_string(i)
                + " is " + std::to_string(dims.d[i]) + " (runtime dimensions must be >= 0)");
        }
        if (built.d[i] >= 0 && built.d[i] != dims.d[i])
        {
            return invalidArgument("dims " + dimsText(dims) + " for " + what + ": dimension " + std::to_string(i)
                + " must be " + std::to_string(built.d[i]) + " (the engine was built with shape " + dimsText(built) + ")");
        }
    }
    int32_t const entry = d.profileInput[static_cast<size_t>(profile)][static_cast<size_t>(position)];
    if (entry >= 0)
    {
        PlanProfileInput const& in = d.plan.profiles[static_cast<size_t>(profile)].inputs[static_cast<size_t>(entry)];
        for (int32_t i = 0; i < dims.nbDims; ++i)
        {
            if (dims.d[i] < in.min.d[i] || dims.d[i] > in.max.d[i])
            {
                return invalidArgument("dims " + dimsText(dims) + " for " + what + " are outside optimization profile "
                    + std::to_string(profile) + ": dimension " + std::to_string(i) + " must be in ["
                    + std::to_string(in.min.d[i]) + ", " + std::to_string(in.max.d[i]) + "] (min " + dimsText(in.min)
                    + ", max " + dimsText(in.max) + ")");
            }
        }
    }
    return Status::ok();
}

Status bindSymbols(EngineData const& d, int32_t profile, std::vector<InputShape> const& shapes,
    void const* const* addresses, std::vector<int64_t>& symbols, std::vector<int32_t>& missing,
    BindScratch& scratch)
{
    ShapeGraph const& g = d.plan.shapes;
    size_t const nbSymbols = g.symbols().size();
    symbols.assign(nbSymbols, 0);
    scratch.position.assign(nbSymbols, -1);
    scratch.index.assign(nbSymbols, 0);
    scratch.isValue.assign(nbSymbols, 0);

    auto const bind = [&](ExprId id, int64_t value, int32_t pos, bool isValue, size_t index) -> Status {
        ExprNode const& n = g.node(id);
        if (n.op != ExprOp::kSYMBOL)
        {
            return Status::ok(); // constants and expressions are checked after evaluation
        }
        auto const s = static_cast<size_t>(n.value);
        if (scratch.position[s] < 0)
        {
            scratch.position[s] = pos;
            scratch.index[s] = static_cast<int32_t>(index);
            scratch.isValue[s] = isValue ? 1 : 0;
            symbols[s] = value;
            return Status::ok();
        }
        if (symbols[s] != value)
        {
            return invalidArgument(binderText(d, pos, isValue, static_cast<int32_t>(index)) + " is "
                + std::to_string(value) + ", but "
                + binderText(d, scratch.position[s], scratch.isValue[s] != 0, scratch.index[s]) + " is "
                + std::to_string(symbols[s]) + "; both are the runtime dimension " + singleQuoted(g.symbols()[s].name)
                + " and must be equal");
        }
        return Status::ok();
    };

    for (int32_t pos = 0; pos < d.nbInputs; ++pos)
    {
        PlanTensor const& t = d.ioTensor(pos);
        InputShape const& shape = shapes[static_cast<size_t>(pos)];
        bool dynamic = false;
        for (ExprId id : t.dims)
        {
            dynamic = dynamic || !g.isConstant(id);
        }
        bool isMissing = false;
        if (shape.set || !dynamic)
        {
            Dims const given = shape.set ? shape.dims : engineDims(d, d.plan.ioTensors[static_cast<size_t>(pos)]);
            for (size_t i = 0; i < t.dims.size(); ++i)
            {
                KILN_RETURN_IF_ERROR(bind(t.dims[i], given.d[i], pos, false, i));
            }
        }
        else
        {
            isMissing = true;
        }
        if (isShapeValueInput(d, t))
        {
            void const* address = addresses[static_cast<size_t>(pos)];
            if (address == nullptr)
            {
                isMissing = true;
            }
            else
            {
                bool const floatValues = t.type == DataType::kFLOAT;
                if (t.type != DataType::kINT32 && t.type != DataType::kINT64 && !floatValues)
                {
                    return invalidArgument("shape tensor input " + singleQuoted(t.name) + " has type "
                        + dataTypeName(t.type) + "; shape tensors must be INT32, INT64 or FLOAT");
                }
                std::vector<int64_t>& values = scratch.values;
                values.resize(t.values.size());
                for (size_t i = 0; i < values.size(); ++i)
                {
                    // FLOAT values travel as the bit pattern of a double (core/shapeExpr.h).
                    values[i] = floatValues ? floatBits(loadElement(address, t.type, static_cast<int64_t>(i)))
                                            : loadInt(address, t.type, static_cast<int64_t>(i));
                }
                int32_t const entry = d.profileInput[static_cast<size_t>(profile)][static_cast<size_t>(pos)];
                if (entry >= 0)
                {
                    PlanProfileInput const& in
                        = d.plan.profiles[static_cast<size_t>(profile)].inputs[static_cast<size_t>(entry)];
                    if (!floatValues && in.minValues.size() == values.size())
                    {
                        for (size_t i = 0; i < values.size(); ++i)
                        {
                            if (values[i] < in.minValues[i] || values[i] > in.maxValues[i])
                            {
                                return invalidArgument("values " + valuesText(values) + " of shape tensor input "
                                    + singleQuoted(t.name) + " are outside optimization profile " + std::to_string(profile)
                                    + ": value " + std::to_string(i) + " must be in [" + std::to_string(in.minValues[i])
                                    + ", " + std::to_string(in.maxValues[i]) + "] (min " + valuesText(in.minValues)
                                    + ", max " + valuesText(in.maxValues) + ")");
                            }
                        }
                    }
                }
                for (size_t i = 0; i < values.size(); ++i)
                {
                    KILN_RETURN_IF_ERROR(bind(t.values[i], values[i], pos, true, i));
                }
            }
        }
        if (isMissing)
        {
            missing.push_back(pos);
        }
    }
    return Status::ok();
}

int64_t tensorBytes(DataType type, nvinfer1::TensorFormat format, Dims const& dims)
{
    int32_t const vectorDim = formatVectorizedDim(format, dims.nbDims);
    int32_t const components = formatComponents(format);
    int64_t volume = 1;
    for (int32_t i = 0; i < dims.nbDims; ++i)
    {
        int64_t extent = dims.d[i];
        if (i == vectorDim && components > 1)
        {
            extent = (extent + components - 1) / components * components;
        }
        if (extent < 0 || __builtin_mul_overflow(volume, extent, &volume))
        {
            return -1;
        }
    }
    return volume > (int64_t{1} << 59) ? -1 : byteSize(type, volume);
}

Status bindUpperBounds(EngineData const& d, std::vector<int64_t>& symbols, std::vector<int64_t>& values)
{
    if (d.dataDependentSymbols.empty())
    {
        return Status::ok();
    }
    ShapeGraph const& g = d.boundsGraph;
    for (int32_t s : d.dataDependentSymbols)
    {
        symbols[static_cast<size_t>(s)] = 1; // provisional: keeps divisions by a size defined
    }
    bool evaluated = false;
    for (int32_t s : d.dataDependentSymbols)
    {
        SymbolInfo const& info = g.symbols()[static_cast<size_t>(s)];
        if (!evaluated || d.exprLastBinder[static_cast<size_t>(info.upper)] >= 0)
        {
            Status const st = g.evaluate(symbols, values);
            if (!st.isOk())
            {
                return st.withContext("evaluating the upper bound of the data-dependent shape symbol " + singleQuoted(info.name));
            }
            evaluated = true;
        }
        int64_t const upper = values[static_cast<size_t>(info.upper)];
        if (upper < 0)
        {
            return invalidArgument("the upper bound of the data-dependent shape symbol " + singleQuoted(info.name) + " ("
                + g.toString(info.upper) + ") is " + std::to_string(upper) + " for the current input shapes");
        }
        symbols[static_cast<size_t>(s)] = upper;
    }
    return Status::ok();
}

Status evaluateShapes(EngineData const& d, int32_t profile, std::vector<int64_t> const& symbols,
    std::vector<InputShape> const& shapes, EvaluatedShapes& out, ShapeGraph const* graph)
{
    out.valid = false;
    Plan const& plan = d.plan;
    KILN_RETURN_IF_ERROR((graph != nullptr ? *graph : plan.shapes).evaluate(symbols, out.exprValues));
    size_t const nbTensors = plan.tensors.size();
    out.dims.resize(nbTensors);
    out.values.resize(nbTensors);
    out.bytes.resize(nbTensors);
    constexpr int64_t kMAX_ELEMENTS = int64_t{1} << 59; // keeps byte sizes of 8-byte types below 2^62
    for (size_t ti = 0; ti < nbTensors; ++ti)
    {
        PlanTensor const& t = plan.tensors[ti];
        Dims& dims = out.dims[ti];
        dims.nbDims = static_cast<int32_t>(t.dims.size());
        int64_t volume = 1;
        for (size_t i = 0; i < t.dims.size(); ++i)
        {
            int64_t const v = out.exprValues[static_cast<size_t>(t.dims[i])];
            if (v < 0)
            {
                return invalidArgument("tensor " + singleQuoted(t.name) + ": dimension " + std::to_string(i) + " evaluates to "
                    + std::to_string(v) + " (" + plan.shapes.toString(t.dims[i]) + ") for the current input shapes");
            }
            dims.d[i] = v;
            if (__builtin_mul_overflow(volume, v, &volume) || volume > kMAX_ELEMENTS)
            {
                return invalidArgument("tensor " + singleQuoted(t.name) + " would have more than 2^59 elements for the current input shapes");
            }
        }
        out.bytes[ti] = tensorBytes(t.type, t.format, dims);
        if (out.bytes[ti] < 0)
        {
            return invalidArgument("tensor " + singleQuoted(t.name) + " is too large for the current input shapes");
        }
        auto& values = out.values[ti];
        values.clear();
        if (t.hasValues)
        {
            values.reserve(t.values.size());
            for (ExprId id : t.values)
            {
                values.push_back(out.exprValues[static_cast<size_t>(id)]);
            }
        }
    }
    for (int32_t pos = 0; pos < d.nbInputs; ++pos)
    {
        InputShape const& shape = shapes[static_cast<size_t>(pos)];
        Dims const& evaluated = out.dims[static_cast<size_t>(plan.ioTensors[static_cast<size_t>(pos)])];
        if (shape.set && std::memcmp(evaluated.d, shape.dims.d, sizeof(int64_t) * static_cast<size_t>(evaluated.nbDims)) != 0)
        {
            return invalidArgument("input " + singleQuoted(d.ioTensor(pos).name) + " was given shape " + dimsText(shape.dims)
                + ", which contradicts the engine's shape " + dimsText(evaluated) + " for the other inputs");
        }
    }
    out.symbols = symbols;
    out.profile = profile;
    out.valid = true;
    return Status::ok();
}

} // namespace kiln
