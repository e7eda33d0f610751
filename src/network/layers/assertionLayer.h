// AssertionLayer: nvinfer1::IAssertionLayer (fails the build or the run when its BOOL input has a false element).
// Attributes: "message" (string, the user's message). Inputs: 0 the BOOL condition (a shape tensor in TensorRT;
// Kiln accepts any BOOL tensor). No outputs: the builder keeps the layer although it feeds no network output.
// When the condition's values are known symbolically (shape tensors), the check becomes a shape constraint that
// fails the build (if already false) or the shape check at run time; otherwise a CPU kernel checks the data.
#pragma once

#include "network/layer.h"

#include <string>

namespace kiln
{

class AssertionLayer final : public LayerBase<nvinfer1::IAssertionLayer>
{
public:
    AssertionLayer(NetworkDefinition& network, Tensor* condition, std::string message);

    void setMessage(char const* message) noexcept override;
    char const* getMessage() const noexcept override;

private:
    std::string mMessage; // mirrors attribute "message"; getMessage returns its storage
};

//! The failure text of an assertion node: "assertion '<name>' failed: <message>".
std::string assertionFailureMessage(std::string const& layerName, std::string const& message);

} // namespace kiln
