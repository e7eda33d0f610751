// Reads the backend tests' TensorProto files with the ONNX protobuf classes and widens every element to double or
// int64 for comparison.
#include "tensorFile.h"

#include <onnx/onnx_pb.h>

#include <cstring>
#include <fstream>
#include <sstream>

namespace kiln::conformance
{
namespace
{

using ::onnx::TensorProto;

double halfToDouble(uint16_t h)
{
    uint32_t const sign = (h >> 15) & 1U;
    int32_t const exponent = (h >> 10) & 0x1F;
    uint32_t const mantissa = h & 0x3FFU;
    double value = 0.0;
    if (exponent == 0)
    {
        value = static_cast<double>(mantissa) / 1024.0 / 16384.0; // subnormal: m * 2^-24
    }
    else if (exponent == 31)
    {
        value = mantissa == 0 ? __builtin_inf() : __builtin_nan("");
    }
    else
    {
        double const scale = exponent >= 15 ? static_cast<double>(1U << (exponent - 15))
                                            : 1.0 / static_cast<double>(1U << (15 - exponent));
        value = (1.0 + static_cast<double>(mantissa) / 1024.0) * scale;
    }
    return sign != 0U ? -value : value;
}

double bfloat16ToDouble(uint16_t b)
{
    uint32_t const bits = static_cast<uint32_t>(b) << 16;
    float f = 0.0F;
    std::memcpy(&f, &bits, sizeof(f));
    return f;
}

template <typename T>
void appendRaw(std::string const& raw, std::vector<double>& out)
{
    size_t const n = raw.size() / sizeof(T);
    for (size_t i = 0; i < n; ++i)
    {
        T v{};
        std::memcpy(&v, raw.data() + i * sizeof(T), sizeof(T));
        out.push_back(static_cast<double>(v));
    }
}

template <typename T>
void appendRawInt(std::string const& raw, std::vector<int64_t>& out)
{
    size_t const n = raw.size() / sizeof(T);
    for (size_t i = 0; i < n; ++i)
    {
        T v{};
        std::memcpy(&v, raw.data() + i * sizeof(T), sizeof(T));
        out.push_back(static_cast<int64_t>(v));
    }
}

void append16(std::string const& raw, google::protobuf::RepeatedField<int32_t> const& typed, bool bf16,
    std::vector<double>& out)
{
    auto convert = [&](uint16_t bits) { out.push_back(bf16 ? bfloat16ToDouble(bits) : halfToDouble(bits)); };
    if (!raw.empty())
    {
        for (size_t i = 0; i + 1 < raw.size(); i += 2)
        {
            uint16_t bits = 0;
            std::memcpy(&bits, raw.data() + i, 2);
            convert(bits);
        }
        return;
    }
    for (int32_t v : typed)
    {
        convert(static_cast<uint16_t>(v));
    }
}

bool decode(TensorProto const& t, RefTensor& out, std::string& error)
{
    out.name = t.name();
    out.onnxType = t.data_type();
    out.dims.assign(t.dims().begin(), t.dims().end());
    std::string const& raw = t.raw_data();
    switch (t.data_type())
    {
    case TensorProto::FLOAT:
        out.isFloat = true;
        if (!raw.empty()) appendRaw<float>(raw, out.real);
        else out.real.assign(t.float_data().begin(), t.float_data().end());
        break;
    case TensorProto::DOUBLE:
        out.isFloat = true;
        if (!raw.empty()) appendRaw<double>(raw, out.real);
        else out.real.assign(t.double_data().begin(), t.double_data().end());
        break;
    case TensorProto::FLOAT16: out.isFloat = true; append16(raw, t.int32_data(), false, out.real); break;
    case TensorProto::BFLOAT16: out.isFloat = true; append16(raw, t.int32_data(), true, out.real); break;
    case TensorProto::INT64:
        if (!raw.empty()) appendRawInt<int64_t>(raw, out.integer);
        else out.integer.assign(t.int64_data().begin(), t.int64_data().end());
        break;
    case TensorProto::INT32:
        if (!raw.empty()) appendRawInt<int32_t>(raw, out.integer);
        else out.integer.assign(t.int32_data().begin(), t.int32_data().end());
        break;
    case TensorProto::INT16:
        if (!raw.empty()) appendRawInt<int16_t>(raw, out.integer);
        else out.integer.assign(t.int32_data().begin(), t.int32_data().end());
        break;
    case TensorProto::INT8:
        if (!raw.empty()) appendRawInt<int8_t>(raw, out.integer);
        else out.integer.assign(t.int32_data().begin(), t.int32_data().end());
        break;
    case TensorProto::UINT8:
    case TensorProto::BOOL:
        if (!raw.empty()) appendRawInt<uint8_t>(raw, out.integer);
        else out.integer.assign(t.int32_data().begin(), t.int32_data().end());
        break;
    case TensorProto::UINT16:
        if (!raw.empty()) appendRawInt<uint16_t>(raw, out.integer);
        else out.integer.assign(t.int32_data().begin(), t.int32_data().end());
        break;
    case TensorProto::UINT32:
        if (!raw.empty()) appendRawInt<uint32_t>(raw, out.integer);
        else out.integer.assign(t.uint64_data().begin(), t.uint64_data().end());
        break;
    case TensorProto::UINT64:
        if (!raw.empty()) appendRawInt<uint64_t>(raw, out.integer);
        else out.integer.assign(t.uint64_data().begin(), t.uint64_data().end());
        break;
    default:
        error = "reference tensor '" + t.name() + "' has element type " + onnxTypeName(t.data_type())
            + ", which the runner does not decode";
        return false;
    }
    int64_t const have = out.isFloat ? static_cast<int64_t>(out.real.size()) : static_cast<int64_t>(out.integer.size());
    if (have != out.count())
    {
        error = "reference tensor '" + t.name() + "' holds " + std::to_string(have) + " elements, its dims say "
            + std::to_string(out.count());
        return false;
    }
    return true;
}

} // namespace

int64_t RefTensor::count() const
{
    int64_t n = 1;
    for (int64_t d : dims)
    {
        n *= d;
    }
    return n;
}

std::string onnxTypeName(int32_t onnxType)
{
    if (::onnx::TensorProto_DataType_IsValid(onnxType))
    {
        return ::onnx::TensorProto_DataType_Name(static_cast<::onnx::TensorProto_DataType>(onnxType));
    }
    return "type " + std::to_string(onnxType);
}

bool readTensorFile(std::string const& path, RefTensor& out, std::string& error)
{
    std::ifstream file(path, std::ios::binary);
    if (!file)
    {
        error = "cannot open " + path;
        return false;
    }
    std::stringstream bytes;
    bytes << file.rdbuf();
    std::string const data = bytes.str();
    TensorProto tensor;
    if (!tensor.ParseFromString(data))
    {
        error = path + " is not a TensorProto";
        return false;
    }
    if (tensor.data_type() == TensorProto::UNDEFINED)
    {
        error = path + " holds a sequence or optional value, not a tensor";
        return false;
    }
    return decode(tensor, out, error);
}

} // namespace kiln::conformance
