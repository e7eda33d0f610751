// IoBuffers: the engine's I/O tensors for one execution context — inference shapes chosen from --shapes or the
// profile, buffers, inputs from --loadInputs files (raw binary, as trtexec) or seeded random data, outputs with
// data-dependent shapes through an IOutputAllocator, and --dumpOutput / --exportOutput. On the CPU backend "device"
// memory is host memory, so one host buffer per tensor serves both sides. On the CUDA backend every tensor whose
// ICudaEngine::getTensorLocation is kDEVICE has a device buffer (cudaMalloc) bound to the context and a pinned host
// buffer; the host buffers are copied to and from the device on the runner's stream (copyInputsToDevice,
// copyOutputsToHost), and data-dependent outputs grow in device memory.
#pragma once

#include "NvInferRuntime.h"
#include "options.h"

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

namespace kilnexec
{

//! Bytes per element, 0 for the sub-byte types kilnexec cannot hold (kINT4, kFP4).
size_t elementSize(nvinfer1::DataType type);

//! trtexec's name of a type ("FP32", "FP16", "INT32", ...).
char const* typeName(nvinfer1::DataType type);

//! Element `index` of a buffer of `type`, as a double.
double elementValue(nvinfer1::DataType type, void const* data, int64_t index);

//! Elements of a shape (1 for rank 0); -1 when a dimension is unknown.
int64_t volume(nvinfer1::Dims const& dims);

class IoBuffers
{
public:
    struct Tensor
    {
        std::string name;
        bool isInput{false};
        nvinfer1::DataType type{nvinfer1::DataType::kFLOAT};
        nvinfer1::Dims dims{};
        std::shared_ptr<uint8_t> data; //!< host buffer, 256-byte aligned (pinned for CUDA engines)
        size_t bytes{0};
        size_t capacity{0};
        bool onDevice{false};          //!< bound to `device` (CUDA engine, kDEVICE location), else to `data`
        std::shared_ptr<void> device;  //!< device buffer (cudaMalloc) when onDevice
        size_t deviceCapacity{0};
        std::string source; //!< "random" or the --loadInputs file
        bool dataDependent{false};
    };

    IoBuffers();
    ~IoBuffers();
    IoBuffers(IoBuffers const&) = delete;
    IoBuffers& operator=(IoBuffers const&) = delete;

    //! Select the inference profile, set every input's shape (--shapes, else the profile's opt shape), allocate and
    //! fill the buffers and bind them to `context`. With `onDevice` (an engine on the CUDA backend) device tensors
    //! get device buffers, and the inputs are uploaded once on `stream` (so that --noDataTransfers runs on real
    //! data). False with a one-line `error`.
    bool setup(nvinfer1::ICudaEngine const& engine, nvinfer1::IExecutionContext& context, Options const& options,
        nvinfer1::ILogger& logger, bool onDevice, cudaStream_t stream, std::string& error);

    std::vector<Tensor> const& tensors() const { return mTensors; }

    //! True when some output has a data-dependent shape (bound through the output allocator).
    bool hasDataDependentOutputs() const;

    //! Enqueue the host-to-device copies of the device inputs on `stream` (nothing on the CPU backend).
    bool copyInputsToDevice(cudaStream_t stream, std::string& error);

    //! Enqueue the device-to-host copies of the device outputs on `stream`, at their current sizes (nothing on the
    //! CPU backend). The host buffers are valid once the stream is synchronized.
    bool copyOutputsToHost(cudaStream_t stream, std::string& error);

    //! --dumpOutput: every output's name, shape and values.
    void dumpOutputs(std::FILE* out) const;

    //! --exportOutput: [{"name", "dimensions", "values"}...] as trtexec writes it. False with `error`.
    bool exportOutputs(std::string const& path, std::string& error) const;

private:
    class OutputAllocator;
    bool resolveInputShape(nvinfer1::ICudaEngine const& engine, Options const& options, char const* name,
        nvinfer1::Dims& dims, nvinfer1::ILogger& logger, std::string& error) const;
    bool allocate(Tensor& tensor, size_t bytes, std::string& error);
    bool allocateDevice(Tensor& tensor, size_t bytes, std::string& error);
    bool loadInput(Tensor& tensor, std::string const& path, std::string& error);

    std::vector<Tensor> mTensors;
    std::unique_ptr<OutputAllocator> mAllocator;
    bool mOnDevice{false};
    std::vector<std::shared_ptr<void>> mRetired; //!< device buffers replaced by reallocateOutputAsync, freed last
};

} // namespace kilnexec
