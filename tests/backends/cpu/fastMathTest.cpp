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

TEST(CpuFastMath, ErfMatchesLibm)
{
    std::mt19937 rng(4);
    std::uniform_real_distribution<float> dist(-6.F, 6.F);
    for (int64_t n : {1, 9, 2000})
    {
        std::vector<float> x(static_cast<size_t>(n));
        for (float& v : x)
        {
            v = dist(rng);
        }
        x[0] = n > 1 ? 1e-4F : 0.49F;
        std::vector<float> r(x.size(), -9.F);
        kiln::erfInto(x.data(), r.data(), n);
        for (int64_t i = 0; i < n; ++i)
        {
            double const expected = std::erf(static_cast<double>(x[static_cast<size_t>(i)]));
            EXPECT_NEAR(r[static_cast<size_t>(i)], expected, 2.5e-7 + 1e-6 * std::fabs(expected))
                << "x = " << x[static_cast<size_t>(i)];
        }
    }
    std::vector<float> special{0.F, -0.F, std::numeric_limits<float>::quiet_NaN(), 40.F, -40.F,
        std::numeric_limits<float>::infinity(), 0.5F, -0.5F};
    std::vector<float> r(special.size());
    kiln::erfInto(special.data(), r.data(), static_cast<int64_t>(special.size()));
    EXPECT_EQ(r[0], 0.F);
    EXPECT_TRUE(std::isnan(r[2]));
    EXPECT_EQ(r[3], 1.F);
    EXPECT_EQ(r[4], -1.F);
    EXPECT_EQ(r[5], 1.F);
    EXPECT_NEAR(r[6], std::erf(0.5), 3e-7);
    EXPECT_NEAR(r[7], -std::erf(0.5), 3e-7);
}

} // namespace
