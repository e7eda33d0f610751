// Shape binding for execution contexts: turns the input shapes and host shape-tensor values an application
// gave into one value per shape symbol, checks them against the active optimization profile, then evaluates
// the engine's ShapeGraph into concrete dimensions (and shape-tensor values) for every tensor.
#pragma once

#include "core/status.h"
#include "runtime/engineData.h"

#include <string>
#include <vector>

namespace kiln
{

//! The shape an application set for one input (setInputShape).
struct InputShape
{
    bool set{false};
    nvinfer1::Dims dims{};
};

//! Concrete shapes of every tensor for one set of symbol values.
struct EvaluatedShapes
{
    bool valid{false};
    int32_t profile{-1};
    std::vector<int64_t> symbols;             // the binding these shapes were computed from
    std::vector<int64_t> exprValues;          // one per ShapeGraph node
    std::vector<nvinfer1::Dims> dims;         // per tensor
    std::vector<std::vector<int64_t>> values; // per tensor with hasValues: its element values
    std::vector<int64_t> bytes;               // per tensor: storage bytes at these shapes
};

//! Reusable buffers of bindSymbols (so that a run with unchanged shapes allocates nothing).
struct BindScratch
{
    std::vector<int32_t> position; // per symbol: I/O position of the input that bound it, -1 when unbound
    std::vector<int32_t> index;    // per symbol: dimension or value index within that input
    std::vector<uint8_t> isValue;  // per symbol: bound by a shape value (1) or a dimension (0)
    std::vector<int64_t> values;   // host values of one shape-tensor input
};

//! Dims of I/O input `position` as far as known without the application: constants, -1 elsewhere.
nvinfer1::Dims engineDims(EngineData const& d, int32_t tensor);

//! Text of a Dims, e.g. "[2,3,224,224]".
std::string dimsText(nvinfer1::Dims const& dims);

//! Check a shape given to setInputShape for input `position` against its rank, its build-time constant
//! dimensions and the range of `profile`. The error message names the tensor, the dims and the range.
Status checkInputShape(EngineData const& d, int32_t profile, int32_t position, nvinfer1::Dims const& dims);

//! Bind every symbol from the inputs' shapes and from the host values of shape-tensor inputs (read through
//! `addresses`, one per I/O position). Inputs that are not specified yet (dynamic dims without a shape,
//! shape tensors without an address) are appended to `missing` as I/O positions; binding continues so
//! that all of them are listed. Fails for inconsistent named dimensions or values outside the profile.
Status bindSymbols(EngineData const& d, int32_t profile, std::vector<InputShape> const& shapes,
    void const* const* addresses, std::vector<int64_t>& symbols, std::vector<int32_t>& missing,
    BindScratch& scratch);

//! Evaluate all shapes for `symbols` into `out` (reusing its storage). Fails with the ShapeGraph's
//! constraint message, for negative or oversized dimensions, and when an input's evaluated shape disagrees
//! with what was given. `graph` defaults to the plan's shape graph; engines with data-dependent shapes pass
//! EngineData::boundsGraph while some data-dependent symbols still stand at their upper bounds. Byte sizes of
//! tensors in vectorized formats include the padding of the vectorized dimension.
Status evaluateShapes(EngineData const& d, int32_t profile, std::vector<int64_t> const& symbols,
    std::vector<InputShape> const& shapes, EvaluatedShapes& out, ShapeGraph const* graph = nullptr);

//! Set every data-dependent symbol of `symbols` (whose input symbols are bound) to its upper bound, evaluated in
//! binding order (a bound may depend on earlier data-dependent symbols). `values` is scratch space. Fails when a
//! bound is negative or cannot be evaluated.
Status bindUpperBounds(EngineData const& d, std::vector<int64_t>& symbols, std::vector<int64_t>& values);

//! Storage bytes of a tensor of `type` and `format` with extents `dims` (vectorized formats pad their vectorized
//! dimension to a multiple of the vector size). -1 when the size overflows.
int64_t tensorBytes(nvinfer1::DataType type, nvinfer1::TensorFormat format, nvinfer1::Dims const& dims);

} // namespace kiln
