// Plugin libraries embedded in engines: the builder reads the files named by IBuilderConfig::setPluginsToSerialize
// (checked to be shared libraries for this machine), and a runtime that allows engine host code loads them from
// anonymous in-memory files (memfd) into its plugin registry.
#include "plugin/embeddedLibraries.h"

#include "plugin/pluginLibraryLoader.h"
#include "plugin/pluginRegistry.h"

#include <elf.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <functional>
#include <iterator>
#include <map>
#include <mutex>
#include <set>
#include <string_view>
#include <tuple>

namespace kiln
{

namespace
{

std::string quote(std::string const& s)
{
    return "'" + s + "'";
}

std::string errnoText(int error)
{
    return std::strerror(error);
}

#if defined(__x86_64__)
constexpr uint16_t kHOST_MACHINE = EM_X86_64;
constexpr char const* kHOST_MACHINE_NAME = "x86-64";
#elif defined(__aarch64__)
constexpr uint16_t kHOST_MACHINE = EM_AARCH64;
constexpr char const* kHOST_MACHINE_NAME = "AArch64";
#else
constexpr uint16_t kHOST_MACHINE = EM_NONE;
constexpr char const* kHOST_MACHINE_NAME = "this machine";
#endif

//! Whether an ET_DYN file is a PIE executable (DF_1_PIE in its dynamic section), which dlopen refuses.
bool isPositionIndependentExecutable(Elf64_Ehdr const& header, std::string const& bytes)
{
    if (header.e_phentsize != sizeof(Elf64_Phdr) || header.e_phoff > bytes.size())
    {
        return false;
    }
    for (uint32_t i = 0; i < header.e_phnum; ++i)
    {
        uint64_t const at = header.e_phoff + uint64_t{i} * sizeof(Elf64_Phdr);
        if (at + sizeof(Elf64_Phdr) > bytes.size())
        {
            return false;
        }
        Elf64_Phdr segment{};
        std::memcpy(&segment, bytes.data() + at, sizeof(segment));
        if (segment.p_type != PT_DYNAMIC || segment.p_offset > bytes.size())
        {
            continue;
        }
        for (uint64_t d = 0; d + sizeof(Elf64_Dyn) <= segment.p_filesz; d += sizeof(Elf64_Dyn))
        {
            if (d + sizeof(Elf64_Dyn) > bytes.size() - segment.p_offset)
            {
                return false;
            }
            Elf64_Dyn entry{};
            std::memcpy(&entry, bytes.data() + segment.p_offset + d, sizeof(entry));
            if (entry.d_tag == DT_NULL)
            {
                return false;
            }
            if (entry.d_tag == DT_FLAGS_1 && (entry.d_un.d_val & DF_1_PIE) != 0)
            {
                return true;
            }
        }
    }
    return false;
}

//! Checks that `bytes` (read from `path`) are a 64-bit little-endian ELF shared object for this machine.
Status checkSharedLibrary(std::string const& path, std::string const& bytes)
{
    std::string const what = "IBuilderConfig::setPluginsToSerialize: " + quote(path);
    if (bytes.size() < SELFMAG || std::memcmp(bytes.data(), ELFMAG, SELFMAG) != 0)
    {
        return invalidArgument(what + " is not a shared library (it does not start with the ELF magic bytes)");
    }
    if (bytes.size() < sizeof(Elf64_Ehdr))
    {
        return invalidArgument(what + " is a truncated ELF file (" + std::to_string(bytes.size())
            + " bytes, shorter than an ELF header)");
    }
    Elf64_Ehdr header{};
    std::memcpy(&header, bytes.data(), sizeof(header));
    if (header.e_ident[EI_CLASS] != ELFCLASS64 || header.e_ident[EI_DATA] != ELFDATA2LSB)
    {
        return invalidArgument(what + " is not a 64-bit little-endian ELF file, so it cannot be loaded by this "
            "64-bit process");
    }
    if (header.e_type != ET_DYN)
    {
        std::string const kind = header.e_type == ET_EXEC ? "an executable"
            : header.e_type == ET_REL                    ? "an object file (.o)"
                                                         : "an ELF file of type " + std::to_string(header.e_type);
        return invalidArgument(what + " is " + kind + ", not a shared library (build it with -shared)");
    }
    if (kHOST_MACHINE != EM_NONE && header.e_machine != kHOST_MACHINE)
    {
        return invalidArgument(what + " is built for another processor (ELF machine "
            + std::to_string(header.e_machine) + "), not for " + kHOST_MACHINE_NAME);
    }
    if (isPositionIndependentExecutable(header, bytes))
    {
        return invalidArgument(what + " is a position-independent executable, not a shared library (dlopen "
            "refuses executables; build the plugin library with -shared)");
    }
    return Status::ok();
}

StatusOr<std::string> readFile(std::string const& path)
{
    std::string const what = "IBuilderConfig::setPluginsToSerialize: cannot read plugin library " + quote(path);
    std::ifstream in(path, std::ios::binary);
    if (!in)
    {
        return invalidArgument(what + ": " + errnoText(errno));
    }
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (in.bad())
    {
        return invalidArgument(what + ": read error");
    }
    return bytes;
}

//! Write all of `bytes` to `fd` (retrying short writes and EINTR).
Status writeAll(int fd, std::string const& bytes, std::string const& what)
{
    size_t written = 0;
    while (written < bytes.size())
    {
        ssize_t const n = ::write(fd, bytes.data() + written, bytes.size() - written);
        if (n < 0 && errno == EINTR)
        {
            continue;
        }
        if (n <= 0)
        {
            return internalError(what + ": writing the in-memory file failed: " + errnoText(errno));
        }
        written += static_cast<size_t>(n);
    }
    return Status::ok();
}

//! Whether the file behind `fd` holds exactly `bytes`.
bool sameContents(int fd, std::string const& bytes)
{
    std::string buffer(64 * 1024, '\0');
    size_t offset = 0;
    while (offset < bytes.size())
    {
        size_t const want = std::min(buffer.size(), bytes.size() - offset);
        ssize_t const n = ::pread(fd, buffer.data(), want, static_cast<off_t>(offset));
        if (n < 0 && errno == EINTR)
        {
            continue;
        }
        if (n <= 0 || std::memcmp(buffer.data(), bytes.data() + offset, static_cast<size_t>(n)) != 0)
        {
            return false;
        }
        offset += static_cast<size_t>(n);
    }
    return true;
}

//!
//! The process-wide in-memory files of embedded libraries. Each distinct library (file name and contents) gets one
//! sealed memfd that stays open for the life of the process: the dynamic loader then maps one copy of its code no
//! matter how many runtimes load it (dlopen of the same file returns the same handle), and the descriptor number in
//! "/proc/self/fd/<n>" is never reused for another file while a library loaded under that name may be mapped.
//!
class MemoryFiles
{
public:
    StatusOr<int> fileFor(PlanPluginLibrary const& library)
    {
        std::string const what = "embedded plugin library " + quote(library.fileName);
        size_t const hash = std::hash<std::string_view>{}(library.bytes);
        std::lock_guard<std::mutex> lock(mMutex);
        auto range = mFiles.equal_range(Key{library.fileName, library.bytes.size(), hash});
        for (auto it = range.first; it != range.second; ++it)
        {
            if (sameContents(it->second, library.bytes))
            {
                return it->second;
            }
        }
        int const fd = ::memfd_create(library.fileName.c_str(), MFD_CLOEXEC | MFD_ALLOW_SEALING);
        if (fd < 0)
        {
            return internalError(what + ": memfd_create failed: " + errnoText(errno)
                + " (Kiln loads embedded plugin libraries from anonymous in-memory files)");
        }
        Status st = writeAll(fd, library.bytes, what);
        if (!st.isOk())
        {
            ::close(fd);
            return st;
        }
        // Hardening only: nothing may change the library's bytes once they are checked and loaded.
        (void) ::fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL);
        mFiles.emplace(Key{library.fileName, library.bytes.size(), hash}, fd);
        return fd;
    }

private:
    using Key = std::tuple<std::string, size_t, size_t>;
    std::mutex mMutex;
    std::multimap<Key, int> mFiles;
};

MemoryFiles& memoryFiles()
{
    // Leaked on purpose: the descriptors must outlive every library loaded from them.
    static MemoryFiles* const files = new MemoryFiles();
    return *files;
}

} // namespace

