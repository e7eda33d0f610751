// HostMemory: Kiln's IHostMemory, a library-owned byte buffer (serialized engines, timing caches). The builder
// and ICudaEngine::serialize() hand these to applications, which delete them.
#pragma once

#include "NvInferRuntime.h"

#include <cstdint>
#include <vector>

namespace kiln
{

class HostMemory final : public nvinfer1::IHostMemory
{
public:
    explicit HostMemory(std::vector<uint8_t> bytes, nvinfer1::DataType type = nvinfer1::DataType::kUINT8)
        : mBytes(std::move(bytes))
        , mType(type)
    {
    }
    ~HostMemory() noexcept override = default;

    //! Start of the buffer; nullptr when it is empty.
    void* data() const noexcept override;
    //! Size in bytes.
    std::size_t size() const noexcept override;
    //! kUINT8 unless another element type was given at construction.
    nvinfer1::DataType type() const noexcept override;

    std::vector<uint8_t> const& bytes() const { return mBytes; }

private:
    mutable std::vector<uint8_t> mBytes; // mutable: IHostMemory::data() is const but hands out a writable pointer
    nvinfer1::DataType mType;
};

} // namespace kiln
