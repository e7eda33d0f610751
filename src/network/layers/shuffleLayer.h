// ShuffleLayer: IShuffleLayer (transpose, reshape, transpose). Attributes:
//   "first_transpose"     ints[8]  permutation before the reshape: intermediate dim i = input dim order[i]
//   "second_transpose"    ints[8]  permutation after the reshape: output dim i = reshaped dim order[i]
//   "reshape"             ints     static reshape dimensions (absent: no reshape, or input 1 supplies them)
//   "zero_is_placeholder" int      1: a 0 in the reshape dimensions copies the input extent; 0: literal 0
// Inputs: 0 data (any type); 1 (optional) 1-D INT32/INT64 shape tensor with the reshape dimensions.
#pragma once

#include "network/layer.h"

namespace kiln
{

class ShuffleLayer final : public LayerBase<nvinfer1::IShuffleLayer>
{
public:
    ShuffleLayer(NetworkDefinition& network, Tensor* input);

    void setFirstTranspose(nvinfer1::Permutation permutation) noexcept override;
    nvinfer1::Permutation getFirstTranspose() const noexcept override;
    void setReshapeDimensions(nvinfer1::Dims const& dimensions) noexcept override;
    nvinfer1::Dims getReshapeDimensions() const noexcept override;
    void setSecondTranspose(nvinfer1::Permutation permutation) noexcept override;
    nvinfer1::Permutation getSecondTranspose() const noexcept override;
    void setZeroIsPlaceholder(bool zeroIsPlaceholder) noexcept override;
    bool getZeroIsPlaceholder() const noexcept override;
    void setInput(int32_t index, nvinfer1::ITensor& tensor) noexcept override;

private:
    bool dynamicReshape() const;
    void setPermutation(char const* key, nvinfer1::Permutation const& permutation);
    nvinfer1::Permutation getPermutation(char const* key) const;
};

} // namespace kiln
