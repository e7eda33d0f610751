// RuntimeConfig and SerializationConfig implementations.
#include "runtime/runtimeConfig.h"

#include <string>

namespace kiln
{

using nvinfer1::ExecutionContextAllocationStrategy;
using nvinfer1::SerializationFlag;
using nvinfer1::SerializationFlags;

bool isValidAllocationStrategy(ExecutionContextAllocationStrategy strategy)
{
    auto const v = static_cast<int32_t>(strategy);
    return v >= 0 && v < nvinfer1::EnumMax<ExecutionContextAllocationStrategy>();
}

void RuntimeConfig::setExecutionContextAllocationStrategy(ExecutionContextAllocationStrategy strategy) noexcept
{
    if (!isValidAllocationStrategy(strategy))
    {
        mLogger.error("IRuntimeConfig::setExecutionContextAllocationStrategy: unknown strategy "
            + std::to_string(static_cast<int32_t>(strategy)) + "; the setting is unchanged");
        return;
    }
    mStrategy = strategy;
}

ExecutionContextAllocationStrategy RuntimeConfig::getExecutionContextAllocationStrategy() const noexcept
{
    return mStrategy;
}

bool SerializationConfig::valid(SerializationFlag flag, char const* api) const
{
    auto const v = static_cast<int32_t>(flag);
    if (v < 0 || v >= nvinfer1::EnumMax<SerializationFlag>())
    {
        mLogger.error(std::string("ISerializationConfig::") + api + ": unknown serialization flag " + std::to_string(v));
        return false;
    }
    return true;
}

bool SerializationConfig::setFlags(SerializationFlags serializationFlags) noexcept
{
    SerializationFlags const known = (1U << nvinfer1::EnumMax<SerializationFlag>()) - 1U;
    if ((serializationFlags & ~known) != 0)
    {
        mLogger.error("ISerializationConfig::setFlags: unknown serialization flag bits "
            + std::to_string(serializationFlags & ~known));
        return false;
    }
    mFlags = serializationFlags;
    return true;
}

SerializationFlags SerializationConfig::getFlags() const noexcept
{
    return mFlags;
}

bool SerializationConfig::clearFlag(SerializationFlag serializationFlag) noexcept
{
    if (!valid(serializationFlag, "clearFlag"))
    {
        return false;
    }
    mFlags &= ~(1U << static_cast<uint32_t>(serializationFlag));
    return true;
}

bool SerializationConfig::setFlag(SerializationFlag serializationFlag) noexcept
{
    if (!valid(serializationFlag, "setFlag"))
    {
        return false;
    }
    mFlags |= 1U << static_cast<uint32_t>(serializationFlag);
    return true;
}

bool SerializationConfig::getFlag(SerializationFlag serializationFlag) const noexcept
{
    if (!valid(serializationFlag, "getFlag"))
    {
        return false;
    }
    return (mFlags & (1U << static_cast<uint32_t>(serializationFlag))) != 0;
}

} // namespace kiln
