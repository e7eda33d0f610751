// OnnxConstant: element access, conversions and small factories for parse-time constants.
#include "onnx/onnxConstant.h"

#include "core/dataType.h"

#include <cstring>
#include <utility>

namespace kiln
{

using nvinfer1::DataType;

namespace
{

//! A constant of `type` whose bytes are those of `values` (T is the storage type of `type`).
template <typename T>
OnnxConstant fromRaw(DataType type, std::vector<T> const& values, std::vector<int64_t> shape)
{
    OnnxConstant c;
    c.type = type;
    c.shape = std::move(shape);
    c.bytes.resize(values.size() * sizeof(T));
    if (!values.empty())
    {
        std::memcpy(c.bytes.data(), values.data(), c.bytes.size());
    }
    return c;
}

} // namespace

int64_t OnnxConstant::count() const
{
    int64_t n = 1;
    for (int64_t d : shape)
    {
        if (d < 0 || __builtin_mul_overflow(n, d, &n))
        {
            return -1;
        }
    }
    return n;
}

StatusOr<nvinfer1::Dims> OnnxConstant::dims() const
{
    if (shape.size() > static_cast<size_t>(nvinfer1::Dims::MAX_DIMS))
    {
        return invalidArgument("constant of rank " + std::to_string(shape.size()) + " exceeds the maximum rank "
            + std::to_string(nvinfer1::Dims::MAX_DIMS));
    }
    nvinfer1::Dims d{};
    d.nbDims = static_cast<int32_t>(shape.size());
    for (size_t i = 0; i < shape.size(); ++i)
    {
        d.d[i] = shape[i];
    }
    return d;
}

StatusOr<std::vector<int64_t>> OnnxConstant::toInt64() const
{
    if (!isIntegerType(type) && type != DataType::kBOOL)
    {
        return invalidArgument(std::string("expected an integer constant, got ") + dataTypeName(type));
    }
    int64_t const n = count();
    if (static_cast<int64_t>(bytes.size()) < byteSize(type, n))
    {
        return internalError("constant holds fewer bytes than its shape needs");
    }
    std::vector<int64_t> out(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i)
    {
        out[static_cast<size_t>(i)] = type == DataType::kBOOL ? (bytes[static_cast<size_t>(i)] != 0 ? 1 : 0)
                                                              : loadInt(bytes.data(), type, i);
    }
    return out;
}

StatusOr<std::vector<double>> OnnxConstant::toDouble() const
{
    if (elementSize(type) == 0)
    {
        return invalidArgument(std::string("cannot read a constant of type ") + dataTypeName(type));
    }
    int64_t const n = count();
    if (static_cast<int64_t>(bytes.size()) < byteSize(type, n))
    {
        return internalError("constant holds fewer bytes than its shape needs");
    }
    std::vector<double> out(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i)
    {
        out[static_cast<size_t>(i)] = loadElement(bytes.data(), type, i);
    }
    return out;
}

nvinfer1::Weights OnnxConstant::weights() const
{
    return nvinfer1::Weights{type, bytes.empty() ? nullptr : bytes.data(), count()};
}

OnnxConstant OnnxConstant::fromInt64(std::vector<int64_t> const& values, std::vector<int64_t> shape)
{
    return fromRaw(DataType::kINT64, values, std::move(shape));
}

OnnxConstant OnnxConstant::fromInt32(std::vector<int32_t> const& values, std::vector<int64_t> shape)
{
    return fromRaw(DataType::kINT32, values, std::move(shape));
}

OnnxConstant OnnxConstant::fromFloat(std::vector<float> const& values, std::vector<int64_t> shape)
{
    return fromRaw(DataType::kFLOAT, values, std::move(shape));
}

StatusOr<OnnxConstant> OnnxConstant::fromDouble(
    DataType type, std::vector<double> const& values, std::vector<int64_t> shape)
{
    int64_t const size = elementSize(type);
    if (size == 0)
    {
        return invalidArgument(std::string("cannot create a constant of type ") + dataTypeName(type));
    }
    OnnxConstant c;
    c.type = type;
    c.shape = std::move(shape);
    if (c.count() != static_cast<int64_t>(values.size()))
    {
        return invalidArgument("constant shape holds " + std::to_string(c.count()) + " elements but "
            + std::to_string(values.size()) + " values were given");
    }
    c.bytes.assign(values.size() * static_cast<size_t>(size), 0);
    for (size_t i = 0; i < values.size(); ++i)
    {
        storeElement(c.bytes.data(), type, static_cast<int64_t>(i), values[i]);
    }
    return c;
}

} // namespace kiln