StatusOr<std::vector<PlanPluginLibrary>> readPluginLibraries(std::vector<std::string> const& paths)
{
    std::vector<PlanPluginLibrary> libraries;
    std::map<std::string, std::string> pathByName;
    for (size_t i = 0; i < paths.size(); ++i)
    {
        std::string const& path = paths[i];
        if (path.empty())
        {
            return invalidArgument("IBuilderConfig::setPluginsToSerialize: plugin library path " + std::to_string(i)
                + " is null or empty");
        }
        PlanPluginLibrary library;
        library.fileName = libraryBaseName(path);
        if (library.fileName.empty())
        {
            return invalidArgument("IBuilderConfig::setPluginsToSerialize: " + quote(path)
                + " names a directory, not a plugin library file");
        }
        auto [it, inserted] = pathByName.emplace(library.fileName, path);
        if (!inserted)
        {
            if (it->second == path)
            {
                continue; // the same file named twice: embed it once
            }
            return invalidArgument("IBuilderConfig::setPluginsToSerialize: " + quote(it->second) + " and "
                + quote(path) + " have the same file name " + quote(library.fileName)
                + "; the engine identifies embedded libraries by file name, so rename one of them");
        }
        KILN_ASSIGN_OR_RETURN(library.bytes, readFile(path));
        KILN_RETURN_IF_ERROR(checkSharedLibrary(path, library.bytes));
        libraries.push_back(std::move(library));
    }
    return libraries;
}

