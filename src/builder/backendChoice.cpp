// chooseBackend: kCPU and kCUDA are strict; kDEFAULT follows KILN_BACKEND when set, else takes the GPU when the
// CUDA backend loads and a device is present (falling back to the CPU for networks the GPU cannot run).
#include "builder/backendChoice.h"

#include "kiln/KilnBackend.h"
#include "core/threadPool.h"

#include <cstdlib>
#include <string>

namespace kiln
{

namespace
{
//! The CPU backend is chosen: a KILN_CPU_THREADS that is not a thread count is ignored, with a warning.
void warnAboutCpuThreads(Logger const& logger)
{
    std::string note;
    defaultCpuThreadCount(&note);
    if (!note.empty())
    {
        logger.warning(note);
    }
}
} // namespace

StatusOr<BackendChoice> chooseBackend(BuilderConfig const& config, Logger const& logger)
{
    auto kind = static_cast<BackendKind>(config.backendKind());
    if (kind == BackendKind::kDEFAULT)
    {
        if (char const* env = std::getenv("KILN_BACKEND"); env != nullptr && *env != '\0')
        {
            std::string const name = env;
            if (name == "cpu")
            {
                kind = BackendKind::kCPU;
            }
            else if (name == "cuda" || name == "gpu")
            {
                kind = BackendKind::kCUDA;
            }
            else if (name != "default")
            {
                return invalidConfig("the environment variable KILN_BACKEND is '" + name
                    + "'; it must be cpu, cuda or default");
            }
        }
    }
    if (kind == BackendKind::kCPU)
    {
        warnAboutCpuThreads(logger);
        return BackendChoice{&cpuBackend(), false};
    }
    StatusOr<Backend const*> cuda = cudaBackend();
    if (kind == BackendKind::kCUDA)
    {
        if (!cuda.isOk())
        {
            return cuda.status().withContext("the builder config asks for the CUDA backend");
        }
        return BackendChoice{cuda.value(), false};
    }
    if (!cuda.isOk())
    {
        logger.verbose("building for the CPU backend: " + cuda.status().message());
        warnAboutCpuThreads(logger);
        return BackendChoice{&cpuBackend(), false};
    }
    return BackendChoice{cuda.value(), true};
}

} // namespace kiln
