// tensorConversion: ONNX TensorProto -> OnnxConstant, and ONNX element type <-> Kiln data type.
#include "onnx/tensorConversion.h"

#include "core/dataType.h"

#include <cfloat>
#include <cmath>
#include <cstring>
#include <limits>

namespace kiln
{
namespace
{

using nvinfer1::DataType;
using TP = ::onnx::TensorProto;

//! Bytes of one element as ONNX stores it in raw_data (0 for types the parser does not import).
int64_t onnxElementSize(int32_t t)
{
    switch (t)
    {
    case TP::FLOAT:
    case TP::INT32: return 4;
    case TP::DOUBLE:
    case TP::INT64: return 8;
    case TP::FLOAT16:
    case TP::BFLOAT16: return 2;
    case TP::INT8:
    case TP::UINT8:
    case TP::BOOL: return 1;
    default: return 0;
    }
}

//! Shape and element count of `tensor`, checked (no negative dims, no overflow, not too large).
Status readShape(TP const& tensor, DataType kilnType, std::string const& what, std::vector<int64_t>& shape,
    int64_t& count)
{
    if (tensor.dims_size() > nvinfer1::Dims::MAX_DIMS)
    {
        return invalidArgument(what + " has rank " + std::to_string(tensor.dims_size()) + "; Kiln supports at most "
            + std::to_string(nvinfer1::Dims::MAX_DIMS) + " dimensions");
    }
    count = 1;
    int64_t const limit = kMaxOnnxConstantBytes / std::max<int64_t>(1, elementSize(kilnType));
    for (int64_t d : tensor.dims())
    {
        if (d < 0)
        {
            return invalidArgument(what + " has a negative dimension (" + std::to_string(d) + ")");
        }
        shape.push_back(d);
        if (d != 0 && count > limit / d)
        {
            count = limit + 1;
        }
        else
        {
            count *= d;
        }
    }
    if (count > limit)
    {
        return invalidArgument(what + " declares more than " + std::to_string(limit)
            + " elements, over the parser's limit of " + std::to_string(kMaxOnnxConstantBytes) + " bytes per constant");
    }
    return Status::ok();
}

Status countMismatch(std::string const& what, int64_t have, int64_t want, char const* field)
{
    return invalidArgument(what + " holds " + std::to_string(have) + " elements in " + field + " but its dims declare "
        + std::to_string(want));
}

float doubleToFloat(double v)
{
    if (std::isfinite(v))
    {
        if (v > static_cast<double>(FLT_MAX))
        {
            return FLT_MAX;
        }
        if (v < -static_cast<double>(FLT_MAX))
        {
            return -FLT_MAX;
        }
    }
    return static_cast<float>(v);
}

//! Convert raw little-endian ONNX bytes (already size-checked) into `out`.
void convertRaw(int32_t onnxType, uint8_t const* src, int64_t count, OnnxConstant& out)
{
    if (onnxType == TP::DOUBLE)
    {
        out.bytes.resize(static_cast<size_t>(count) * 4);
        for (int64_t i = 0; i < count; ++i)
        {
            double v;
            std::memcpy(&v, src + i * 8, 8);
            float const f = doubleToFloat(v);
            std::memcpy(out.bytes.data() + i * 4, &f, 4);
        }
        return;
    }
    out.bytes.assign(src, src + count * onnxElementSize(onnxType));
    if (onnxType == TP::BOOL)
    {
        for (auto& b : out.bytes)
        {
            b = b != 0 ? 1 : 0;
        }
    }
}

Status convertTyped(TP const& tensor, int64_t count, std::string const& what, OnnxConstant& out)
{
    int32_t const t = tensor.data_type();
    int64_t const size = elementSize(out.type);
    // Check the element count of the typed field before allocating anything for the declared dims.
    int64_t have = 0;
    char const* field = "int32_data";
    switch (t)
    {
    case TP::FLOAT: have = tensor.float_data_size(); field = "float_data"; break;
    case TP::DOUBLE: have = tensor.double_data_size(); field = "double_data"; break;
    case TP::INT64: have = tensor.int64_data_size(); field = "int64_data"; break;
    default: have = tensor.int32_data_size(); break;
    }
    if (have != count)
    {
        return countMismatch(what, have, count, field);
    }
    out.bytes.assign(static_cast<size_t>(count * size), 0);
    if (count == 0)
    {
        return Status::ok(); // an empty tensor: nothing to copy (and memcpy must not see null pointers)
    }
    auto* dst = out.bytes.data();
    switch (t)
    {
    case TP::FLOAT:
        if (tensor.float_data_size() != count)
        {
            return countMismatch(what, tensor.float_data_size(), count, "float_data");
        }
        std::memcpy(dst, tensor.float_data().data(), static_cast<size_t>(count) * 4);
        return Status::ok();
    case TP::DOUBLE:
        if (tensor.double_data_size() != count)
        {
            return countMismatch(what, tensor.double_data_size(), count, "double_data");
        }
        for (int64_t i = 0; i < count; ++i)
        {
            float const f = doubleToFloat(tensor.double_data(static_cast<int>(i)));
            std::memcpy(dst + i * 4, &f, 4);
        }
        return Status::ok();
    case TP::INT64:
        if (tensor.int64_data_size() != count)
        {
            return countMismatch(what, tensor.int64_data_size(), count, "int64_data");
        }
        std::memcpy(dst, tensor.int64_data().data(), static_cast<size_t>(count) * 8);
        return Status::ok();
    case TP::INT32:
    case TP::INT8:
    case TP::UINT8:
    case TP::BOOL:
    case TP::FLOAT16:
    case TP::BFLOAT16:
        if (tensor.int32_data_size() != count)
        {
            return countMismatch(what, tensor.int32_data_size(), count, "int32_data");
        }
        for (int64_t i = 0; i < count; ++i)
        {
            int32_t const v = tensor.int32_data(static_cast<int>(i));
            switch (t)
            {
            case TP::INT32: std::memcpy(dst + i * 4, &v, 4); break;
            case TP::INT8: dst[i] = static_cast<uint8_t>(static_cast<int8_t>(v)); break;
            case TP::UINT8: dst[i] = static_cast<uint8_t>(v); break;
            case TP::BOOL: dst[i] = v != 0 ? 1 : 0; break;
            default:
            {
                // FLOAT16 / BFLOAT16: the 16 bits are stored in the low half of each int32.
                auto const bits = static_cast<uint16_t>(v & 0xFFFF);
                std::memcpy(dst + i * 2, &bits, 2);
            }
            }
        }
        return Status::ok();
    default: return internalError(what + ": unexpected element type");
    }
}

} // namespace

StatusOr<DataType> onnxToKilnType(int32_t onnxElemType)
{
    switch (onnxElemType)
    {
    case TP::FLOAT:
    case TP::DOUBLE: return DataType::kFLOAT;
    case TP::FLOAT16: return DataType::kHALF;
    case TP::BFLOAT16: return DataType::kBF16;
    case TP::INT8: return DataType::kINT8;
    case TP::UINT8: return DataType::kUINT8;
    case TP::INT32: return DataType::kINT32;
    case TP::INT64: return DataType::kINT64;
    case TP::BOOL: return DataType::kBOOL;
    default:
        return unsupported("ONNX element type " + onnxTypeName(onnxElemType) + " is not supported by Kiln");
    }
}

int32_t kilnToOnnxType(DataType type)
{
    switch (type)
    {
    case DataType::kFLOAT: return TP::FLOAT;
    case DataType::kHALF: return TP::FLOAT16;
    case DataType::kBF16: return TP::BFLOAT16;
    case DataType::kINT8: return TP::INT8;
    case DataType::kUINT8: return TP::UINT8;
    case DataType::kINT32: return TP::INT32;
    case DataType::kINT64: return TP::INT64;
    case DataType::kBOOL: return TP::BOOL;
    case DataType::kFP8: return 17; // FLOAT8E4M3FN (ONNX 1.14+)
    default: return TP::UNDEFINED;
    }
}

std::string onnxTypeName(int32_t onnxElemType)
{
    if (TP::DataType_IsValid(onnxElemType))
    {
        return TP::DataType_Name(static_cast<TP::DataType>(onnxElemType));
    }
    return "<" + std::to_string(onnxElemType) + ">";
}

StatusOr<OnnxConstant> convertTensorProto(
    TP const& tensor, std::vector<uint8_t> const* externalData, std::string const& what)
{
    if (!tensor.has_data_type())
    {
        return invalidArgument(what + " has no data_type");
    }
    int32_t const onnxType = tensor.data_type();
    auto kilnType = onnxToKilnType(onnxType);
    if (!kilnType.isOk())
    {
        return Status(nvinfer1::ErrorCode::kUNSUPPORTED_STATE, what + ": " + kilnType.status().message());
    }
    if (tensor.segment().end() > 0 || tensor.segment().begin() > 0)
    {
        return unsupported(what + " is segmented (TensorProto.segment), which Kiln does not support");
    }
    OnnxConstant out;
    out.type = *kilnType;
    int64_t count = 0;
    KILN_RETURN_IF_ERROR(readShape(tensor, out.type, what, out.shape, count));

    bool const external = tensor.data_location() == TP::EXTERNAL;
    if (external || tensor.has_raw_data())
    {
        uint8_t const* src = nullptr;
        size_t size = 0;
        if (external)
        {
            if (externalData == nullptr)
            {
                return invalidArgument(what + " is stored as external data that was not loaded");
            }
            src = externalData->data();
            size = externalData->size();
        }
        else
        {
            src = reinterpret_cast<uint8_t const*>(tensor.raw_data().data());
            size = tensor.raw_data().size();
        }
        int64_t const want = count * onnxElementSize(onnxType);
        if (static_cast<int64_t>(size) != want)
        {
            return invalidArgument(what + " holds " + std::to_string(size) + " bytes of " + onnxTypeName(onnxType)
                + " data but its dims declare " + std::to_string(count) + " elements (" + std::to_string(want)
                + " bytes)");
        }
        convertRaw(onnxType, src, count, out);
        return out;
    }
    KILN_RETURN_IF_ERROR(convertTyped(tensor, count, what, out));
    return out;
}

StatusOr<OnnxConstant> convertTensorBytes(TP const& tensor, void const* data, size_t size, std::string const& what)
{
    std::vector<uint8_t> bytes(static_cast<uint8_t const*>(data), static_cast<uint8_t const*>(data) + size);
    TP header = tensor;
    header.clear_raw_data();
    header.set_data_location(TP::EXTERNAL);
    return convertTensorProto(header, &bytes, what);
}

} // namespace kiln
