// IoBuffers implementation.
#include "ioBuffers.h"

#include "deviceRuntime.h"
#include "jsonText.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>

namespace kilnexec
{
using nvinfer1::DataType;
using nvinfer1::Dims;

namespace
{

float halfToFloat(uint16_t h)
{
    uint32_t const sign = static_cast<uint32_t>(h & 0x8000U) << 16;
    uint32_t exponent = (h >> 10) & 0x1FU;
    uint32_t mantissa = h & 0x3FFU;
    uint32_t bits = 0;
    if (exponent == 0x1FU)
    {
        bits = sign | 0x7F800000U | (mantissa << 13);
    }
    else if (exponent == 0)
    {
        float const value = std::ldexp(static_cast<float>(mantissa), -24);
        return sign != 0 ? -value : value;
    }
    else
    {
        bits = sign | ((exponent + 112U) << 23) | (mantissa << 13);
    }
    float f = 0.0F;
    std::memcpy(&f, &bits, sizeof(f));
    return f;
}

uint16_t floatToHalf(float f)
{
    // Inputs are random values in [-1, 1]: normal or subnormal halves, no overflow.
    uint16_t const sign = std::signbit(f) ? 0x8000U : 0U;
    float const a = std::fabs(f);
    if (a < 6.103515625e-05F)
    {
        return static_cast<uint16_t>(sign | static_cast<uint16_t>(std::lround(a * 16777216.0F)));
    }
    int exponent = 0;
    float const m = std::frexp(a, &exponent); // a = m * 2^exponent, m in [0.5, 1)
    long mantissa = std::lround((m * 2.0F - 1.0F) * 1024.0F);
    int biased = exponent - 1 + 15;
    if (mantissa == 1024)
    {
        mantissa = 0;
        ++biased;
    }
    return static_cast<uint16_t>(sign | static_cast<uint16_t>(biased << 10) | static_cast<uint16_t>(mantissa));
}

float bf16ToFloat(uint16_t h)
{
    uint32_t const bits = static_cast<uint32_t>(h) << 16;
    float f = 0.0F;
    std::memcpy(&f, &bits, sizeof(f));
    return f;
}

uint16_t floatToBf16(float f)
{
    uint32_t bits = 0;
    std::memcpy(&bits, &f, sizeof(bits));
    bits += 0x7FFFU + ((bits >> 16) & 1U);
    return static_cast<uint16_t>(bits >> 16);
}

template <typename T>
T load(void const* data, int64_t index)
{
    T value;
    std::memcpy(&value, static_cast<uint8_t const*>(data) + index * static_cast<int64_t>(sizeof(T)), sizeof(T));
    return value;
}

//! Seeded random contents: floats in [-1, 1], integers in [0, 7], booleans 0/1 (docs/kilnexec.md).
void fillRandom(IoBuffers::Tensor& tensor, std::mt19937& rng)
{
    int64_t const n = volume(tensor.dims);
    std::uniform_real_distribution<float> real(-1.0F, 1.0F);
    std::uniform_int_distribution<int32_t> integer(0, 7);
    uint8_t* out = tensor.data.get();
    for (int64_t i = 0; i < n; ++i)
    {
        switch (tensor.type)
        {
        case DataType::kFLOAT:
        {
            float const v = real(rng);
            std::memcpy(out + 4 * i, &v, 4);
            break;
        }
        case DataType::kHALF:
        case DataType::kBF16:
        {
            float const v = real(rng);
            uint16_t const h = tensor.type == DataType::kHALF ? floatToHalf(v) : floatToBf16(v);
            std::memcpy(out + 2 * i, &h, 2);
            break;
        }
        case DataType::kINT32:
        {
            int32_t const v = integer(rng);
            std::memcpy(out + 4 * i, &v, 4);
            break;
        }
        case DataType::kINT64:
        {
            int64_t const v = integer(rng);
            std::memcpy(out + 8 * i, &v, 8);
            break;
        }
        case DataType::kBOOL: out[i] = static_cast<uint8_t>(integer(rng) & 1); break;
        default: out[i] = static_cast<uint8_t>(integer(rng)); break;
        }
    }
}

} // namespace

size_t elementSize(DataType type)
{
    switch (type)
    {
    case DataType::kFLOAT:
    case DataType::kINT32: return 4;
    case DataType::kHALF:
    case DataType::kBF16: return 2;
    case DataType::kINT64: return 8;
    case DataType::kINT8:
    case DataType::kBOOL:
    case DataType::kUINT8:
    case DataType::kFP8:
    case DataType::kE8M0: return 1;
    case DataType::kINT4:
    case DataType::kFP4: return 0;
    }
    return 0;
}

char const* typeName(DataType type)
{
    switch (type)
    {
    case DataType::kFLOAT: return "FP32";
    case DataType::kHALF: return "FP16";
    case DataType::kINT8: return "INT8";
    case DataType::kINT32: return "INT32";
    case DataType::kBOOL: return "BOOL";
    case DataType::kUINT8: return "UINT8";
    case DataType::kFP8: return "FP8";
    case DataType::kBF16: return "BF16";
    case DataType::kINT64: return "INT64";
    case DataType::kINT4: return "INT4";
    case DataType::kFP4: return "FP4";
    case DataType::kE8M0: return "E8M0";
    }
    return "?";
}

double elementValue(DataType type, void const* data, int64_t index)
{
    switch (type)
    {
    case DataType::kFLOAT: return load<float>(data, index);
    case DataType::kHALF: return halfToFloat(load<uint16_t>(data, index));
    case DataType::kBF16: return bf16ToFloat(load<uint16_t>(data, index));
    case DataType::kINT32: return load<int32_t>(data, index);
    case DataType::kINT64: return static_cast<double>(load<int64_t>(data, index));
    case DataType::kINT8: return load<int8_t>(data, index);
    default: return load<uint8_t>(data, index);
    }
}

int64_t volume(Dims const& dims)
{
    int64_t n = 1;
    for (int32_t i = 0; i < dims.nbDims; ++i)
    {
        if (dims.d[i] < 0)
        {
            return -1;
        }
        n *= dims.d[i];
    }
    return n;
}

//! Grows an output's buffer when the engine learns a data-dependent output size during enqueueV3().
class IoBuffers::OutputAllocator final : public nvinfer1::IOutputAllocator
{
public:
    explicit OutputAllocator(IoBuffers& buffers)
        : mBuffers(buffers)
    {
    }

