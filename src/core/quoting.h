// singleQuoted: how messages quote names ('conv1'). One helper for every file, so that no unqualified quoted()
// call can clash with std::quoted through argument-dependent lookup.
#pragma once

#include <string>

namespace kiln
{

inline std::string singleQuoted(std::string const& s)
{
    return "'" + s + "'";
}

} // namespace kiln
