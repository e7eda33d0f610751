// ShapeState: the shape side of one execution context. It holds the selected optimization profile, the input shapes
// the application set, the symbol values bound from them (and from host shape-tensor values), the shapes of every
// tensor evaluated from those symbols, and the shape generation: a counter that grows whenever the evaluated shapes
// change, so that kernels reshape (and automatic CUDA graphs re-capture) only then. During a run it also holds the
// run's own shapes once data-dependent symbols are bound by size tensors, and after it the extents the run produced.
// The algorithms (binding, evaluation) are the free functions of shapeBinding.h.
#pragma once

#include "runtime/shapeBinding.h"

#include <cstdint>
#include <vector>

namespace kiln
{

class ShapeState
{
public:
    //! Generation no kernel ever has (never reshaped, or reshaped for a loop iteration only).
    static constexpr uint64_t kNO_GENERATION = ~uint64_t{0};

    explicit ShapeState(EngineData const& data);

    int32_t profile() const { return mProfile; }
    //! Select `profile`: as in TensorRT, the input shapes set so far are forgotten.
    void selectProfile(int32_t profile);

    //! Check and store the shape of input `position` (setInputShape); errors name the tensor and the range.
    Status setInputShape(int32_t position, nvinfer1::Dims const& dims);
    //! The shape set for input `position` (`set` false when none was).
    InputShape const& input(int32_t position) const { return mInputs[static_cast<size_t>(position)]; }

    //! Bind the symbols from the input shapes and the host values of shape tensors at `io` (one address per I/O
    //! position) and evaluate every tensor's shape when the binding changed (the generation then grows). Inputs that
    //! are not specified yet are listed in missing() and leave the shapes as they were.
    Status prepare(void const* const* io) const;
    //! I/O positions of the inputs the last prepare() found unspecified.
    std::vector<int32_t> const& missing() const { return mMissing; }
    //! Error naming the inputs in missing(), for `api`.
    Status missingInputsError(char const* api) const;
    //! Shapes for the current inputs (data-dependent dimensions at their upper bounds); valid after a prepare()
    //! that found nothing missing.
    EvaluatedShapes const& current() const { return mNow; }
    uint64_t generation() const { return mGeneration; }

    //! Write the values of host shape-tensor outputs (known from shape inference) to their addresses in `io`.
    void writeShapeOutputs(void* const* io) const;
    //! Shape of tensor `tensor` as getTensorShape reports it: -1 for extents known only after a run, the last run's
    //! extents when the inputs did not change since.
    nvinfer1::Dims reportedShape(int32_t tensor) const;

    // The run in progress.
    //! Start a run with the current shapes (data-dependent symbols at their upper bounds).
    void beginRun();
    //! Shapes of the run in progress (the upper-bound shapes until a size tensor is read).
    EvaluatedShapes const& runShapes() const { return mRunBound ? mRunShapes : mNow; }
    //! Symbol values of the run in progress.
    std::vector<int64_t> const& runSymbols() const { return mRunSymbols; }
    //! Upper bound of data-dependent symbol `symbol` for the current inputs.
    int64_t upperBound(size_t symbol) const { return mBoundSymbols[symbol]; }
    //! A size tensor gave data-dependent symbol `symbol` its value for this run.
    void bindRunSymbol(size_t symbol, int64_t value) { mRunSymbols[symbol] = value; }
    //! Evaluate the run's shapes for the symbols bound so far (the generation grows).
    Status evaluateRun();
    //! After the run: every constraint, including those on data-dependent dimensions, must hold for the real sizes.
    Status checkRunConstraints() const;
    //! After a successful run: remember the extents it produced (reportedShape).
    void recordRun();

private:
    EngineData const& mData;
    int32_t mProfile{0};
    std::vector<InputShape> mInputs; // per input position

    // Mutable: const queries such as getTensorShape evaluate on demand.
    mutable uint64_t mGeneration{0};
    mutable EvaluatedShapes mNow;
    mutable std::vector<int64_t> mSymbols;
    mutable std::vector<int32_t> mMissing;
    mutable BindScratch mBindScratch;
    mutable std::vector<int64_t> mBoundSymbols; // mSymbols with data-dependent symbols at their upper bounds
    mutable std::vector<int64_t> mScratchValues;

    // Data-dependent shapes.
    std::vector<int64_t> mRunSymbols;         // during a run: symbols bound so far
    EvaluatedShapes mRunShapes;               // during a run: shapes once a size tensor was read
    bool mRunBound{false};                    // mRunShapes is current
    std::vector<nvinfer1::Dims> mLastRunDims; // per tensor: extents after the last successful run
    std::vector<int64_t> mLastRunKey;         // input binding of that run (empty: none)
    int32_t mLastRunProfile{-1};
};

} // namespace kiln
