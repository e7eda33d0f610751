// The CPU kernels' vectorised exponential (backends/cpu/kernels/fastMath.h) against libm on [-100, 0], with -inf,
// NaN, 0 and lengths that are not multiples of its eight lanes.
#include "backends/cpu/kernels/fastMath.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

namespace
{

TEST(CpuFastMath, ExpOfNonPositiveValuesMatchesLibm)
{
    std::mt19937 rng(3);
    std::uniform_real_distribution<float> dist(-100.F, 0.F);
    for (int64_t n : {1, 7, 8, 9, 1000})
    {
        std::vector<float> v(static_cast<size_t>(n));
        for (float& x : v)
        {
            x = dist(rng);
        }
        v[0] = 0.F;
        std::vector<float> const in = v;
        kiln::expNonPositiveInPlace(v.data(), n);
        for (int64_t i = 0; i < n; ++i)
        {
            float const x = in[static_cast<size_t>(i)];
            float const expected = std::exp(x);
            float const got = v[static_cast<size_t>(i)];
            if (x < -87.F)
            {
                EXPECT_LE(got, 1.7e-38F) << "x = " << x; // flushed below e^-87
            }
            else
            {
                EXPECT_NEAR(got, expected, 3e-7F * expected) << "x = " << x;
            }
        }
    }
    std::vector<float> special{-std::numeric_limits<float>::infinity(), std::numeric_limits<float>::quiet_NaN(), 0.F,
        -1e-30F, -87.F};
    kiln::expNonPositiveInPlace(special.data(), static_cast<int64_t>(special.size()));
    EXPECT_EQ(special[0], 0.F);
    EXPECT_TRUE(std::isnan(special[1]));
    EXPECT_EQ(special[2], 1.F);
    EXPECT_NEAR(special[3], 1.F, 1e-7F);
    EXPECT_NEAR(special[4], std::exp(-87.F), 3e-7F * std::exp(-87.F));
}

} // namespace