Status loadEmbeddedPluginLibraries(
    PluginRegistry& registry, std::vector<PlanPluginLibrary> const& libraries, bool hostCodeAllowed)
{
    // Libraries whose file name the registry (or a registry it searches) has loaded already are not loaded again:
    // their creators are reachable, and no code from the engine runs for them.
    std::vector<PlanPluginLibrary const*> toLoad;
    for (PlanPluginLibrary const& library : libraries)
    {
        std::string const name = libraryBaseName(library.fileName);
        if (name.empty())
        {
            return invalidArgument("the engine carries a plugin library without a file name");
        }
        std::string const loadedBy = registry.findLibrary(name);
        if (!loadedBy.empty())
        {
            registry.logVerbose("Embedded plugin library " + quote(name) + " is not loaded again: a library of that "
                "name is already loaded into " + loadedBy);
            continue;
        }
        toLoad.push_back(&library);
    }
    if (toLoad.empty())
    {
        return Status::ok();
    }
    if (!hostCodeAllowed)
    {
        std::string names;
        for (size_t i = 0; i < toLoad.size(); ++i)
        {
            names += (i == 0 ? "" : ", ") + libraryBaseName(toLoad[i]->fileName);
        }
        return invalidState("engine carries plugin libraries (" + names
            + ") whose code would run in this process; call IRuntime::setEngineHostCodeAllowed(true) to allow it");
    }
    for (PlanPluginLibrary const* library : toLoad)
    {
        std::string const name = libraryBaseName(library->fileName);
        StatusOr<int> fd = memoryFiles().fileFor(*library);
        if (!fd.isOk())
        {
            return fd.status().withContext("loading plugin library " + quote(name) + " embedded in the engine");
        }
        std::string const path = "/proc/self/fd/" + std::to_string(fd.value());
        // Failures name the library "libfoo.so (embedded in the engine)" already.
        StatusOr<void*> handle = registry.loadLibraryFrom(path, name + " (embedded in the engine)", name);
        if (!handle.isOk())
        {
            return handle.status();
        }
        registry.logVerbose("Loaded plugin library " + quote(name) + " embedded in the engine ("
            + std::to_string(library->bytes.size()) + " bytes, from in-memory file " + path + ") into "
            + registry.label());
    }
    return Status::ok();
}

} // namespace kiln
