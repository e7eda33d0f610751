// Test harness implementation (public API only).
#include "common/networkRunner.h"

#include "common/backendTest.h"
#include "common/testMemory.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <sstream>

namespace kiln::test
{
using namespace nvinfer1;

namespace
{
int64_t elemSize(DataType t)
{
    switch (t)
    {
    case DataType::kFLOAT:
    case DataType::kINT32: return 4;
    case DataType::kHALF:
    case DataType::kBF16: return 2;
    case DataType::kINT64: return 8;
    default: return 1;
    }
}

float h2f(uint16_t h)
{
    uint32_t const sign = static_cast<uint32_t>(h & 0x8000U) << 16;
    int32_t exp = (h >> 10) & 0x1F;
    uint32_t man = h & 0x3FFU;
    float f;
    if (exp == 0)
    {
        f = std::ldexp(static_cast<float>(man), -24);
    }
    else if (exp == 31)
    {
        f = man ? std::numeric_limits<float>::quiet_NaN() : std::numeric_limits<float>::infinity();
    }
    else
    {
        f = std::ldexp(static_cast<float>(man | 0x400U), exp - 25);
    }
    return sign ? -f : f;
}

uint16_t f2h(float f)
{
    // Test-side conversion (round to nearest even via double arithmetic on the mantissa).
    if (std::isnan(f))
    {
        return 0x7E00;
    }
    uint16_t sign = std::signbit(f) ? 0x8000 : 0;
    double a = std::fabs(static_cast<double>(f));
    if (a >= 65520.0)
    {
        return sign | 0x7C00;
    }
    if (a < std::ldexp(1.0, -14))
    {
        double m = std::nearbyint(a / std::ldexp(1.0, -24));
        return sign | static_cast<uint16_t>(m);
    }
    int e;
    double m = std::frexp(a, &e); // a = m * 2^e, m in [0.5, 1)
    double mant = std::nearbyint((m * 2.0 - 1.0) * 1024.0);
    int exp = e - 1 + 15;
    if (mant >= 1024.0)
    {
        mant = 0;
        ++exp;
    }
    if (exp >= 31)
    {
        return sign | 0x7C00;
    }
    return sign | static_cast<uint16_t>(exp << 10) | static_cast<uint16_t>(mant);
}

float b2f(uint16_t b)
{
    uint32_t bits = static_cast<uint32_t>(b) << 16;
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
}

uint16_t f2b(float f)
{
    uint32_t bits;
    std::memcpy(&bits, &f, 4);
    if (std::isnan(f))
    {
        return 0x7FC0;
    }
    uint32_t const lsb = (bits >> 16) & 1U;
    return static_cast<uint16_t>((bits + 0x7FFFU + lsb) >> 16);
}
} // namespace

Dims makeDims(std::vector<int64_t> const& extents)
{
    Dims d{};
    d.nbDims = static_cast<int32_t>(extents.size());
    for (size_t i = 0; i < extents.size(); ++i)
    {
        d.d[i] = extents[i];
    }
    return d;
}

int64_t volume(Dims const& d)
{
    int64_t v = 1;
    for (int32_t i = 0; i < d.nbDims; ++i)
    {
        v *= d.d[i];
    }
    return v;
}

std::string dimsString(Dims const& d)
{
    std::ostringstream os;
    os << '[';
    for (int32_t i = 0; i < d.nbDims; ++i)
    {
        os << (i ? "," : "") << d.d[i];
    }
    os << ']';
    return os.str();
}

HostTensor::HostTensor(DataType t, Dims d)
    : type(t)
    , dims(d)
    , bytes(static_cast<size_t>(std::max<int64_t>(kiln::test::volume(d), 0) * elemSize(t)), 0)
{
}

double HostTensor::at(int64_t i) const
{
    void const* p = bytes.data();
    switch (type)
    {
    case DataType::kFLOAT: return static_cast<float const*>(p)[i];
    case DataType::kHALF: return h2f(static_cast<uint16_t const*>(p)[i]);
    case DataType::kBF16: return b2f(static_cast<uint16_t const*>(p)[i]);
    case DataType::kINT32: return static_cast<int32_t const*>(p)[i];
    case DataType::kINT64: return static_cast<double>(static_cast<int64_t const*>(p)[i]);
    case DataType::kINT8: return static_cast<int8_t const*>(p)[i];
    case DataType::kUINT8: return static_cast<uint8_t const*>(p)[i];
    case DataType::kBOOL: return static_cast<uint8_t const*>(p)[i] ? 1.0 : 0.0;
    default: return std::nan("");
    }
}

void HostTensor::set(int64_t i, double v)
{
    void* p = bytes.data();
    switch (type)
    {
    case DataType::kFLOAT: static_cast<float*>(p)[i] = static_cast<float>(v); break;
    case DataType::kHALF: static_cast<uint16_t*>(p)[i] = f2h(static_cast<float>(v)); break;
    case DataType::kBF16: static_cast<uint16_t*>(p)[i] = f2b(static_cast<float>(v)); break;
    case DataType::kINT32: static_cast<int32_t*>(p)[i] = static_cast<int32_t>(v); break;
    case DataType::kINT64: static_cast<int64_t*>(p)[i] = static_cast<int64_t>(v); break;
    case DataType::kINT8: static_cast<int8_t*>(p)[i] = static_cast<int8_t>(v); break;
    case DataType::kUINT8: static_cast<uint8_t*>(p)[i] = static_cast<uint8_t>(v); break;
    case DataType::kBOOL: static_cast<uint8_t*>(p)[i] = v != 0.0 ? 1 : 0; break;
    default: break;
    }
}

HostTensor HostTensor::random(DataType t, Dims d, std::mt19937& rng, double lo, double hi)
{
    HostTensor h(t, d);
    bool const isInt = t == DataType::kINT32 || t == DataType::kINT64 || t == DataType::kINT8 || t == DataType::kUINT8;
    for (int64_t i = 0; i < h.volume(); ++i)
    {
        if (t == DataType::kBOOL)
        {
            h.set(i, std::uniform_int_distribution<int>(0, 1)(rng));
        }
        else if (isInt)
        {
            h.set(i, static_cast<double>(std::uniform_int_distribution<int64_t>(
                static_cast<int64_t>(std::ceil(lo)), static_cast<int64_t>(std::floor(hi)))(rng)));
        }
        else
        {
            h.set(i, std::uniform_real_distribution<double>(lo, hi)(rng));
        }
    }
    return h;
}

HostTensor HostTensor::fromValues(DataType t, Dims d, std::vector<double> const& values)
{
    HostTensor h(t, d);
    for (int64_t i = 0; i < h.volume() && i < static_cast<int64_t>(values.size()); ++i)
    {
        h.set(i, values[static_cast<size_t>(i)]);
    }
    return h;
}

void CapturingLogger::log(Severity severity, char const* msg) noexcept
{
    std::lock_guard<std::mutex> lock(mMutex);
    mMessages.emplace_back(severity, msg != nullptr ? msg : "");
    if (echo || (std::getenv("KILN_TEST_VERBOSE") != nullptr && severity <= Severity::kWARNING))
    {
        std::cerr << "[kiln " << static_cast<int>(severity) << "] " << (msg ? msg : "") << "\n";
    }
}

std::vector<std::string> CapturingLogger::errors() const
{
    std::lock_guard<std::mutex> lock(mMutex);
    std::vector<std::string> out;
    for (auto const& [s, m] : mMessages)
    {
        if (s <= Severity::kERROR)
        {
            out.push_back(m);
        }
    }
    return out;
}

bool CapturingLogger::hasError(std::string const& text) const
{
    for (auto const& e : errors())
    {
        if (e.find(text) != std::string::npos)
        {
            return true;
        }
    }
    return false;
}

std::string CapturingLogger::messagesContaining(std::string const& text) const
{
    std::lock_guard<std::mutex> lock(mMutex);
    std::string out;
    for (auto const& [s, m] : mMessages)
    {
        if (m.find(text) != std::string::npos)
        {
            out += m + "\n";
        }
    }
    return out;
}

int32_t CapturingLogger::countMessages(std::string const& text) const
{
    std::lock_guard<std::mutex> lock(mMutex);
    int32_t n = 0;
    for (auto const& message : mMessages)
    {
        n += message.second.find(text) != std::string::npos ? 1 : 0;
    }
    return n;
}

std::string CapturingLogger::allErrors() const
{
    std::string s;
    for (auto const& e : errors())
    {
        s += e + "\n";
    }
    return s;
}

void CapturingLogger::clear()
{
    std::lock_guard<std::mutex> lock(mMutex);
    mMessages.clear();
}

int32_t RecordingErrorRecorder::getNbErrors() const noexcept
{
    std::lock_guard<std::mutex> lock(mMutex);
    return static_cast<int32_t>(mErrors.size());
}

ErrorCode RecordingErrorRecorder::getErrorCode(int32_t i) const noexcept
{
    std::lock_guard<std::mutex> lock(mMutex);
    return i >= 0 && i < static_cast<int32_t>(mErrors.size()) ? mErrors[static_cast<size_t>(i)].first
                                                               : ErrorCode::kSUCCESS;
}

IErrorRecorder::ErrorDesc RecordingErrorRecorder::getErrorDesc(int32_t i) const noexcept
{
    std::lock_guard<std::mutex> lock(mMutex);
    return i >= 0 && i < static_cast<int32_t>(mErrors.size()) ? mErrors[static_cast<size_t>(i)].second.c_str() : "";
}

void RecordingErrorRecorder::clear() noexcept
{
    std::lock_guard<std::mutex> lock(mMutex);
    mErrors.clear();
}

bool RecordingErrorRecorder::reportError(ErrorCode val, ErrorDesc desc) noexcept
{
    std::lock_guard<std::mutex> lock(mMutex);
    mErrors.emplace_back(val, desc != nullptr ? desc : "");
    return true;
}

NetworkRunner::NetworkRunner(uint32_t networkFlags)
    : NetworkRunner(currentTestBackend(), networkFlags)
{
}

NetworkRunner::NetworkRunner(kiln::BackendKind backend, uint32_t networkFlags)
    : mBackend(backend)
{
    mBuilder.reset(createInferBuilder(mLogger));
    mNetwork.reset(mBuilder->createNetworkV2(networkFlags));
    mConfig.reset(mBuilder->createBuilderConfig());
    if (backend != kiln::BackendKind::kDEFAULT)
    {
        EXPECT_TRUE(kiln::setBuilderBackend(mConfig.get(), backend)) << mLogger.allErrors();
    }
}

NetworkRunner::~NetworkRunner()
{
    mEngine.reset();
    mRuntime.reset();
}

ITensor* NetworkRunner::addInput(char const* name, DataType type, std::vector<int64_t> const& dims)
{
    return mNetwork->addInput(name, type, makeDims(dims));
}

void NetworkRunner::markOutput(ITensor* t, char const* name)
{
    if (t == nullptr)
    {
        ADD_FAILURE() << "markOutput: null tensor\n" << mLogger.allErrors();
        return;
    }
    if (name != nullptr)
    {
        t->setName(name);
    }
    mNetwork->markOutput(*t);
}

void NetworkRunner::setProfileDims(std::string const& input, std::vector<int64_t> const& min,
    std::vector<int64_t> const& opt, std::vector<int64_t> const& max, int32_t profileIndex)
{
    while (static_cast<int32_t>(mProfiles.size()) <= profileIndex)
    {
        mProfiles.push_back(mBuilder->createOptimizationProfile());
    }
    IOptimizationProfile* p = mProfiles[static_cast<size_t>(profileIndex)];
    EXPECT_TRUE(p->setDimensions(input.c_str(), OptProfileSelector::kMIN, makeDims(min)));
    EXPECT_TRUE(p->setDimensions(input.c_str(), OptProfileSelector::kOPT, makeDims(opt)));
    EXPECT_TRUE(p->setDimensions(input.c_str(), OptProfileSelector::kMAX, makeDims(max)));
}

void NetworkRunner::setProfileValues(std::string const& input, std::vector<int64_t> const& min,
    std::vector<int64_t> const& opt, std::vector<int64_t> const& max, int32_t profileIndex)
{
    while (static_cast<int32_t>(mProfiles.size()) <= profileIndex)
    {
        mProfiles.push_back(mBuilder->createOptimizationProfile());
    }
    IOptimizationProfile* p = mProfiles[static_cast<size_t>(profileIndex)];
    EXPECT_TRUE(p->setShapeValuesV2(input.c_str(), OptProfileSelector::kMIN, min.data(), static_cast<int32_t>(min.size())));
    EXPECT_TRUE(p->setShapeValuesV2(input.c_str(), OptProfileSelector::kOPT, opt.data(), static_cast<int32_t>(opt.size())));
    EXPECT_TRUE(p->setShapeValuesV2(input.c_str(), OptProfileSelector::kMAX, max.data(), static_cast<int32_t>(max.size())));
}

bool NetworkRunner::build()
{
    for (IOptimizationProfile* p : mProfiles)
    {
        if (mConfig->addOptimizationProfile(p) < 0)
        {
            return false;
        }
    }
    mProfiles.clear();
    std::unique_ptr<IHostMemory> blob(mBuilder->buildSerializedNetwork(*mNetwork, *mConfig));
    if (blob == nullptr)
    {
        return false;
    }
    auto const* p = static_cast<uint8_t const*>(blob->data());
    mBytes.assign(p, p + blob->size());
    mRuntime.reset(createInferRuntime(mLogger));
    mEngine.reset(mRuntime->deserializeCudaEngine(mBytes.data(), mBytes.size()));
    return mEngine != nullptr;
}

bool NetworkRunner::onDevice(ICudaEngine const& engine, char const* name)
{
    return kiln::getEngineBackend(&engine) == kiln::BackendKind::kCUDA
        && engine.getTensorLocation(name) == TensorLocation::kDEVICE;
}

bool NetworkRunner::bindInputs(ICudaEngine& engine, IExecutionContext& ctx,
    std::map<std::string, HostTensor> const& inputs, std::map<std::string, TestBuffer>& buffers)
{
    for (auto const& [name, t] : inputs)
    {
        if (engine.getTensorIOMode(name.c_str()) != TensorIOMode::kINPUT)
        {
            ADD_FAILURE() << "'" << name << "' is not an input of the engine";
            return false;
        }
        if (!engine.isShapeInferenceIO(name.c_str()) && !ctx.setInputShape(name.c_str(), t.dims))
        {
            return false;
        }
        void const* address = t.data();
        if (onDevice(engine, name.c_str()))
        {
            TestBuffer& b = buffers[name] = TestBuffer(true, t.bytes.size());
            if (!b.upload(t.data(), t.bytes.size()))
            {
                return false;
            }
            address = b.data();
        }
        if (!ctx.setInputTensorAddress(name.c_str(), address))
        {
            return false;
        }
    }
    return true;
}

bool NetworkRunner::runEngine(ICudaEngine& engine, std::map<std::string, HostTensor> const& inputs,
    std::map<std::string, HostTensor>& outputs, int32_t profile)
{
    // A CUDA engine takes device memory for the I/O it places on the device (shape tensors stay on the host).
    bool const cudaEngine = kiln::getEngineBackend(&engine) == kiln::BackendKind::kCUDA;
    if (cudaEngine)
    {
        std::string why;
        if (!deviceMemoryAvailable(why))
        {
            ADD_FAILURE() << "the engine was built for the CUDA backend, but: " << why;
            return false;
        }
    }
    std::unique_ptr<IExecutionContext> ctx(engine.createExecutionContext());
    if (ctx == nullptr)
    {
        return false;
    }
    TestStream stream(cudaEngine);
    if (profile != 0 && !ctx->setOptimizationProfileAsync(profile, stream.get()))
    {
        return false;
    }
    std::map<std::string, TestBuffer> buffers; // device copies of inputs and device outputs
    if (!bindInputs(engine, *ctx, inputs, buffers))
    {
        return false;
    }
    outputs.clear();
    for (int32_t i = 0; i < engine.getNbIOTensors(); ++i)
    {
        char const* name = engine.getIOTensorName(i);
        if (engine.getTensorIOMode(name) != TensorIOMode::kOUTPUT)
        {
            continue;
        }
        Dims const shape = ctx->getTensorShape(name);
        // An unresolved output shape means the inputs were rejected (the logger has the reason).
        if (shape.nbDims < 0)
        {
            return false;
        }
        for (int32_t d = 0; d < shape.nbDims; ++d)
        {
            if (shape.d[d] < 0)
            {
                return false;
            }
        }
        HostTensor out(engine.getTensorDataType(name), shape);
        std::fill(out.bytes.begin(), out.bytes.end(), uint8_t{0xA5}); // poison
        auto& slot = outputs[name] = std::move(out);
        void* address = slot.bytes.empty() ? reinterpret_cast<void*>(&slot) : slot.data();
        if (onDevice(engine, name))
        {
            address = (buffers[name] = TestBuffer(true, slot.bytes.size(), 0xA5)).data(); // poisoned
        }
        if (!ctx->setTensorAddress(name, address))
        {
            return false;
        }
    }
    if (!ctx->enqueueV3(stream.get()))
    {
        return false;
    }
    std::string error;
    if (!stream.synchronize(error))
    {
        ADD_FAILURE() << error;
        return false;
    }
    for (auto& [name, t] : outputs)
    {
        auto const b = buffers.find(name);
        if (b != buffers.end() && !b->second.download(t.data(), t.bytes.size()))
        {
            return false;
        }
    }
    return true;
}

bool NetworkRunner::tryRun(std::map<std::string, HostTensor> const& inputs, std::map<std::string, HostTensor>& outputs,
    int32_t profile)
{
    if (mEngine == nullptr)
    {
        ADD_FAILURE() << "run before a successful build";
        return false;
    }
    return runEngine(*mEngine, inputs, outputs, profile);
}

bool NetworkRunner::runFails(std::map<std::string, HostTensor> const& inputs, int32_t profile)
{
    std::map<std::string, HostTensor> outputs;
    return mEngine != nullptr && !runEngine(*mEngine, inputs, outputs, profile);
}

ScopedTactic::ScopedTactic(bool reference)
    : mSet(reference)
{
    if (mSet)
    {
        setenv("KILN_CPU_TACTIC", "reference", 1);
    }
}

ScopedTactic::~ScopedTactic()
{
    if (mSet)
    {
        unsetenv("KILN_CPU_TACTIC");
    }
}

std::map<std::string, HostTensor> NetworkRunner::run(std::map<std::string, HostTensor> const& inputs, int32_t profile)
{
    std::map<std::string, HostTensor> outputs;
    EXPECT_TRUE(tryRun(inputs, outputs, profile)) << mLogger.allErrors();
    // The same bytes deserialized again must give bit-identical results.
    std::unique_ptr<ICudaEngine> again(mRuntime->deserializeCudaEngine(mBytes.data(), mBytes.size()));
    EXPECT_NE(again, nullptr) << mLogger.allErrors();
    if (again != nullptr)
    {
        std::map<std::string, HostTensor> second;
        EXPECT_TRUE(runEngine(*again, inputs, second, profile)) << mLogger.allErrors();
        for (auto const& [name, t] : outputs)
        {
            EXPECT_TRUE(sameBits(second[name], t)) << "output '" << name << "' differs between two deserializations";
        }
    }
    return outputs;
}

::testing::AssertionResult allClose(HostTensor const& actual, HostTensor const& expected, double atol, double rtol)
{
    if (actual.dims.nbDims != expected.dims.nbDims || volume(actual.dims) != volume(expected.dims))
    {
        return ::testing::AssertionFailure() << "shape " << dimsString(actual.dims) << " != expected "
                                             << dimsString(expected.dims);
    }
    for (int32_t i = 0; i < actual.dims.nbDims; ++i)
    {
        if (actual.dims.d[i] != expected.dims.d[i])
        {
            return ::testing::AssertionFailure() << "shape " << dimsString(actual.dims) << " != expected "
                                                 << dimsString(expected.dims);
        }
    }
    int64_t bad = 0;
    std::ostringstream first;
    for (int64_t i = 0; i < actual.volume(); ++i)
    {
        double const a = actual.at(i);
        double const e = expected.at(i);
        bool ok;
        if (std::isnan(e))
        {
            ok = std::isnan(a);
        }
        else if (std::isinf(e))
        {
            ok = a == e;
        }
        else
        {
            ok = std::fabs(a - e) <= atol + rtol * std::fabs(e);
        }
        if (!ok)
        {
            if (bad < 5)
            {
                first << "\n  [" << i << "] got " << a << ", expected " << e;
            }
            ++bad;
        }
    }
    if (bad > 0)
    {
        return ::testing::AssertionFailure() << bad << " of " << actual.volume() << " elements differ (atol " << atol
                                             << ", rtol " << rtol << "):" << first.str();
    }
    return ::testing::AssertionSuccess();
}

::testing::AssertionResult sameBits(HostTensor const& a, HostTensor const& b)
{
    if (a.type != b.type || a.bytes != b.bytes || volume(a.dims) != volume(b.dims))
    {
        return ::testing::AssertionFailure() << "tensors differ in type, shape or bits";
    }
    return ::testing::AssertionSuccess();
}

} // namespace kiln::test
