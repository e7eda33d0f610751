// Test harness: build a network through the public API, build the engine for a backend, run it and compare
// results. Inside a backend-parameterised test (common/backendTest.h) the runner builds for that test's backend and
// runs with I/O in that backend's memory (device buffers and a stream on the CUDA backend, copied back to host
// tensors); elsewhere it leaves the config's backend alone and runs with host buffers. Every run poisons the outputs
// first, and every build also checks that the serialized engine deserializes into an engine that produces the
// same bits.
#pragma once

#include "NvInfer.h"
#include "common/testMemory.h"
#include "kiln/KilnBackend.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <vector>

namespace kiln::test
{

nvinfer1::Dims makeDims(std::vector<int64_t> const& extents);
int64_t volume(nvinfer1::Dims const& d);
std::string dimsString(nvinfer1::Dims const& d);

//! A host tensor of any storable type.
struct HostTensor
{
    nvinfer1::DataType type{nvinfer1::DataType::kFLOAT};
    nvinfer1::Dims dims{};
    std::vector<uint8_t> bytes;

    HostTensor() = default;
    HostTensor(nvinfer1::DataType t, nvinfer1::Dims d);
    int64_t volume() const { return kiln::test::volume(dims); }
    void* data() { return bytes.data(); }
    void const* data() const { return bytes.data(); }
    //! Element `i` as double (exact for integers up to 2^53).
    double at(int64_t i) const;
    void set(int64_t i, double v);

    //! Uniform values in [lo, hi]; integer types draw integers, bool draws 0/1.
    static HostTensor random(nvinfer1::DataType t, nvinfer1::Dims d, std::mt19937& rng, double lo = -1.0, double hi = 1.0);
    static HostTensor fromValues(nvinfer1::DataType t, nvinfer1::Dims d, std::vector<double> const& values);
};

//! Logger that keeps every message so tests can assert on error text.
class CapturingLogger : public nvinfer1::ILogger
{
public:
    void log(Severity severity, char const* msg) noexcept override;
    std::vector<std::string> errors() const;
    //! True when some error message contains `text`.
    bool hasError(std::string const& text) const;
    std::string allErrors() const;
    //! How many messages of any severity contain `text`.
    int32_t countMessages(std::string const& text) const;
    //! The messages of any severity that contain `text`, one per line.
    std::string messagesContaining(std::string const& text) const;
    void clear();
    //! Print every message to stderr too (debugging).
    bool echo{false};

private:
    mutable std::mutex mMutex;
    std::vector<std::pair<Severity, std::string>> mMessages;
};

//! A recorder that keeps errors (to test IErrorRecorder paths).
class RecordingErrorRecorder : public nvinfer1::IErrorRecorder
{
public:
    int32_t getNbErrors() const noexcept override;
    nvinfer1::ErrorCode getErrorCode(int32_t errorIdx) const noexcept override;
    ErrorDesc getErrorDesc(int32_t errorIdx) const noexcept override;
    bool hasOverflowed() const noexcept override { return false; }
    void clear() noexcept override;
    bool reportError(nvinfer1::ErrorCode val, ErrorDesc desc) noexcept override;
    RefCount incRefCount() noexcept override { return ++mRefs; }
    RefCount decRefCount() noexcept override { return --mRefs; }

private:
    mutable std::mutex mMutex;
    std::vector<std::pair<nvinfer1::ErrorCode, std::string>> mErrors;
    RefCount mRefs{0};
};

class NetworkRunner
{
public:
    //! Builds for the running backend test's backend (currentTestBackend()); outside one, for the config's default.
    explicit NetworkRunner(uint32_t networkFlags = 0);
    //! Builds for `backend` (kiln::setBuilderBackend; kDEFAULT leaves the config's default).
    NetworkRunner(kiln::BackendKind backend, uint32_t networkFlags);
    ~NetworkRunner();

    //! The backend this runner builds for (kDEFAULT: the config's default).
    kiln::BackendKind backend() const { return mBackend; }

    nvinfer1::IBuilder& builder() { return *mBuilder; }
    nvinfer1::INetworkDefinition& network() { return *mNetwork; }
    nvinfer1::IBuilderConfig& config() { return *mConfig; }
    CapturingLogger& logger() { return mLogger; }