    void* reallocateOutputAsync(char const* tensorName, void* currentMemory, uint64_t size, uint64_t /*alignment*/,
        cudaStream_t /*stream*/) noexcept override
    {
        Tensor* tensor = find(tensorName);
        if (tensor == nullptr)
        {
            return nullptr;
        }
        std::string error;
        if (tensor->onDevice)
        {
            // CUDA engines write data-dependent outputs in device memory. The old buffer may still be read by
            // copies queued on the stream, so it is kept until the buffers go.
            if (size <= tensor->deviceCapacity && currentMemory == tensor->device.get())
            {
                return currentMemory;
            }
            if (tensor->device != nullptr)
            {
                mBuffers.mRetired.push_back(tensor->device);
            }
            return mBuffers.allocateDevice(*tensor, static_cast<size_t>(size), error) ? tensor->device.get() : nullptr;
        }
        if (size <= tensor->capacity && currentMemory == tensor->data.get())
        {
            return currentMemory;
        }
        return mBuffers.allocate(*tensor, static_cast<size_t>(size), error) ? tensor->data.get() : nullptr;
    }

    void notifyShape(char const* tensorName, Dims const& dims) noexcept override
    {
        if (Tensor* tensor = find(tensorName); tensor != nullptr)
        {
            tensor->dims = dims;
            tensor->bytes = static_cast<size_t>(volume(dims)) * elementSize(tensor->type);
        }
    }

private:
    Tensor* find(char const* name)
    {
        for (Tensor& tensor : mBuffers.mTensors)
        {
            if (name != nullptr && tensor.name == name)
            {
                return &tensor;
            }
        }
        return nullptr;
    }

