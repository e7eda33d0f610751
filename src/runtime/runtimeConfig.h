// RuntimeConfig (IRuntimeConfig: options for creating an execution context) and SerializationConfig
// (ISerializationConfig: options for ICudaEngine::serializeWithConfig).
#pragma once

#include "NvInferRuntime.h"
#include "core/logging.h"

#include <memory>

namespace kiln
{

class RuntimeConfig final : public nvinfer1::IRuntimeConfig
{
public:
    explicit RuntimeConfig(std::shared_ptr<Logger const> logger)
        : mLoggerHolder(std::move(logger))
        , mLogger(*mLoggerHolder)
    {
    }
    ~RuntimeConfig() noexcept override = default;

    void setExecutionContextAllocationStrategy(nvinfer1::ExecutionContextAllocationStrategy strategy) noexcept override;
    nvinfer1::ExecutionContextAllocationStrategy getExecutionContextAllocationStrategy() const noexcept override;

private:
    std::shared_ptr<Logger const> mLoggerHolder;
    Logger const& mLogger;
    nvinfer1::ExecutionContextAllocationStrategy mStrategy{nvinfer1::ExecutionContextAllocationStrategy::kSTATIC};
};

class SerializationConfig final : public nvinfer1::ISerializationConfig
{
public:
    explicit SerializationConfig(std::shared_ptr<Logger const> logger)
        : mLoggerHolder(std::move(logger))
        , mLogger(*mLoggerHolder)
    {
    }
    ~SerializationConfig() noexcept override = default;

    bool setFlags(nvinfer1::SerializationFlags serializationFlags) noexcept override;
    nvinfer1::SerializationFlags getFlags() const noexcept override;
    bool clearFlag(nvinfer1::SerializationFlag serializationFlag) noexcept override;
    bool setFlag(nvinfer1::SerializationFlag serializationFlag) noexcept override;
    bool getFlag(nvinfer1::SerializationFlag serializationFlag) const noexcept override;

private:
    bool valid(nvinfer1::SerializationFlag flag, char const* api) const;

    std::shared_ptr<Logger const> mLoggerHolder;
    Logger const& mLogger;
    nvinfer1::SerializationFlags mFlags{0};
};

//! True when `strategy` is one of the declared enumerators.
bool isValidAllocationStrategy(nvinfer1::ExecutionContextAllocationStrategy strategy);

} // namespace kiln
