// The unrolled recurrence of the RNN/GRU/LSTM importers: activation parsing and one direction's time loop, built
// from matrix multiplies, gathers of gate slices and elementwise layers.
#pragma once

#include "NvInfer.h"
#include "core/status.h"
#include "onnx/importerContext.h"

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <string>
#include <vector>

namespace kiln::recurrent
{

enum class Cell
{
    kRNN,
    kGRU,
    kLSTM
};

//! Gates per cell: 1 (RNN), 3 (GRU: z, r, h), 4 (LSTM: i, o, f, c).
int32_t gateCount(Cell cell);

//! One activation function with its alpha/beta (ONNX names: Relu, Tanh, Sigmoid, Affine, LeakyRelu,
//! ThresholdedRelu, ScaledTanh, HardSigmoid, Elu, Softsign, Softplus).
struct Activation
{
    std::string name;
    float alpha{0.F};
    float beta{0.F};
};

//! The node's activations, one list of 1/2/3 per direction (defaults when the attribute is absent; alpha/beta are
//! consumed in order by the functions that take them).
StatusOr<std::vector<Activation>> parseActivations(::onnx::NodeProto const& node, Cell cell, int32_t numDirections);

struct Config
{
    Cell cell{Cell::kRNN};
    int64_t hidden{0};
    int64_t seqLen{0};
    bool hasClip{false};
    float clip{0.F};
    bool linearBeforeReset{false};
    nvinfer1::ITensor* seqLens{nullptr}; //!< INT32 [1, B, 1], or null when every step is valid
};

struct DirectionInputs
{
    bool reverse{false};
    std::vector<Activation> acts;
    nvinfer1::ITensor* w{nullptr};    //!< [1, G*H, I]
    nvinfer1::ITensor* r{nullptr};    //!< [1, G*H, H]
    nvinfer1::ITensor* bias{nullptr}; //!< [1, 2*G*H] or null
    nvinfer1::ITensor* peep{nullptr}; //!< [1, 3*H] or null
    nvinfer1::ITensor* h0{nullptr};   //!< [1, B, H] or null (zeros)
    nvinfer1::ITensor* c0{nullptr};   //!< [1, B, H] or null (zeros)
};

struct DirectionOutputs
{
    nvinfer1::ITensor* y{nullptr}; //!< [S, 1, B, H]
    nvinfer1::ITensor* h{nullptr}; //!< [1, B, H]
    nvinfer1::ITensor* c{nullptr}; //!< [1, B, H] (LSTM)
};

//! Unrolls one direction over the sequence of x ([S, B, I], float).
StatusOr<DirectionOutputs> runDirection(ImporterContext& ctx, ::onnx::NodeProto const& node, Config const& cfg,
    nvinfer1::ITensor* x, DirectionInputs const& in, std::string const& suffix);

} // namespace kiln::recurrent
