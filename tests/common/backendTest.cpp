// The backend-parameterised fixture of the layer tests (see backendTest.h). Which backends an executable
// instantiates depends on how this file is compiled: KILN_TEST_CUDA_RUNTIME (kilnGpuTests) gives the CUDA instances,
// KILN_TEST_BUILD_HAS_CUDA (kilnTests of a build with CUDA) leaves them to kilnGpuTests.
#include "common/backendTest.h"

#include "common/testMemory.h"

namespace kiln::test
{
namespace
{
kiln::BackendKind gCurrent = kiln::BackendKind::kDEFAULT;
} // namespace

std::vector<kiln::BackendKind> layerTestBackends()
{
#if KILN_TEST_CUDA_RUNTIME
    return {kiln::BackendKind::kCUDA};
#elif KILN_TEST_BUILD_HAS_CUDA
    return {kiln::BackendKind::kCPU};
#else
    return {kiln::BackendKind::kCPU, kiln::BackendKind::kCUDA};
#endif
}

std::string backendName(kiln::BackendKind backend)
{
    switch (backend)
    {
    case kiln::BackendKind::kCPU: return "CPU";
    case kiln::BackendKind::kCUDA: return "CUDA";
    case kiln::BackendKind::kDEFAULT: return "DEFAULT";
    }
    return "UNKNOWN";
}

bool backendRunnable(kiln::BackendKind backend, std::string& why)
{
    if (backend != kiln::BackendKind::kCUDA)
    {
        return true;
    }
#if !KILN_TEST_CUDA_RUNTIME && !KILN_TEST_BUILD_HAS_CUDA
    why = "Kiln was built without the CUDA backend";
    return false;
#else
    if (!deviceMemoryAvailable(why))
    {
        return false;
    }
    if (!kiln::isBackendAvailable(kiln::BackendKind::kCUDA))
    {
        why = "a CUDA device is present, but kiln::isBackendAvailable(kCUDA) is false (libkiln_cuda.so missing or "
              "refused)";
        return false;
    }
    return true;
#endif
}

kiln::BackendKind currentTestBackend()
{
    return gCurrent;
}

void BackendTest::SetUp()
{
    std::string why;
    if (!backendRunnable(GetParam(), why))
    {
        GTEST_SKIP() << "no " << backendName(GetParam()) << " backend here: " << why;
    }
    gCurrent = GetParam();
}

void BackendTest::TearDown()
{
    gCurrent = kiln::BackendKind::kDEFAULT;
}

} // namespace kiln::test
