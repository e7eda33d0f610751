// editDistance: the classic two-row dynamic programme.
#include "core/editDistance.h"

#include <algorithm>
#include <cctype>
#include <vector>

namespace kiln
{

size_t editDistance(std::string const& a, std::string const& b)
{
    std::vector<size_t> prev(b.size() + 1);
    std::vector<size_t> cur(b.size() + 1);
    for (size_t j = 0; j <= b.size(); ++j)
    {
        prev[j] = j;
    }
    for (size_t i = 1; i <= a.size(); ++i)
    {
        cur[0] = i;
        for (size_t j = 1; j <= b.size(); ++j)
        {
            bool const same = std::tolower(static_cast<unsigned char>(a[i - 1]))
                == std::tolower(static_cast<unsigned char>(b[j - 1]));
            cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (same ? 0 : 1)});
        }
        std::swap(prev, cur);
    }
    return prev[b.size()];
}

std::vector<size_t> rankByCloseness(std::string const& target, std::vector<std::string> const& names)
{
    std::vector<size_t> order(names.size());
    std::vector<size_t> distance(names.size());
    for (size_t i = 0; i < names.size(); ++i)
    {
        order[i] = i;
        distance[i] = names[i] == target ? 0 : 1 + editDistance(names[i], target);
    }
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return distance[a] < distance[b]; });
    return order;
}

} // namespace kiln
