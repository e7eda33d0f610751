// Reformat nodes' creation checks, shared by the CPU and CUDA reformat kernels: see reformatParams.h.
#include "backends/common/reformatParams.h"

#include "backends/common/elementWiseChecks.h"
#include "core/dataType.h"

#include <string>

namespace kiln
{
using nvinfer1::TensorFormat;

Status readReformatSetup(KernelSetup const& setup, FormatLayout& in, FormatLayout& out)
{
    KILN_RETURN_IF_ERROR(ew::checkIoCounts(setup, 1, 1, "Reformat"));
    std::string const name = "reformat node '" + setup.node->name + "'";
    if (!ew::isKernelType(setup.inputTypes[0]) || !ew::isKernelType(setup.outputTypes[0]))
    {
        return invalidArgument(name + ": cannot convert " + dataTypeName(setup.inputTypes[0]) + " to "
            + dataTypeName(setup.outputTypes[0]));
    }
    Attributes const& attrs = setup.node->attrs;
    auto const inFormat = static_cast<TensorFormat>(attrs.getInt("inFormat", 0));
    auto const outFormat = static_cast<TensorFormat>(attrs.getInt("outFormat", 0));
    if (!formatLayout(inFormat, setup.inputRanks[0], in) || !formatLayout(outFormat, setup.outputRanks[0], out))
    {
        return invalidArgument(name + ": cannot convert format " + formatName(inFormat) + " to "
            + formatName(outFormat) + " for a tensor of rank " + std::to_string(setup.inputRanks[0]));
    }
    return Status::ok();
}

} // namespace kiln
