// One test body on every backend: the fixture of the layer tests (tests/layers), value-parameterised by the backend
// (kiln::BackendKind). A test written as TEST_P(SomeLayerTest, Name) on a fixture derived from BackendTest runs once
// per backend; its name shows the backend (SomeLayerTest.Name/CPU, SomeLayerTest.Name/CUDA). Every NetworkRunner the
// body creates (in helpers too) builds for the running instance's backend and runs with I/O buffers in that
// backend's memory (host vectors, or device memory and a stream), outputs poisoned before each run.
//
// Which executable runs which backend: kilnTests runs the CPU instances; kilnGpuTests (built with the CUDA toolkit,
// linking the CUDA runtime) runs the CUDA instances of the same compiled bodies, and skips each one visibly
// (GTEST_SKIP) where no GPU is present. In a build without CUDA, kilnTests lists the CUDA instances too and skips
// them, saying that Kiln was built without the CUDA backend.
#pragma once

#include "kiln/KilnBackend.h"

#include <gtest/gtest.h>

#include <ostream>
#include <string>
#include <vector>

namespace kiln::test
{

//! The backends this executable instantiates the layer tests for (see above).
std::vector<kiln::BackendKind> layerTestBackends();

//! "CPU", "CUDA" (test name suffixes and messages).
std::string backendName(kiln::BackendKind backend);

//! True when this process can build and run engines for `backend` with test I/O buffers; `why` says why not.
bool backendRunnable(kiln::BackendKind backend, std::string& why);

//! The backend of the running BackendTest instance; kDEFAULT outside one (NetworkRunner then leaves the builder
//! config's backend alone).
kiln::BackendKind currentTestBackend();

//! Fixture of a test body that runs on every backend.
class BackendTest : public ::testing::TestWithParam<kiln::BackendKind>
{
protected:
    //! Skips the instance visibly when its backend cannot run here; otherwise makes it the current test backend.
    void SetUp() override;
    void TearDown() override;

    kiln::BackendKind backend() const { return GetParam(); }
    bool onCuda() const { return GetParam() == kiln::BackendKind::kCUDA; }
};

//! Test-name suffix of a backend parameter.
struct BackendParamName
{
    std::string operator()(::testing::TestParamInfo<kiln::BackendKind> const& info) const
    {
        return backendName(info.param);
    }
};

} // namespace kiln::test

namespace kiln
{
//! GoogleTest's printer of a backend parameter ("CPU", "CUDA"), found by argument-dependent lookup.
inline void PrintTo(BackendKind backend, std::ostream* os)
{
    *os << kiln::test::backendName(backend);
}
} // namespace kiln

//! Instantiates the TEST_P bodies of `Suite` (a fixture derived from kiln::test::BackendTest) on every backend.
#define KILN_INSTANTIATE_BACKEND_TESTS(Suite)                                                                          \
    INSTANTIATE_TEST_SUITE_P(, Suite, ::testing::ValuesIn(::kiln::test::layerTestBackends()),                         \
        ::kiln::test::BackendParamName{})

//! Inside a TEST_P body: skips (visibly) every backend but the CPU, for bodies about the CPU backend itself (its
//! tactics, its kernels called directly). `why` says what the body checks.
#define KILN_CPU_BACKEND_ONLY(why)                                                                                     \
    do                                                                                                                 \
    {                                                                                                                  \
        if (GetParam() != ::kiln::BackendKind::kCPU)                                                                   \
        {                                                                                                              \
            GTEST_SKIP() << "CPU backend only: " << (why);                                                             \
        }                                                                                                              \
    } while (false)

//! Inside a TEST_P body: skips (visibly) the rest of the body on `backend`, for a limitation of that backend that its
//! documentation states; `why` names it (for example "docs/gpu.md: ..."). What the body checked before still counts.
#define KILN_SKIP_ON_BACKEND(backend, why)                                                                             \
    do                                                                                                                 \
    {                                                                                                                  \
        if (GetParam() == (backend))                                                                                   \
        {                                                                                                              \
            GTEST_SKIP() << ::kiln::test::backendName(backend) << " backend limitation: " << (why);                    \
        }                                                                                                              \
    } while (false)
