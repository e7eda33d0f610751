// Backend-neutral host-side logic of IShuffleLayer kernels: attribute reading and run geometry shared by the CPU
// kernel (backends/cpu/kernels/shuffle.cpp) and the CUDA kernel (backends/cuda/kernels/shuffle.cu).
#include "backends/common/shuffleParams.h"
#include "core/dataType.h"

#include <string>

namespace kiln
{

namespace
{

StatusOr<std::vector<int32_t>> readPermutation(std::vector<int64_t> const& order, int32_t rank, char const* what)
{
    if (static_cast<int32_t>(order.size()) < rank)
    {
        return invalidArgument(std::string("shuffle: ") + what + " is shorter than the rank");
    }
    std::vector<int32_t> perm(static_cast<size_t>(rank));
    std::vector<bool> seen(static_cast<size_t>(rank), false);
    for (int32_t i = 0; i < rank; ++i)
    {
        int64_t const p = order[static_cast<size_t>(i)];
        if (p < 0 || p >= rank || seen[static_cast<size_t>(p)])
        {
            return invalidArgument(std::string("shuffle: ") + what + " is not a permutation");
        }
        seen[static_cast<size_t>(p)] = true;
        perm[static_cast<size_t>(i)] = static_cast<int32_t>(p);
    }
    return perm;
}

bool isIdentity(std::vector<int32_t> const& perm, std::vector<int64_t> const& dims)
{
    // Moving extent-1 dimensions does not move data: compare the order of the other dimensions.
    int32_t last = -1;
    for (int32_t p : perm)
    {
        if (dims[static_cast<size_t>(p)] == 1)
        {
            continue;
        }
        if (p < last)
        {
            return false;
        }
        last = p;
    }
    return true;
}

} // namespace

StatusOr<ShuffleAttrs> readShuffleAttrs(KernelSetup const& setup)
{
    if (setup.node == nullptr)
    {
        return internalError("shuffle: no plan node");
    }
    ShuffleAttrs attrs;
    KILN_ASSIGN_OR_RETURN(attrs.first, setup.node->attrs.requireInts("first_transpose"));
    KILN_ASSIGN_OR_RETURN(attrs.second, setup.node->attrs.requireInts("second_transpose"));
    return attrs;
}

StatusOr<ShuffleParams> makeShuffleParams(ShuffleAttrs const& attrs, std::vector<TensorView> const& inputs,
    std::vector<TensorView> const& outputs, char const* device)
{
    KILN_ASSIGN_OR_RETURN(ShuffleParams p, shuffleShapes(attrs, inputs, outputs, device));
    if (p.volume != 0 && (inputs[0].data == nullptr || outputs[0].data == nullptr))
    {
        return internalError("shuffle: missing buffer");
    }
    return p;
}

StatusOr<ShuffleParams> shuffleShapes(ShuffleAttrs const& attrs, std::vector<TensorView> const& inputs,
    std::vector<TensorView> const& outputs, char const* device)
{
    if (inputs.empty() || outputs.size() != 1)
    {
        return internalError("shuffle: expected a data input and one output");
    }
    TensorView const& in = inputs[0];
    TensorView const& out = outputs[0];
    if (in.type != out.type)
    {
        return internalError("shuffle: input and output types differ");
    }
    ShuffleParams p;
    p.bytes = elementSize(in.type);
    if (p.bytes != 1 && p.bytes != 2 && p.bytes != 4 && p.bytes != 8)
    {
        return unsupported(std::string("shuffle: type ") + dataTypeName(in.type) + " is not supported on the "
            + device);
    }
    p.volume = in.volume();
    if (p.volume != out.volume())
    {
        return invalidArgument("shuffle: input volume " + std::to_string(p.volume) + " differs from output volume "
            + std::to_string(out.volume()));
    }
    if (p.volume == 0)
    {
        return p;
    }
    KILN_ASSIGN_OR_RETURN(p.perm1, readPermutation(attrs.first, in.dims.nbDims, "first transpose"));
    KILN_ASSIGN_OR_RETURN(p.perm2, readPermutation(attrs.second, out.dims.nbDims, "second transpose"));
    p.inDims.assign(in.dims.d, in.dims.d + in.dims.nbDims);
    p.reshaped.resize(static_cast<size_t>(out.dims.nbDims));
    for (int32_t i = 0; i < out.dims.nbDims; ++i)
    {
        p.reshaped[static_cast<size_t>(p.perm2[static_cast<size_t>(i)])] = out.dims.d[i];
    }
    p.firstMoves = !isIdentity(p.perm1, p.inDims);
    p.secondMoves = !isIdentity(p.perm2, p.reshaped);
    return p;
}

} // namespace kiln
