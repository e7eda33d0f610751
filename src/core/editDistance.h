// editDistance: case-insensitive Levenshtein distance between two names, used to suggest the registered
// plugin creators closest to a missing one.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace kiln
{

//! Number of single-character insertions, deletions and substitutions (ignoring case) that turn a into b.
size_t editDistance(std::string const& a, std::string const& b);

//! Indices of `names` ordered closest to `target` first: exact matches (e.g. the same creator name under another
//! version or namespace) first, then by editDistance; ties keep their order. Used for "closest registered" hints.
std::vector<size_t> rankByCloseness(std::string const& target, std::vector<std::string> const& names);

} // namespace kiln
