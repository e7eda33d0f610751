// OptimizationProfile: Kiln's IOptimizationProfile — per-input kMIN/kOPT/kMAX dimensions and shape values.
#pragma once

#include "NvInferRuntime.h"
#include "core/logging.h"

#include <array>
#include <map>
#include <string>
#include <vector>

namespace kiln
{

struct ProfileEntry
{
    bool dimsSet[3]{false, false, false};
    nvinfer1::Dims dims[3]{};
    bool valuesSet[3]{false, false, false};
    std::vector<int64_t> values[3];
    mutable std::vector<int32_t> values32[3]; // backing store for the deprecated int32 getter
};

class OptimizationProfile final : public nvinfer1::IOptimizationProfile
{
public:
    explicit OptimizationProfile(Logger& logger)
        : mLogger(logger)
    {
    }
    ~OptimizationProfile() noexcept override = default;

    bool setDimensions(char const* inputName, nvinfer1::OptProfileSelector select, nvinfer1::Dims const& dims) noexcept override;
    nvinfer1::Dims getDimensions(char const* inputName, nvinfer1::OptProfileSelector select) const noexcept override;
    bool setShapeValues(char const* inputName, nvinfer1::OptProfileSelector select, int32_t const* values,
        int32_t nbValues) noexcept override;
    int32_t getNbShapeValues(char const* inputName) const noexcept override;
    int32_t const* getShapeValues(char const* inputName, nvinfer1::OptProfileSelector select) const noexcept override;
    bool setExtraMemoryTarget(float target) noexcept override;
    float getExtraMemoryTarget() const noexcept override;
    bool isValid() const noexcept override;
    bool setShapeValuesV2(char const* inputName, nvinfer1::OptProfileSelector select, int64_t const* values,
        int32_t nbValues) noexcept override;
    int64_t const* getShapeValuesV2(char const* inputName, nvinfer1::OptProfileSelector select) const noexcept override;

    std::map<std::string, ProfileEntry> const& entries() const { return mEntries; }

private:
    bool setValues(char const* api, char const* inputName, nvinfer1::OptProfileSelector select,
        std::vector<int64_t> values);

    Logger& mLogger;
    std::map<std::string, ProfileEntry> mEntries;
    float mExtraMemoryTarget{1.0F};
};

} // namespace kiln
