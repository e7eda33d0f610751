// Carving one kernel's device workspace into 256-byte aligned parts: the same sequence of add() calls sizes the
// workspace in workspaceSize() and finds the parts' offsets in enqueue().
#pragma once

#include <cstdint>

namespace kiln::cuda
{

class WorkspaceLayout
{
public:
    //! Reserve `bytes` and return the part's offset from the workspace start.
    int64_t add(int64_t bytes)
    {
        int64_t const offset = mTotal;
        mTotal += (bytes + kALIGN - 1) / kALIGN * kALIGN;
        return offset;
    }
    int64_t total() const { return mTotal; }
    //! The part at `offset` of `workspace`.
    template <typename T>
    static T* at(void* workspace, int64_t offset)
    {
        return reinterpret_cast<T*>(static_cast<uint8_t*>(workspace) + offset);
    }

private:
    static constexpr int64_t kALIGN = 256;
    int64_t mTotal{0};
};

} // namespace kiln::cuda
