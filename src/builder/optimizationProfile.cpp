// OptimizationProfile: setters validate what can be checked without the network; the builder checks the rest.
#include "builder/optimizationProfile.h"

namespace kiln
{
using nvinfer1::Dims;
using nvinfer1::OptProfileSelector;

namespace
{
bool validSelector(OptProfileSelector s)
{
    int32_t const v = static_cast<int32_t>(s);
    return v >= 0 && v <= 2;
}
} // namespace

bool OptimizationProfile::setDimensions(char const* inputName, OptProfileSelector select, Dims const& dims) noexcept
{
    try
    {
        if (inputName == nullptr || !validSelector(select))
        {
            mLogger.error("IOptimizationProfile::setDimensions: null input name or invalid selector");
            return false;
        }
        if (dims.nbDims < 0 || dims.nbDims > Dims::MAX_DIMS)
        {
            mLogger.error(std::string("IOptimizationProfile::setDimensions('") + inputName + "'): invalid rank "
                + std::to_string(dims.nbDims));
            return false;
        }
        for (int32_t i = 0; i < dims.nbDims; ++i)
        {
            if (dims.d[i] < 0)
            {
                mLogger.error(std::string("IOptimizationProfile::setDimensions('") + inputName + "'): dimension "
                    + std::to_string(i) + " is " + std::to_string(dims.d[i]) + "; profile dimensions must be >= 0");
                return false;
            }
        }
        auto& e = mEntries[inputName];
        int32_t const s = static_cast<int32_t>(select);
        e.dims[s] = dims;
        e.dimsSet[s] = true;
        return true;
    }
    catch (...)
    {
        return false;
    }
}

Dims OptimizationProfile::getDimensions(char const* inputName, OptProfileSelector select) const noexcept
{
    Dims d{};
    d.nbDims = -1;
    if (inputName == nullptr || !validSelector(select))
    {
        return d;
    }
    auto it = mEntries.find(inputName);
    if (it == mEntries.end() || !it->second.dimsSet[static_cast<int32_t>(select)])
    {
        return d;
    }
    return it->second.dims[static_cast<int32_t>(select)];
}

bool OptimizationProfile::setValues(
    char const* api, char const* inputName, OptProfileSelector select, std::vector<int64_t> values)
{
    if (inputName == nullptr || !validSelector(select))
    {
        mLogger.error(std::string("IOptimizationProfile::") + api + ": null input name or invalid selector");
        return false;
    }
    auto& e = mEntries[inputName];
    int32_t const s = static_cast<int32_t>(select);
    for (int32_t other = 0; other < 3; ++other)
    {
        if (other != s && e.valuesSet[other] && e.values[other].size() != values.size())
        {
            mLogger.error(std::string("IOptimizationProfile::") + api + "('" + inputName + "'): " + std::to_string(values.size())
                + " values, but another selector has " + std::to_string(e.values[other].size()));
            return false;
        }
    }
    e.values[s] = std::move(values);
    e.valuesSet[s] = true;
    return true;
}

bool OptimizationProfile::setShapeValues(
    char const* inputName, OptProfileSelector select, int32_t const* values, int32_t nbValues) noexcept
{
    try
    {
        if (nbValues < 0 || (nbValues > 0 && values == nullptr))
        {
            mLogger.error("IOptimizationProfile::setShapeValues: invalid values");
            return false;
        }
        return setValues("setShapeValues", inputName, select, std::vector<int64_t>(values, values + nbValues));
    }
    catch (...)
    {
        return false;
    }
}

bool OptimizationProfile::setShapeValuesV2(
    char const* inputName, OptProfileSelector select, int64_t const* values, int32_t nbValues) noexcept
{
    try
    {
        if (nbValues < 0 || (nbValues > 0 && values == nullptr))
        {
            mLogger.error("IOptimizationProfile::setShapeValuesV2: invalid values");
            return false;
        }
        return setValues("setShapeValuesV2", inputName, select, std::vector<int64_t>(values, values + nbValues));
    }
    catch (...)
    {
        return false;
    }
}

int32_t OptimizationProfile::getNbShapeValues(char const* inputName) const noexcept
{
    if (inputName == nullptr)
    {
        return -1;
    }
    auto it = mEntries.find(inputName);
    if (it == mEntries.end())
    {
        return -1;
    }
    for (int32_t s = 0; s < 3; ++s)
    {
        if (it->second.valuesSet[s])
        {
            return static_cast<int32_t>(it->second.values[s].size());
        }
    }
    return -1;
}

int32_t const* OptimizationProfile::getShapeValues(char const* inputName, OptProfileSelector select) const noexcept
{
    try
    {
        int64_t const* v = getShapeValuesV2(inputName, select);
        if (v == nullptr)
        {
            return nullptr;
        }
        auto const& e = mEntries.at(inputName);
        int32_t const s = static_cast<int32_t>(select);
        e.values32[s].assign(e.values[s].begin(), e.values[s].end());
        return e.values32[s].data();
    }
    catch (...)
    {
        return nullptr;
    }
}

int64_t const* OptimizationProfile::getShapeValuesV2(char const* inputName, OptProfileSelector select) const noexcept
{
    if (inputName == nullptr || !validSelector(select))
    {
        return nullptr;
    }
    auto it = mEntries.find(inputName);
    if (it == mEntries.end() || !it->second.valuesSet[static_cast<int32_t>(select)])
    {
        return nullptr;
    }
    return it->second.values[static_cast<int32_t>(select)].data();
}

bool OptimizationProfile::setExtraMemoryTarget(float target) noexcept
{
    if (!(target >= 0.0F))
    {
        return false;
    }
    mExtraMemoryTarget = target;
    return true;
}

float OptimizationProfile::getExtraMemoryTarget() const noexcept
{
    return mExtraMemoryTarget;
}

bool OptimizationProfile::isValid() const noexcept
{
    for (auto const& [name, e] : mEntries)
    {
        if (e.dimsSet[0] || e.dimsSet[1] || e.dimsSet[2])
        {
            if (!(e.dimsSet[0] && e.dimsSet[1] && e.dimsSet[2]))
            {
                return false;
            }
            for (int32_t s = 1; s < 3; ++s)
            {
                if (e.dims[s].nbDims != e.dims[0].nbDims)
                {
                    return false;
                }
            }
            for (int32_t i = 0; i < e.dims[0].nbDims; ++i)
            {
                if (e.dims[0].d[i] > e.dims[1].d[i] || e.dims[1].d[i] > e.dims[2].d[i])
                {
                    return false;
                }
            }
        }
        if (e.valuesSet[0] || e.valuesSet[1] || e.valuesSet[2])
        {
            if (!(e.valuesSet[0] && e.valuesSet[1] && e.valuesSet[2]))
            {
                return false;
            }
            for (size_t i = 0; i < e.values[0].size(); ++i)
            {
                if (e.values[0][i] > e.values[1][i] || e.values[1][i] > e.values[2][i])
                {
                    return false;
                }
            }
        }
    }
    return true;
}

} // namespace kiln
