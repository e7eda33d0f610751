// Loop: Kiln's nvinfer1::ILoop, the builder object of a recurrent subgraph. It is owned by the network and
// creates the loop boundary layers (recurrence, trip limit, iterator, loop output), which are ordinary layers
// of the network that remember their loop. The body is every layer on a data path from the loop's entries
// (recurrence and iterator outputs) to its exits (next values, loop output values, while conditions); see
// loopRegions.h for that analysis and the checks.
#pragma once

#include "NvInfer.h"

#include <string>
#include <vector>

namespace kiln
{
class Layer;
class NetworkDefinition;

class Loop final : public nvinfer1::ILoop
{
public:
    Loop(NetworkDefinition& network, int32_t index);
    ~Loop() noexcept override = default;

    nvinfer1::IRecurrenceLayer* addRecurrence(nvinfer1::ITensor& initialValue) noexcept override;
    nvinfer1::ITripLimitLayer* addTripLimit(nvinfer1::ITensor& tensor, nvinfer1::TripLimit limit) noexcept override;
    nvinfer1::IIteratorLayer* addIterator(nvinfer1::ITensor& tensor, int32_t axis, bool reverse) noexcept override;
    nvinfer1::ILoopOutputLayer* addLoopOutput(
        nvinfer1::ITensor& tensor, nvinfer1::LoopOutput outputKind, int32_t axis) noexcept override;
    void setName(char const* name) noexcept override;
    char const* getName() const noexcept override;

    NetworkDefinition& network() const { return mNetwork; }
    std::string const& name() const { return mName; }
    //! Every boundary layer created by this loop, in creation order (owned by the network).
    std::vector<Layer*> const& boundaryLayers() const { return mLayers; }
    //! "loop 'name'" for messages.
    std::string label() const { return "loop '" + mName + "'"; }

private:
    template <typename L>
    L* keep(L* layer);

    NetworkDefinition& mNetwork;
    std::string mName;
    std::vector<Layer*> mLayers;
};

//! The loop a boundary layer belongs to, or nullptr for any other layer.
Loop* loopOf(Layer const& layer);

} // namespace kiln
