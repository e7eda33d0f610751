// editDistance: case-insensitive Levenshtein distance between two names, used to suggest the registered
// plugin creators closest to a missing one.
#pragma once

#include <cstddef>
#include <string>

namespace kiln
{

//! Number of single-character insertions, deletions and substitutions (ignoring case) that turn a into b.
size_t editDistance(std::string const& a, std::string const& b);

} // namespace kiln
