// parseEinsumEquation: syntax and consistency checks of IEinsumLayer equations.
#include "network/layers/einsumEquation.h"

#include <algorithm>
#include <array>

namespace kiln
{

StatusOr<EinsumEquation> parseEinsumEquation(std::string const& equation, int32_t nbInputs)
{
    std::string compact;
    for (char c : equation)
    {
        if (c != ' ')
        {
            compact += c;
        }
    }
    auto const bad = [&](std::string const& why) {
        return invalidArgument("einsum equation '" + equation + "': " + why);
    };
    if (compact.find("...") != std::string::npos)
    {
        return bad("ellipsis ('...') is not supported; name every dimension with a letter");
    }
    std::string lhs = compact;
    std::string rhs;
    bool const explicitOutput = compact.find("->") != std::string::npos;
    if (explicitOutput)
    {
        size_t const arrow = compact.find("->");
        lhs = compact.substr(0, arrow);
        rhs = compact.substr(arrow + 2);
        if (rhs.find("->") != std::string::npos)
        {
            return bad("'->' appears more than once");
        }
    }
    EinsumEquation eq;
    size_t start = 0;
    while (true)
    {
        size_t const comma = lhs.find(',', start);
        eq.inputs.push_back(lhs.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
        if (comma == std::string::npos)
        {
            break;
        }
        start = comma + 1;
    }
    if (static_cast<int32_t>(eq.inputs.size()) != nbInputs)
    {
        return bad("it has " + std::to_string(eq.inputs.size()) + " input term(s) but the layer has "
            + std::to_string(nbInputs) + " input(s)");
    }
    std::array<int32_t, 26> count{};
    for (std::string const& term : eq.inputs)
    {
        for (char c : term)
        {
            if (c < 'a' || c > 'z')
            {
                return bad(std::string("character '") + c + "' is not a lower-case letter");
            }
            ++count[static_cast<size_t>(c - 'a')];
        }
    }
    if (explicitOutput)
    {
        std::array<bool, 26> seen{};
        for (char c : rhs)
        {
            if (c < 'a' || c > 'z')
            {
                return bad(std::string("output character '") + c + "' is not a lower-case letter");
            }
            auto const i = static_cast<size_t>(c - 'a');
            if (seen[i])
            {
                return bad(std::string("output subscript '") + c + "' appears more than once");
            }
            if (count[i] == 0)
            {
                return bad(std::string("output subscript '") + c + "' does not appear in any input");
            }
            seen[i] = true;
        }
        eq.output = rhs;
    }
    else
    {
        for (size_t i = 0; i < count.size(); ++i)
        {
            if (count[i] == 1)
            {
                eq.output += static_cast<char>('a' + i);
            }
        }
    }
    return eq;
}

} // namespace kiln
