// The if-conditional boundary layers: ConditionLayer (IConditionLayer; input 0: the 0-D BOOL condition, no
// outputs), ConditionalInputLayer (IIfConditionalInputLayer; an identity copy of its input) and
// ConditionalOutputLayer (IIfConditionalOutputLayer; input 0 from the true branch, input 1 from the false
// branch). The output layer also holds the condition in a hidden input slot 2 (not reported by getNbInputs) so
// that the analysis orders it after the condition and the kernel can pick the taken input.
// Attribute "conditional": the conditional's name (for messages).
#pragma once

#include "network/layer.h"

namespace kiln
{
class IfConditional;

class ConditionLayer final : public LayerBase<nvinfer1::IConditionLayer>
{
public:
    ConditionLayer(NetworkDefinition& network, IfConditional& conditional, Tensor* condition);
    nvinfer1::IIfConditional* getConditional() const noexcept override;

private:
    IfConditional& mConditional;
};

class ConditionalInputLayer final : public LayerBase<nvinfer1::IIfConditionalInputLayer>
{
public:
    ConditionalInputLayer(NetworkDefinition& network, IfConditional& conditional, Tensor* input);
    nvinfer1::IIfConditional* getConditional() const noexcept override;

private:
    IfConditional& mConditional;
};

class ConditionalOutputLayer final : public LayerBase<nvinfer1::IIfConditionalOutputLayer>
{
public:
    ConditionalOutputLayer(
        NetworkDefinition& network, IfConditional& conditional, Tensor* trueOutput, Tensor* falseOutput, Tensor* cond);
    nvinfer1::IIfConditional* getConditional() const noexcept override;
    int32_t getNbInputs() const noexcept override { return 2; }
    nvinfer1::ITensor* getInput(int32_t index) const noexcept override
    {
        return index < 2 ? inputImpl(index) : nullptr;
    }
    //! Point the hidden slot 2 at the conditional's (new) condition.
    void bindCondition(Tensor* cond);

private:
    IfConditional& mConditional;
};

} // namespace kiln

namespace kiln
{
struct TensorInfo;
//! The condition's value when it is known at build time (a constant or a shape value), else -1.
int32_t buildTimeCondition(TensorInfo const& condition);
} // namespace kiln