    //! Shorthands for the most common network edits.
    nvinfer1::ITensor* addInput(char const* name, nvinfer1::DataType type, std::vector<int64_t> const& dims);
    void markOutput(nvinfer1::ITensor* t, char const* name = nullptr);

    //! Set min/opt/max for an input in profile `profileIndex` (profiles are created on demand, in order).
    void setProfileDims(std::string const& input, std::vector<int64_t> const& min, std::vector<int64_t> const& opt,
        std::vector<int64_t> const& max, int32_t profileIndex = 0);
    void setProfileValues(std::string const& input, std::vector<int64_t> const& min, std::vector<int64_t> const& opt,
        std::vector<int64_t> const& max, int32_t profileIndex = 0);

    //! Build (buildSerializedNetwork), deserialize, and keep the engine. False with logger().errors() on failure.
    bool build();
    nvinfer1::ICudaEngine& engine() { return *mEngine; }
    std::vector<uint8_t> const& engineBytes() const { return mBytes; }

    //! Run with `inputs` (by name; shape tensor inputs as INT32/INT64 host tensors) on profile `profile`. A CUDA
    //! engine's device I/O goes through device buffers (inputs uploaded, outputs poisoned, run on a stream, copied
    //! back). Outputs are poisoned first; returns false (with logger errors or a test failure) if any step fails.
    bool tryRun(std::map<std::string, HostTensor> const& inputs, std::map<std::string, HostTensor>& outputs,
        int32_t profile = 0);
    //! True when running `inputs` fails (shape resolution or execution), e.g. inputs that violate a runtime
    //! shape constraint. Never fails the test by itself.
    bool runFails(std::map<std::string, HostTensor> const& inputs, int32_t profile = 0);
    //! tryRun that fails the test on error; also runs a second engine deserialized from the same bytes and
    //! checks its outputs are bit-identical.
    std::map<std::string, HostTensor> run(std::map<std::string, HostTensor> const& inputs, int32_t profile = 0);

    //! One run of any `engine` (a second deserialization, say) on a new context, as tryRun does it: I/O in the
    //! engine's backend's memory, outputs poisoned first. False when a step fails.
    static bool runEngine(nvinfer1::ICudaEngine& engine, std::map<std::string, HostTensor> const& inputs,
        std::map<std::string, HostTensor>& outputs, int32_t profile = 0);
    //! Sets the shapes (shape tensors: values) and addresses of `inputs` on `ctx`; inputs that a CUDA engine places
    //! on the device are uploaded into `buffers` first. False when a step fails.
    static bool bindInputs(nvinfer1::ICudaEngine& engine, nvinfer1::IExecutionContext& ctx,
        std::map<std::string, HostTensor> const& inputs, std::map<std::string, TestBuffer>& buffers);
    //! True when `name` is I/O of a CUDA engine that lives in device memory.
    static bool onDevice(nvinfer1::ICudaEngine const& engine, char const* name);

private:

    kiln::BackendKind mBackend{kiln::BackendKind::kDEFAULT};
    CapturingLogger mLogger;
    std::unique_ptr<nvinfer1::IBuilder> mBuilder;
    std::unique_ptr<nvinfer1::INetworkDefinition> mNetwork;
    std::unique_ptr<nvinfer1::IBuilderConfig> mConfig;
    std::vector<nvinfer1::IOptimizationProfile*> mProfiles;
    std::unique_ptr<nvinfer1::IRuntime> mRuntime;
    std::unique_ptr<nvinfer1::ICudaEngine> mEngine;
    std::vector<uint8_t> mBytes;
};

//! Forces the reference tactic (KILN_CPU_TACTIC, read by the builder) for builds inside its scope.
class ScopedTactic
{
public:
    explicit ScopedTactic(bool reference);
    ~ScopedTactic();
    ScopedTactic(ScopedTactic const&) = delete;
    ScopedTactic& operator=(ScopedTactic const&) = delete;

private:
    bool mSet;
};

//! Elementwise |a - e| <= atol + rtol * |e| (NaNs must match; infinities must be equal). Shapes must match.
::testing::AssertionResult allClose(HostTensor const& actual, HostTensor const& expected, double atol, double rtol);
//! Bit-identical comparison.
::testing::AssertionResult sameBits(HostTensor const& a, HostTensor const& b);

} // namespace kiln::test
