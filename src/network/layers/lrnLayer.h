// LRNLayer: nvinfer1::ILRNLayer (local response normalization across channels, axis rank - 3).
// Attributes: "window" (int, odd in [1, 15]), "alpha" (float), "beta" (float), "k" (float).
// Inputs: 0 data (rank >= 3).
#pragma once

#include "network/layer.h"

#include <string>

namespace kiln
{

class LRNLayer final : public LayerBase<nvinfer1::ILRNLayer>
{
public:
    LRNLayer(NetworkDefinition& network, Tensor* input, int64_t window, float alpha, float beta, float k);

    void setWindowSize(int64_t windowSize) noexcept override;
    int64_t getWindowSize() const noexcept override;
    void setAlpha(float alpha) noexcept override;
    float getAlpha() const noexcept override;
    void setBeta(float beta) noexcept override;
    float getBeta() const noexcept override;
    void setK(float k) noexcept override;
    float getK() const noexcept override;

    // TensorRT's documented parameter ranges.
    static constexpr int64_t kMAX_WINDOW = 15;
    static constexpr double kMAX_ALPHA = 1e20;
    static constexpr double kMIN_BETA = 0.01;
    static constexpr double kMAX_BETA = 1e5;
    static constexpr double kMIN_K = 1e-5;
    static constexpr double kMAX_K = 1e10;

private:
    //! Reports `why` (naming the setter and the layer) and returns false when it is not empty; else marks a change.
    bool accept(char const* method, std::string const& why);
};

} // namespace kiln
