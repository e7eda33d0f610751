// TensorBindings: the one address table of an execution context. It holds the I/O addresses the application set
// (setTensorAddress), the address of every tensor for the run (placed by bind(): application buffers, the activation
// arena, constant weights, context buffers for data-dependent shapes and folded values) and the per-node views the
// kernels receive, made from that table. A tensor's address lives in one place: the table; views are refreshed from
// it whenever the binding changes (its stamp grows), and nothing else keeps copies of addresses.
#pragma once

#include "backends/kernel.h"
#include "runtime/deviceWeights.h"
#include "runtime/shapeBinding.h"

#include <cstdint>
#include <vector>

namespace kiln
{

class RunMemory;
class ShapeState;

class TensorBindings
{
public:
    explicit TensorBindings(EngineData const& data);

    // The application's I/O addresses (per I/O position).
    void* io(int32_t position) const { return mIo[static_cast<size_t>(position)]; }
    void* const* ioTable() const { return mIo.data(); }
    void setIo(int32_t position, void* address);
    //! Something else the I/O binding depends on changed (an output allocator was set): the next run binds again.
    void ioChanged() { ++mIoVersion; }

    // The run's table (per tensor).
    void* data(size_t tensor) const { return mTensors[tensor]; }
    std::vector<void*> const& table() const { return mTensors; }
    //! Move tensor `tensor` outside bind() (folded value tensors): the stamp grows when the address changes.
    void place(size_t tensor, void* address);
    //! Grows with every new binding and every moved tensor: views and captured graphs made at another stamp are stale.
    uint64_t stamp() const { return mStamp; }

    //! Place every tensor for a run whose I/O addresses are `io` (the application's table, or executeV2's bindings).
    //! Nothing changes when the shapes, profile, activation memory and I/O addresses are those of the last binding.
    //! Errors start with "IExecutionContext::<api>: " and name the tensor.
    Status bind(char const* api, void* const* io, ShapeState const& shapes, RunMemory& memory,
        DeviceWeights const* weights, cudaStream_t stream);
    //! Tensors whose values each run writes itself (constant outputs, folded values of tensors without a producer).
    std::vector<size_t> const& materialized() const { return mMaterialized; }

    // Views of the tensors for the kernels (per node).
    //! View of tensor `t` at `shapes` (empty for an absent optional input).
    TensorView view(int32_t t, EvaluatedShapes const& shapes) const;
    //! Make node `node`'s views at `shapes`; with `hideUnknown`, output extents that depend on a size tensor the node
    //! itself (or a later one) writes are -1, and the views are marked current for this stamp (the views a run uses);
    //! without, they must be made again before the node runs (a workspace query).
    void makeViews(size_t node, EvaluatedShapes const& shapes, bool hideUnknown);
    //! Node `node`'s views were made at the current stamp.
    bool viewsCurrent(size_t node) const { return mNodeStamp[node] == mStamp; }
    std::vector<TensorView>& inputs(size_t node) { return mNodeInputs[node]; }
    std::vector<TensorView>& outputs(size_t node) { return mNodeOutputs[node]; }

private:
    static constexpr uint64_t kNONE = ~uint64_t{0};

    EngineData const& mData;
    std::vector<void*> mIo;      // per I/O position: the application's address
    std::vector<void*> mTensors; // per tensor: the address for the run
    std::vector<size_t> mMaterialized;
    uint64_t mStamp{0};
    uint64_t mIoVersion{0}; // grows when an application address or an output allocator changes

    // The last binding, kept while shapes, profile, memory and I/O addresses stand.
    uint64_t mBoundGeneration{kNONE};
    uint64_t mBoundIoVersion{kNONE};
    bool mBoundExternal{false}; // bound from executeV2's bindings
    uint8_t const* mBoundBase{nullptr};
    int64_t mBoundSize{0};
    int32_t mBoundProfile{-1};

    std::vector<uint64_t> mNodeStamp; // per node: the stamp its views were made at
    std::vector<std::vector<TensorView>> mNodeInputs;
    std::vector<std::vector<TensorView>> mNodeOutputs;
};

} // namespace kiln
