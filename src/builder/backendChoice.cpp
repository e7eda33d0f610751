// chooseBackend: kCPU and kCUDA are strict; kDEFAULT follows KILN_BACKEND when set, else takes the GPU when the
// CUDA backend loads and a device is present (falling back to the CPU for networks the GPU cannot run).
#include "builder/backendChoice.h"

#include "kiln/KilnBackend.h"

#include <cstdlib>
#include <string>

namespace kiln
{

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
        return BackendChoice{&cpuBackend(), false};
    }
    return BackendChoice{cuda.value(), true};
}

} // namespace kiln