    IoBuffers& mBuffers;
};

IoBuffers::IoBuffers() = default;
IoBuffers::~IoBuffers() = default;

bool IoBuffers::resolveInputShape(nvinfer1::ICudaEngine const& engine, Options const& options, char const* name,
    Dims& dims, nvinfer1::ILogger& logger, std::string& error) const
{
    Dims const declared = engine.getTensorShape(name);
    bool const dynamic = volume(declared) < 0;
    bool given = false;
    for (ShapeSpec const& spec : options.shapes)
    {
        if (spec.name == name)
        {
            dims = spec.dims;
            given = true;
        }
    }
    int32_t const profile = options.inferenceProfile;
    Dims minDims{};
    Dims maxDims{};
    if (dynamic)
    {
        minDims = engine.getProfileShape(name, profile, nvinfer1::OptProfileSelector::kMIN);
        maxDims = engine.getProfileShape(name, profile, nvinfer1::OptProfileSelector::kMAX);
    }
    if (!given)
    {
        if (!dynamic)
        {
            dims = declared;
            return true;
        }
        dims = engine.getProfileShape(name, profile, nvinfer1::OptProfileSelector::kOPT);
        if (volume(dims) < 0)
        {
            error = "kilnexec: input '" + std::string(name) + "' has the dynamic shape " + dimsText(declared)
                + " and no profile shapes; give --shapes=" + name + ":AxB...";
            return false;
        }
        logger.log(nvinfer1::ILogger::Severity::kINFO,
            ("input '" + std::string(name) + "': no --shapes given, using profile " + std::to_string(profile)
                + "'s opt shape " + dimsText(dims))
                .c_str());
        return true;
    }
    bool fits = dims.nbDims == declared.nbDims;
    for (int32_t i = 0; fits && i < dims.nbDims; ++i)
    {
        fits = declared.d[i] < 0 ? (minDims.nbDims != dims.nbDims || (dims.d[i] >= minDims.d[i] && dims.d[i] <= maxDims.d[i]))
                                 : dims.d[i] == declared.d[i];
    }
    if (!fits)
    {
        error = "kilnexec: --shapes gives input '" + std::string(name) + "' the shape " + dimsText(dims)
            + ", outside what the engine accepts: " + dimsText(declared)
            + (dynamic ? " with profile " + std::to_string(profile) + " min " + dimsText(minDims) + ", max "
                       + dimsText(maxDims)
                       : std::string(" (static)"));
        return false;
    }
    return true;
}

bool IoBuffers::loadInput(Tensor& tensor, std::string const& path, std::string& error)
{
    std::ifstream file(path, std::ios::binary | std::ios::ate);
    if (!file)
    {
        error = "kilnexec: --loadInputs: cannot open '" + path + "' for input '" + tensor.name + "': "
            + std::strerror(errno);
        return false;
    }
    std::streamoff const size = file.tellg();
    if (size < 0 || static_cast<size_t>(size) != tensor.bytes)
    {
        error = "kilnexec: --loadInputs: '" + path + "' holds " + std::to_string(size) + " bytes, but input '"
            + tensor.name + "' (" + typeName(tensor.type) + ", " + dimsText(tensor.dims) + ") needs "
            + std::to_string(tensor.bytes) + " bytes of raw binary data";
        return false;
    }
    file.seekg(0);
    file.read(reinterpret_cast<char*>(tensor.data.get()), size);
    tensor.source = path;
    return static_cast<bool>(file);
}

bool IoBuffers::setup(nvinfer1::ICudaEngine const& engine, nvinfer1::IExecutionContext& context,
    Options const& options, nvinfer1::ILogger& logger, bool onDevice, cudaStream_t stream, std::string& error)
{
    mOnDevice = onDevice;
    auto deviceResident = [&](char const* name) {
        return onDevice && engine.getTensorLocation(name) == nvinfer1::TensorLocation::kDEVICE;
    };
    int32_t const nbProfiles = engine.getNbOptimizationProfiles();
    if (options.inferenceProfile >= nbProfiles)
    {
        error = "kilnexec: --profile=" + std::to_string(options.inferenceProfile) + " selects a profile the engine "
            "does not have (it has " + std::to_string(nbProfiles) + ")";
        return false;
    }
    if (nbProfiles > 1 && !context.setOptimizationProfileAsync(options.inferenceProfile, onDevice ? stream : nullptr))
    {
        error = "kilnexec: the execution context refused profile " + std::to_string(options.inferenceProfile);
        return false;
    }
    std::vector<std::string> inputNames;
    int32_t const nbIO = engine.getNbIOTensors();
    for (int32_t i = 0; i < nbIO; ++i)
    {
        char const* name = engine.getIOTensorName(i);
        if (engine.getTensorIOMode(name) == nvinfer1::TensorIOMode::kINPUT)
        {
            inputNames.emplace_back(name);
        }
    }
    auto isInput = [&](std::string const& name) {
        for (std::string const& input : inputNames)
        {
            if (input == name)
            {
                return true;
            }
        }
        return false;
    };
    std::string inputList;
    for (std::string const& input : inputNames)
    {
        inputList += (inputList.empty() ? "" : ", ") + input;
    }
    for (ShapeSpec const& spec : options.shapes)
    {
        if (!isInput(spec.name))
        {
            error = "kilnexec: --shapes names '" + spec.name + "', which is not an input of the engine (inputs: "
                + inputList + ")";
            return false;
        }
    }
    for (auto const& [name, path] : options.loadInputs)
    {
        if (!isInput(name))
        {
            error = "kilnexec: --loadInputs names '" + name + "', which is not an input of the engine (inputs: "
                + inputList + ")";
            return false;
        }
    }

    // Inputs first: their shapes decide the outputs' shapes.
    std::mt19937 rng(0x4B494C4EU);
    for (std::string const& name : inputNames)
    {
        Tensor tensor;
        tensor.name = name;
        tensor.isInput = true;
        tensor.type = engine.getTensorDataType(name.c_str());
        if (engine.isShapeInferenceIO(name.c_str()))
        {
            error = "kilnexec: input '" + name + "' is a shape tensor; kilnexec does not feed shape-tensor inputs yet";
            return false;
        }
        if (elementSize(tensor.type) == 0)
        {
            error = "kilnexec: input '" + name + "' has type " + typeName(tensor.type)
                + ", which kilnexec cannot fill (sub-byte types are not supported)";
            return false;
        }
        if (!resolveInputShape(engine, options, name.c_str(), tensor.dims, logger, error))
        {
            return false;
        }
        if (!context.setInputShape(name.c_str(), tensor.dims))
        {
            error = "kilnexec: the execution context refused the shape " + dimsText(tensor.dims) + " for input '"
                + name + "' (see the messages above)";
            return false;
        }
        size_t const bytes = static_cast<size_t>(volume(tensor.dims)) * elementSize(tensor.type);
        tensor.onDevice = deviceResident(name.c_str());
        if (!allocate(tensor, bytes, error) || (tensor.onDevice && !allocateDevice(tensor, bytes, error)))
        {
            return false;
        }
        tensor.source = "random";
        std::string file;
        for (auto const& [inputName, path] : options.loadInputs)
        {
            file = inputName == name ? path : file;
        }
        if (!file.empty())
        {
            if (!loadInput(tensor, file, error))
            {
                return false;
            }
        }
        else
        {
            fillRandom(tensor, rng);
        }
        mTensors.push_back(tensor);
    }
    mAllocator = std::make_unique<OutputAllocator>(*this);
    for (int32_t i = 0; i < nbIO; ++i)
    {
        char const* name = engine.getIOTensorName(i);
        if (engine.getTensorIOMode(name) != nvinfer1::TensorIOMode::kOUTPUT)
        {
            continue;
        }
        Tensor tensor;
        tensor.name = name;
        tensor.type = engine.getTensorDataType(name);
        tensor.dims = context.getTensorShape(name);
        if (elementSize(tensor.type) == 0)
        {
            error = "kilnexec: output '" + tensor.name + "' has type " + typeName(tensor.type)
                + ", which kilnexec cannot read (sub-byte types are not supported)";
            return false;
        }
        if (tensor.dims.nbDims < 0)
        {
            error = "kilnexec: the shape of output '" + tensor.name + "' cannot be computed from the input shapes "
                "(see the messages above)";
            return false;
        }
        tensor.dataDependent = volume(tensor.dims) < 0;
        int64_t const n = tensor.dataDependent ? 1 : volume(tensor.dims);
        size_t const bytes = static_cast<size_t>(n) * elementSize(tensor.type);
        tensor.onDevice = deviceResident(name);
        if (!allocate(tensor, bytes, error) || (tensor.onDevice && !allocateDevice(tensor, bytes, error)))
        {
            return false;
        }
        if (tensor.dataDependent)
        {
            tensor.bytes = 0; // nothing to read back until the engine reports the shape
        }
        mTensors.push_back(tensor);
    }
    if (onDevice)
    {
        std::string cudaError;
        if (!copyInputsToDevice(stream, error))
        {
            return false;
        }
        if (!cuda::streamSynchronize(stream, cudaError))
        {
            error = "kilnexec: uploading the inputs failed: " + cudaError;
            return false;
        }
    }
    for (Tensor& tensor : mTensors)
    {
        void* const address = tensor.onDevice ? tensor.device.get() : static_cast<void*>(tensor.data.get());
        if (!context.setTensorAddress(tensor.name.c_str(), address))
        {
            error = "kilnexec: the execution context refused the address of tensor '" + tensor.name + "'";
            return false;
        }
        if (tensor.dataDependent && !context.setOutputAllocator(tensor.name.c_str(), mAllocator.get()))
        {
            error = "kilnexec: the execution context refused an output allocator for '" + tensor.name + "'";
            return false;
        }
    }
    return true;
}

void IoBuffers::dumpOutputs(std::FILE* out) const
{
    std::fprintf(out, "[I] Output Tensors:\n");
    for (Tensor const& tensor : mTensors)
    {
        if (tensor.isInput)
        {
            continue;
        }
        std::fprintf(out, "[I] %s: (%s)\n[I]", tensor.name.c_str(), dimsText(tensor.dims).c_str());
        int64_t const n = volume(tensor.dims);
        for (int64_t i = 0; i < n; ++i)
        {
            std::fprintf(out, " %s", numberText(elementValue(tensor.type, tensor.data.get(), i), tensor.type).c_str());
        }
        std::fputc('\n', out);
    }
}

bool IoBuffers::exportOutputs(std::string const& path, std::string& error) const
{
    std::string text = "[\n";
    bool first = true;
    for (Tensor const& tensor : mTensors)
    {
        if (tensor.isInput)
        {
            continue;
        }
        text += first ? "  { " : ", { ";
        first = false;
        text += "\"name\" : " + jsonString(tensor.name) + "\n  , \"dimensions\" : " + jsonString(dimsText(tensor.dims))
            + "\n  , \"type\" : " + jsonString(typeName(tensor.type)) + "\n  , \"values\" : [ ";
        int64_t const n = volume(tensor.dims);
        for (int64_t i = 0; i < n; ++i)
        {
            text += (i > 0 ? ", " : "") + jsonNumber(elementValue(tensor.type, tensor.data.get(), i), tensor.type);
        }
        text += " ]\n  }\n";
    }
    text += "]\n";
    return writeTextFile(path, text, "--exportOutput", error);
}

} // namespace kilnexec
