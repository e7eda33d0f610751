// Importers of the einsum op family: Einsum (opset 12) → IEinsumLayer. IEinsumLayer takes TensorRT's equation syntax
// (lower-case letters, no ellipsis), so an ONNX equation with "..." is rewritten first: each input's ellipsis becomes
// as many unused letters as it covers (right-aligned across inputs, as numpy broadcasts them) and the output, explicit
// or implicit, gets the ellipsis letters first.
#include "onnx/importerHelpers.h"
#include "onnx/onnxAttributes.h"
#include "onnx/opImporters.h"

#include <algorithm>
#include <array>

namespace kiln
{
namespace
{

using nvinfer1::ITensor;

//! Equation `eq` with every "..." replaced by letters, given the rank of each input.
StatusOr<std::string> expandEllipsis(::onnx::NodeProto const& node, std::string const& eq, std::vector<int32_t> const& ranks)
{
    std::string compact;
    for (char c : eq)
    {
        if (c != ' ')
        {
            compact += c;
        }
    }
    if (compact.find("...") == std::string::npos)
    {
        return compact;
    }
    size_t const arrow = compact.find("->");
    std::string const lhs = compact.substr(0, arrow);
    std::vector<std::string> terms;
    size_t start = 0;
    while (true)
    {
        size_t const comma = lhs.find(',', start);
        terms.push_back(lhs.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
        if (comma == std::string::npos)
        {
            break;
        }
        start = comma + 1;
    }
    if (terms.size() != ranks.size())
    {
        return invalidArgument(describeNode(node) + ": equation '" + eq + "' has " + std::to_string(terms.size())
            + " input term(s) for " + std::to_string(ranks.size()) + " input(s)");
    }
    std::array<bool, 26> used{};
    for (char c : compact)
    {
        if (c >= 'a' && c <= 'z')
        {
            used[static_cast<size_t>(c - 'a')] = true;
        }
    }
    // Ellipsis rank of each input, and the widest one.
    std::vector<int32_t> ellipsisRank(terms.size(), 0);
    int32_t widest = 0;
    for (size_t i = 0; i < terms.size(); ++i)
    {
        if (terms[i].find("...") == std::string::npos)
        {
            continue;
        }
        auto const letters = static_cast<int32_t>(terms[i].size()) - 3;
        ellipsisRank[i] = ranks[i] - letters;
        if (ellipsisRank[i] < 0)
        {
            return invalidArgument(describeNode(node) + ": input " + std::to_string(i) + " has rank "
                + std::to_string(ranks[i]) + ", fewer than the subscripts of '" + terms[i] + "'");
        }
        widest = std::max(widest, ellipsisRank[i]);
    }
    std::string fresh;
    for (size_t l = 0; l < used.size() && static_cast<int32_t>(fresh.size()) < widest; ++l)
    {
        if (!used[l])
        {
            fresh += static_cast<char>('a' + l);
        }
    }
    if (static_cast<int32_t>(fresh.size()) < widest)
    {
        return unsupported(describeNode(node) + ": equation '" + eq + "' leaves too few unused letters for its ellipsis");
    }
    std::string out;
    for (size_t i = 0; i < terms.size(); ++i)
    {
        std::string t = terms[i];
        size_t const pos = t.find("...");
        if (pos != std::string::npos)
        {
            t.replace(pos, 3, fresh.substr(static_cast<size_t>(widest - ellipsisRank[i])));
        }
        out += (i == 0 ? "" : ",") + t;
    }
    std::string rhs;
    if (arrow != std::string::npos)
    {
        rhs = compact.substr(arrow + 2);
        size_t const pos = rhs.find("...");
        if (pos != std::string::npos)
        {
            rhs.replace(pos, 3, fresh);
        }
    }
    else
    {
        // Implicit output: the ellipsis dimensions, then the letters used exactly once, alphabetically.
        std::array<int32_t, 26> count{};
        for (char c : lhs)
        {
            if (c >= 'a' && c <= 'z')
            {
                ++count[static_cast<size_t>(c - 'a')];
            }
        }
        rhs = fresh;
        for (size_t l = 0; l < count.size(); ++l)
        {
            if (count[l] == 1)
            {
                rhs += static_cast<char>('a' + l);
            }
        }
    }
    return out + "->" + rhs;
}

Status importEinsum(ImporterContext& ctx, ::onnx::NodeProto const& node, std::vector<OnnxValue>& outputs)
{
    KILN_ASSIGN_OR_RETURN(std::string const equation, [&]() -> StatusOr<std::string> {
        if (!hasAttribute(node, "equation"))
        {
            return invalidArgument(describeNode(node) + ": attribute 'equation' is missing");
        }
        return attrString(node, "equation", "");
    }());
    std::vector<ITensor*> inputs;
    std::vector<int32_t> ranks;
    for (int32_t i = 0; i < node.input_size(); ++i)
    {
        KILN_ASSIGN_OR_RETURN(ITensor * t, ctx.tensor(node, i));
        if (!isFloatType(t->getType()))
        {
            return unsupported(describeNode(node) + ": input " + std::to_string(i)
                + " is not floating point; IEinsumLayer supports FP32, FP16 and BF16 only");
        }
        inputs.push_back(t);
        ranks.push_back(t->getDimensions().nbDims);
    }
    if (inputs.empty())
    {
        return invalidArgument(describeNode(node) + ": Einsum needs at least one input");
    }
    for (size_t i = 1; i < inputs.size(); ++i)
    {
        if (inputs[i]->getType() != inputs[0]->getType())
        {
            KILN_ASSIGN_OR_RETURN(inputs[i], castTo(ctx, node, inputs[i], inputs[0]->getType(), "cast"));
        }
    }
    KILN_ASSIGN_OR_RETURN(std::string const trtEquation, expandEllipsis(node, equation, ranks));
    auto* layer = ctx.network().addEinsum(inputs.data(), static_cast<int32_t>(inputs.size()), trtEquation.c_str());
    KILN_RETURN_IF_ERROR(checkLayer(ctx, node, layer, "addEinsum"));
    outputs.emplace_back(layer->getOutput(0));
    return Status::ok();
}

} // namespace

std::vector<OpImporterEntry> einsumImporters()
{
    return {{"Einsum", importEinsum}};
}

} // namespace kiln
