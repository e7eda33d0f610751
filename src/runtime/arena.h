// ActivationMemory: the activation arena of one execution context — either owned (allocated by Kiln, 256-byte
// aligned host memory: the CPU backend's "device memory" is host memory) or supplied by the application
// (setDeviceMemory/setDeviceMemoryV2 with ExecutionContextAllocationStrategy::kUSER_MANAGED).
#pragma once

#include "core/status.h"

#include <cstdint>

namespace kiln
{

class ActivationMemory
{
public:
    //! Alignment of every arena Kiln allocates, and required of application-supplied memory.
    static constexpr int64_t kALIGNMENT = 256;

    ActivationMemory() = default;
    ~ActivationMemory() { release(); }
    ActivationMemory(ActivationMemory const&) = delete;
    ActivationMemory& operator=(ActivationMemory const&) = delete;

    //! Own at least `size` bytes. Keeps the current allocation when it is owned and large enough unless
    //! `exact` asks to shrink it to `size`.
    Status allocate(int64_t size, bool exact);
    //! Use application memory; `size` -1 means unknown (deprecated setDeviceMemory). Frees owned memory.
    void useExternal(void* memory, int64_t size);
    void release();

    bool present() const { return mPresent; }
    uint8_t* base() const { return mBase; }
    //! Usable bytes; -1 when application memory of unknown size.
    int64_t size() const { return mSize; }
    bool owned() const { return mOwned; }

private:
    uint8_t* mBase{nullptr};
    int64_t mSize{0};
    bool mOwned{false};
    bool mPresent{false};
};

} // namespace kiln
