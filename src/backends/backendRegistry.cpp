// Finding backends: the CPU backend is built in; the CUDA backend is the module libkiln_cuda.so, loaded with dlopen
// on first use so that libkiln itself needs no CUDA library. Search order: $KILN_CUDA_BACKEND (a file path), the
// directory of the binary holding libkiln's code and its ../lib, then the dynamic linker's search path.
#include "backends/backend.h"
#include "core/verboseLog.h"

#include <dlfcn.h>

#include <cstdlib>
#include <mutex>
#include <string>
#include <vector>

namespace kiln
{

namespace
{

struct CudaModule
{
    Backend const* backend{nullptr};
    std::string error;
};

std::string directoryOfThisCode()
{
    Dl_info info{};
    if (dladdr(reinterpret_cast<void const*>(&directoryOfThisCode), &info) == 0 || info.dli_fname == nullptr)
    {
        return {};
    }
    std::string path = info.dli_fname;
    size_t const slash = path.rfind('/');
    return slash == std::string::npos ? std::string(".") : path.substr(0, slash);
}

CudaModule loadCudaModule()
{
    CudaModule module;
    std::vector<std::string> candidates;
    if (char const* env = std::getenv("KILN_CUDA_BACKEND"); env != nullptr && *env != '\0')
    {
        candidates.emplace_back(env);
    }
    else
    {
        std::string const dir = directoryOfThisCode();
        if (!dir.empty())
        {
            candidates.push_back(dir + "/libkiln_cuda.so");
            candidates.push_back(dir + "/../lib/libkiln_cuda.so");
        }
        candidates.emplace_back("libkiln_cuda.so");
    }
    std::string tried;
    for (std::string const& path : candidates)
    {
        void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (handle == nullptr)
        {
            char const* why = dlerror();
            tried += "\n  " + path + ": " + (why != nullptr ? why : "cannot be loaded");
            continue;
        }
        auto const create = reinterpret_cast<CreateBackendFn>(dlsym(handle, kCUDA_BACKEND_ENTRY));
        if (create == nullptr)
        {
            module.error = path + " has no entry point " + kCUDA_BACKEND_ENTRY;
            return module;
        }
        char error[512] = {};
        module.backend = create(kBACKEND_ABI_VERSION, error, static_cast<int64_t>(sizeof(error)));
        if (module.backend == nullptr)
        {
            module.error = error[0] != '\0' ? std::string(error) : path + " could not start the CUDA backend";
        }
        return module; // the module stays loaded for the life of the process
    }
    module.error = "the CUDA backend module libkiln_cuda.so was not found (Kiln built without CUDA?); tried:" + tried;
    return module;
}

} // namespace

StatusOr<Backend const*> cudaBackend()
{
    static std::once_flag once;
    static CudaModule* module = nullptr;
    std::call_once(once, [] { module = new CudaModule(loadCudaModule()); });
    if (module->backend == nullptr)
    {
        return unsupported("the CUDA backend is not available: " + module->error);
    }
    return module->backend;
}

Logger const* Backend::exchangeVerboseLogger(Logger const* logger) const
{
    return exchangeThreadVerboseLogger(logger);
}

std::string backendDisplayName(Backend const& backend)
{
    std::string name = backend.name();
    for (char& c : name)
    {
        c = static_cast<char>(c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c);
    }
    return "the " + name + " backend";
}

StatusOr<Backend const*> backendNamed(std::string const& name)
{
    if (name == "cpu")
    {
        return &cpuBackend();
    }
    if (name == "cuda")
    {
        return cudaBackend();
    }
    return unsupported("unknown backend '" + name + "' (this Kiln knows 'cpu' and 'cuda')");
}

} // namespace kiln
