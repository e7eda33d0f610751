// ShapeState (see shapeState.h): input shapes, symbol binding and evaluation on demand, the shape generation, and the
// shapes of a run with data-dependent dimensions.
#include "runtime/shapeState.h"

#include "core/dataType.h"
#include "core/quoting.h"

#include <cstring>

namespace kiln
{

using nvinfer1::DataType;
using nvinfer1::Dims;

ShapeState::ShapeState(EngineData const& data)
    : mData(data)
    , mInputs(static_cast<size_t>(data.nbInputs))
    , mLastRunDims(data.plan.tensors.size())
{
}

void ShapeState::selectProfile(int32_t profile)
{
    mProfile = profile;
    for (InputShape& s : mInputs)
    {
        s = InputShape{};
    }
    mNow.valid = false;
}

Status ShapeState::setInputShape(int32_t position, Dims const& dims)
{
    KILN_RETURN_IF_ERROR(checkInputShape(mData, mProfile, position, dims));
    InputShape& shape = mInputs[static_cast<size_t>(position)];
    Dims clean{};
    clean.nbDims = dims.nbDims;
    std::memcpy(clean.d, dims.d, sizeof(int64_t) * static_cast<size_t>(dims.nbDims));
    if (!shape.set || std::memcmp(shape.dims.d, clean.d, sizeof(clean.d)) != 0)
    {
        mNow.valid = false;
    }
    shape.set = true;
    shape.dims = clean;
    return Status::ok();
}

Status ShapeState::prepare(void const* const* io) const
{
    mMissing.clear();
    KILN_RETURN_IF_ERROR(bindSymbols(mData, mProfile, mInputs, io, mSymbols, mMissing, mBindScratch));
    if (!mMissing.empty())
    {
        return Status::ok();
    }
    if (mNow.valid && mNow.profile == mProfile && mNow.symbols == mSymbols)
    {
        return Status::ok();
    }
    ++mGeneration; // kernels reshape before their next run
    if (!mData.hasDataDependentShapes)
    {
        return evaluateShapes(mData, mProfile, mSymbols, mInputs, mNow);
    }
    // Data-dependent symbols stand at their upper bounds until a run reads their size tensors.
    mBoundSymbols = mSymbols;
    KILN_RETURN_IF_ERROR(bindUpperBounds(mData, mBoundSymbols, mScratchValues));
    KILN_RETURN_IF_ERROR(evaluateShapes(mData, mProfile, mBoundSymbols, mInputs, mNow, &mData.boundsGraph));
    mNow.symbols = mSymbols; // the cache key is the input binding
    return Status::ok();
}

Status ShapeState::missingInputsError(char const* api) const
{
    std::string names;
    for (int32_t pos : mMissing)
    {
        PlanTensor const& t = mData.ioTensor(pos);
        bool const needsShape = pos < mData.nbInputs && !mInputs[static_cast<size_t>(pos)].set;
        names += (names.empty() ? "" : ", ") + singleQuoted(t.name)
            + (needsShape && !t.hostShapeTensor ? " (call setInputShape)" : " (set its host address with setTensorAddress)");
    }
    return invalidState(std::string("IExecutionContext::") + api + ": input shapes are not fully specified: " + names);
}

void ShapeState::writeShapeOutputs(void* const* io) const
{
    for (int32_t pos = mData.nbInputs; pos < mData.nbIo(); ++pos)
    {
        PlanTensor const& t = mData.ioTensor(pos);
        void* address = io[pos];
        if (!t.hasValues || !t.hostShapeTensor || address == nullptr)
        {
            continue;
        }
        auto const& values = mNow.values[static_cast<size_t>(mData.plan.ioTensors[static_cast<size_t>(pos)])];
        for (size_t i = 0; i < values.size(); ++i)
        {
            if (isIntegerType(t.type) || t.type == DataType::kBOOL)
            {
                storeInt(address, t.type, static_cast<int64_t>(i), values[i]);
            }
            else
            {
                storeElement(address, t.type, static_cast<int64_t>(i), floatValue(values[i])); // bits of a double
            }
        }
    }
}

Dims ShapeState::reportedShape(int32_t tensor) const
{
    auto const t = static_cast<size_t>(tensor);
    Dims dims = mNow.dims[t];
    if (!mData.tensorDependsOnData[t])
    {
        return dims;
    }
    if (mLastRunProfile == mProfile && !mLastRunKey.empty() && mLastRunKey == mNow.symbols)
    {
        return mLastRunDims[t];
    }
    auto const& exprs = mData.plan.tensors[t].dims;
    for (size_t i = 0; i < exprs.size(); ++i)
    {
        if (mData.exprLastBinder[static_cast<size_t>(exprs[i])] >= 0)
        {
            dims.d[i] = -1;
        }
    }
    return dims;
}

void ShapeState::beginRun()
{
    if (mRunBound)
    {
        ++mGeneration; // back from the last run's data-dependent shapes to the upper bounds
    }
    mRunBound = false;
    mRunSymbols = mData.hasDataDependentShapes ? mBoundSymbols : mSymbols;
}

Status ShapeState::evaluateRun()
{
    KILN_RETURN_IF_ERROR(evaluateShapes(mData, mProfile, mRunSymbols, mInputs, mRunShapes, &mData.boundsGraph));
    mRunBound = true;
    ++mGeneration;
    return Status::ok();
}

Status ShapeState::checkRunConstraints() const
{
    return mData.plan.shapes.evaluate(mRunSymbols, mScratchValues);
}

void ShapeState::recordRun()
{
    EvaluatedShapes const& finalShapes = runShapes();
    for (size_t t = 0; t < mLastRunDims.size(); ++t)
    {
        mLastRunDims[t] = finalShapes.dims[t];
    }
    mLastRunKey = mNow.symbols;
    mLastRunProfile = mProfile;
}

} // namespace kiln
