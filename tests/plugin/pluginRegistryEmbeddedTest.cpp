// Tests of plugin libraries embedded in engines (src/plugin/embeddedLibraries.*): reading and checking the files
// named by IBuilderConfig::setPluginsToSerialize, refusing them without IRuntime::setEngineHostCodeAllowed(true),
// loading them from in-memory files into a registry, and the builder's use of the paths.
#include "NvInfer.h"
#include "plugin/embeddedLibraries.h"
#include "plugin/pluginRegistry.h"
#include "registryTestHelpers.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <elf.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace
{
using namespace nvinfer1;
using namespace kiln::registry_test;
using ::testing::HasSubstr;

std::string readWhole(std::string const& path)
{
    std::ifstream in(path, std::ios::binary);
    EXPECT_TRUE(in.good()) << path;
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

void writeWhole(std::string const& path, std::string const& bytes)
{
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    ASSERT_TRUE(out.good()) << path;
}

//! A fresh temporary directory, removed with its contents at the end of the test.
class TempDir
{
public:
    TempDir()
    {
        char pattern[] = "/tmp/kilnEmbeddedTestXXXXXX";
        char* made = mkdtemp(pattern);
        EXPECT_NE(made, nullptr);
        mPath = made != nullptr ? made : "/tmp";
    }
    ~TempDir()
    {
        std::string const command = "rm -rf '" + mPath + "'";
        (void) std::system(command.c_str());
    }
    std::string file(std::string const& name) const
    {
        return mPath + "/" + name;
    }

private:
    std::string mPath;
};

//! A 64-bit ELF header for this machine with the given type (the rest of the file is random bytes).
std::string craftedElf(uint16_t type, unsigned char elfClass = ELFCLASS64, uint16_t machine = 0)
{
    Elf64_Ehdr header{};
    std::memcpy(header.e_ident, ELFMAG, SELFMAG);
    header.e_ident[EI_CLASS] = elfClass;
    header.e_ident[EI_DATA] = ELFDATA2LSB;
    header.e_ident[EI_VERSION] = EV_CURRENT;
    header.e_type = type;
#if defined(__aarch64__)
    header.e_machine = machine != 0 ? machine : EM_AARCH64;
#else
    header.e_machine = machine != 0 ? machine : EM_X86_64;
#endif
    header.e_version = EV_CURRENT;
    header.e_ehsize = sizeof(Elf64_Ehdr);
    std::string bytes(reinterpret_cast<char const*>(&header), sizeof(header));
    std::mt19937 rng(7);
    for (int32_t i = 0; i < 256; ++i)
    {
        bytes.push_back(static_cast<char>(rng() & 0xFFU));
    }
    return bytes;
}

//! The error message of readPluginLibraries({path}) ("" if it succeeds).
std::string readError(std::vector<std::string> const& paths)
{
    auto result = kiln::readPluginLibraries(paths);
    return result.isOk() ? std::string() : result.status().message();
}

int32_t creatorCount(IPluginRegistry& registry)
{
    int32_t count = -1;
    registry.getAllCreators(&count);
    return count;
}

// ---------------------------------------------------------------------------------------------------------------
// readPluginLibraries
// ---------------------------------------------------------------------------------------------------------------

TEST(PluginRegistryEmbeddedTest, ReadsLibrariesByteForByte)
{
    std::string const v3 = libraryPath("kilnToyPluginsV3");
    std::string const v1 = libraryPath("kilnToyPluginsV1");
    auto libraries = kiln::readPluginLibraries({v3, v1, v3});
    ASSERT_TRUE(libraries.isOk()) << libraries.status().message();
    ASSERT_EQ(libraries.value().size(), 2U); // the same path twice is embedded once
    EXPECT_EQ(libraries.value()[0].fileName, "libkilnToyPluginsV3.so");
    EXPECT_EQ(libraries.value()[1].fileName, "libkilnToyPluginsV1.so");
    EXPECT_EQ(libraries.value()[0].bytes, readWhole(v3));
    EXPECT_EQ(libraries.value()[1].bytes, readWhole(v1));

    auto none = kiln::readPluginLibraries({});
    ASSERT_TRUE(none.isOk());
    EXPECT_TRUE(none.value().empty());
}

TEST(PluginRegistryEmbeddedTest, ReportsMissingAndEmptyPaths)
{
    std::string const missing = "/nonexistent/dir/libNotThere.so";
    std::string message = readError({missing});
    EXPECT_THAT(message, HasSubstr("IBuilderConfig::setPluginsToSerialize"));
    EXPECT_THAT(message, HasSubstr("'" + missing + "'"));
    EXPECT_THAT(message, HasSubstr("No such file or directory"));

    message = readError({libraryPath("kilnToyPluginsV3"), ""});
    EXPECT_THAT(message, HasSubstr("plugin library path 1 is null or empty"));

    message = readError({"/tmp/"});
    EXPECT_THAT(message, HasSubstr("names a directory"));
}

TEST(PluginRegistryEmbeddedTest, RejectsFilesThatAreNotSharedLibraries)
{
    TempDir dir;
    std::string const text = dir.file("notes.txt");
    writeWhole(text, "this is a text file, not a plugin library\n");
    EXPECT_THAT(readError({text}), HasSubstr("'" + text + "' is not a shared library"));

    std::string const empty = dir.file("empty.so");
    writeWhole(empty, "");
    EXPECT_THAT(readError({empty}), HasSubstr("is not a shared library"));

    std::string const truncated = dir.file("truncated.so");
    writeWhole(truncated, std::string(ELFMAG, SELFMAG) + "abc");
    EXPECT_THAT(readError({truncated}), HasSubstr("is a truncated ELF file"));

    std::string const object = dir.file("object.o");
    writeWhole(object, craftedElf(ET_REL));
    EXPECT_THAT(readError({object}), HasSubstr("is an object file (.o), not a shared library"));

    std::string const executable = dir.file("program");
    writeWhole(executable, craftedElf(ET_EXEC));
    EXPECT_THAT(readError({executable}), HasSubstr("is an executable, not a shared library"));

    std::string const thirtyTwo = dir.file("lib32.so");
    writeWhole(thirtyTwo, craftedElf(ET_DYN, ELFCLASS32));
    EXPECT_THAT(readError({thirtyTwo}), HasSubstr("is not a 64-bit little-endian ELF file"));

    std::string const foreign = dir.file("libForeign.so");
#if defined(__aarch64__)
    writeWhole(foreign, craftedElf(ET_DYN, ELFCLASS64, EM_X86_64));
#else
    writeWhole(foreign, craftedElf(ET_DYN, ELFCLASS64, EM_AARCH64));
#endif
    EXPECT_THAT(readError({foreign}), HasSubstr("is built for another processor"));

    // A real program (small, unlike this test binary) is refused whether it was linked as a PIE (ET_DYN with
    // DF_1_PIE) or not (ET_EXEC).
    std::string const program = access("/bin/true", R_OK) == 0 ? "/bin/true" : "/proc/self/exe";
    std::string const self = readWhole(program);
    ASSERT_GE(self.size(), sizeof(Elf64_Ehdr));
    Elf64_Ehdr header{};
    std::memcpy(&header, self.data(), sizeof(header));
    std::string const selfError = readError({program});
    if (header.e_type == ET_DYN)
    {
        EXPECT_THAT(selfError, HasSubstr("is a position-independent executable, not a shared library"));
    }
    else
    {
        EXPECT_THAT(selfError, HasSubstr("is an executable, not a shared library"));
    }
}

TEST(PluginRegistryEmbeddedTest, RejectsTwoLibrariesWithTheSameFileName)
{
    TempDir dir;
    std::string const bytes = readWhole(libraryPath("kilnToyPluginsV3"));
    ASSERT_EQ(system(("mkdir -p '" + dir.file("a") + "' '" + dir.file("b") + "'").c_str()), 0);
    writeWhole(dir.file("a/libSame.so"), bytes);
    writeWhole(dir.file("b/libSame.so"), bytes);
    std::string const message = readError({dir.file("a/libSame.so"), dir.file("b/libSame.so")});
    EXPECT_THAT(message, HasSubstr("have the same file name 'libSame.so'"));
    EXPECT_THAT(message, HasSubstr(dir.file("b/libSame.so")));
}

// ---------------------------------------------------------------------------------------------------------------
// loadEmbeddedPluginLibraries
// ---------------------------------------------------------------------------------------------------------------

TEST(PluginRegistryEmbeddedTest, RefusedUnlessHostCodeIsAllowed)
{
    CapturingLogger logger;
    auto registry = makeRegistry(logger);
    auto libraries = kiln::readPluginLibraries({libraryPath("kilnToyPluginsV3"), libraryPath("kilnToyPluginsV1")});
    ASSERT_TRUE(libraries.isOk()) << libraries.status().message();

    kiln::Status status = kiln::loadEmbeddedPluginLibraries(*registry, libraries.value(), false);
    ASSERT_FALSE(status.isOk());
    EXPECT_EQ(status.code(), ErrorCode::kINVALID_STATE);
    EXPECT_EQ(status.message(),
        "engine carries plugin libraries (libkilnToyPluginsV3.so, libkilnToyPluginsV1.so) whose code would run in "
        "this process; call IRuntime::setEngineHostCodeAllowed(true) to allow it");
    EXPECT_EQ(creatorCount(*registry), 0);
    EXPECT_TRUE(registry->findLibrary("libkilnToyPluginsV3.so").empty());

    // An engine without libraries needs no permission.
    EXPECT_TRUE(kiln::loadEmbeddedPluginLibraries(*registry, {}, false).isOk());
}

TEST(PluginRegistryEmbeddedTest, LoadsFromMemoryWithoutTheFileOnDisk)
{
    CapturingLogger logger;
    auto registry = makeRegistry(logger);
    TempDir dir;
    std::string const path = dir.file("libEmbeddedToy.so");
    writeWhole(path, readWhole(libraryPath("kilnToyPluginsV3")));
    auto libraries = kiln::readPluginLibraries({path});
    ASSERT_TRUE(libraries.isOk()) << libraries.status().message();
    ASSERT_EQ(unlink(path.c_str()), 0); // from here on the library exists only in the plan

    kiln::Status status = kiln::loadEmbeddedPluginLibraries(*registry, libraries.value(), true);
    ASSERT_TRUE(status.isOk()) << status.message();
    IPluginCreatorInterface* creator = registry->getCreator("ToyLibraryPlugin", "1", "toylib");
    ASSERT_NE(creator, nullptr);
    EXPECT_STREQ(static_cast<IPluginCreatorV3One*>(creator)->getPluginName(), "ToyLibraryPlugin");
    EXPECT_EQ(registry->findLibrary("libEmbeddedToy.so"), "the test registry");
    EXPECT_TRUE(logger.has(Severity::kVERBOSE, "Loaded plugin library 'libEmbeddedToy.so' embedded in the engine"))
        << logger.dump(Severity::kVERBOSE);
    EXPECT_TRUE(logger.has(Severity::kVERBOSE, "from in-memory file /proc/self/fd/"));
    // The code is mapped from an anonymous in-memory file.
    EXPECT_THAT(readWhole("/proc/self/maps"), HasSubstr("memfd:libEmbeddedToy.so"));

    // The same engine loaded again into the same registry: the library is not loaded twice.
    logger.clear();
    status = kiln::loadEmbeddedPluginLibraries(*registry, libraries.value(), true);
    ASSERT_TRUE(status.isOk()) << status.message();
    EXPECT_TRUE(logger.has(Severity::kVERBOSE, "'libEmbeddedToy.so' is not loaded again")) << logger.dump(Severity::kVERBOSE);
    EXPECT_EQ(creatorCount(*registry), 1);

    // Another registry (another runtime) gets the same in-memory file, hence the same code and creator objects.
    auto other = kiln::createLocalRegistry(nullptr, &logger, "another registry");
    status = kiln::loadEmbeddedPluginLibraries(*other, libraries.value(), true);
    ASSERT_TRUE(status.isOk()) << status.message();
    EXPECT_EQ(other->getCreator("ToyLibraryPlugin", "1", "toylib"), creator);
}

TEST(PluginRegistryEmbeddedTest, NotLoadedWhenTheRegistryOrItsParentHasTheLibrary)
{
    CapturingLogger logger;
    auto parent = kiln::createLocalRegistry(nullptr, &logger, "the parent registry");
    auto child = kiln::createLocalRegistry(parent.get(), &logger, "the child registry");
    std::string const path = libraryPath("kilnToyPluginsV3");
    IPluginRegistry::PluginLibraryHandle handle = parent->loadLibrary(path.c_str());
    ASSERT_NE(handle, nullptr) << logger.dump(Severity::kERROR);
    auto libraries = kiln::readPluginLibraries({path});
    ASSERT_TRUE(libraries.isOk()) << libraries.status().message();

    // No code from the engine would run, so this works even without permission for host code.
    kiln::Status status = kiln::loadEmbeddedPluginLibraries(*child, libraries.value(), false);
    ASSERT_TRUE(status.isOk()) << status.message();
    EXPECT_TRUE(logger.has(Severity::kVERBOSE, "already loaded into the parent registry")) << logger.dump(Severity::kVERBOSE);

    // With a second library that is not loaded anywhere, permission is needed, and the refusal names only that one.
    auto both = kiln::readPluginLibraries({path, libraryPath("kilnToyPluginsV1")});
    ASSERT_TRUE(both.isOk()) << both.status().message();
    status = kiln::loadEmbeddedPluginLibraries(*child, both.value(), false);
    ASSERT_FALSE(status.isOk());
    EXPECT_THAT(status.message(), HasSubstr("engine carries plugin libraries (libkilnToyPluginsV1.so) whose code"));
    EXPECT_EQ(creatorCount(*child), 0);
    EXPECT_EQ(child->getCreator("ToyLibraryPlugin", "1", "toylib"), parent->getCreator("ToyLibraryPlugin", "1", "toylib"));
    parent->deregisterLibrary(handle);
}

TEST(PluginRegistryEmbeddedTest, CorruptLibraryFailsNamingIt)
{
    CapturingLogger logger;
    auto registry = makeRegistry(logger);
    kiln::PlanPluginLibrary broken;
    broken.fileName = "libBroken.so";
    broken.bytes = craftedElf(ET_DYN); // a valid-looking header followed by garbage
    kiln::Status status = kiln::loadEmbeddedPluginLibraries(*registry, {broken}, true);
    ASSERT_FALSE(status.isOk());
    EXPECT_THAT(status.message(), HasSubstr("'libBroken.so (embedded in the engine)'"));
    EXPECT_THAT(status.message(), HasSubstr("dlopen failed"));
    EXPECT_EQ(creatorCount(*registry), 0);
}

TEST(PluginRegistryEmbeddedTest, ClashingCreatorsFailNamingTheLibrary)
{
    CapturingLogger logger;
    auto registry = makeRegistry(logger);
    ToyV3Creator squatter("ToyLibraryPlugin", "1", "toylib");
    ASSERT_TRUE(registry->registerCreator(static_cast<IPluginCreatorInterface&>(squatter), ""));
    TempDir dir;
    std::string const path = dir.file("libClash.so");
    writeWhole(path, readWhole(libraryPath("kilnToyPluginsV3")));
    auto libraries = kiln::readPluginLibraries({path});
    ASSERT_TRUE(libraries.isOk()) << libraries.status().message();

    kiln::Status status = kiln::loadEmbeddedPluginLibraries(*registry, libraries.value(), true);
    ASSERT_FALSE(status.isOk());
    EXPECT_THAT(status.message(), HasSubstr("library 'libClash.so (embedded in the engine)'"));
    EXPECT_THAT(status.message(), HasSubstr("plugin 'ToyLibraryPlugin' version '1' namespace 'toylib'"));
    EXPECT_EQ(registry->getCreator("ToyLibraryPlugin", "1", "toylib"), &squatter);
    EXPECT_TRUE(registry->findLibrary("libClash.so").empty());
    EXPECT_TRUE(registry->deregisterCreator(static_cast<IPluginCreatorInterface const&>(squatter)));
}

// ---------------------------------------------------------------------------------------------------------------
// IBuilderConfig::setPluginsToSerialize and the builder
// ---------------------------------------------------------------------------------------------------------------

TEST(PluginRegistryEmbeddedTest, BuilderConfigKeepsThePaths)
{
    CapturingLogger logger;
    std::unique_ptr<IBuilder> builder{createInferBuilder(logger)};
    ASSERT_NE(builder, nullptr);
    std::unique_ptr<IBuilderConfig> config{builder->createBuilderConfig()};
    ASSERT_NE(config, nullptr);
    EXPECT_EQ(config->getNbPluginsToSerialize(), 0);

    char const* paths[] = {"/a/libOne.so", "/b/libTwo.so"};
    config->setPluginsToSerialize(paths, 2);
    ASSERT_EQ(config->getNbPluginsToSerialize(), 2);
    EXPECT_STREQ(config->getPluginToSerialize(0), "/a/libOne.so");
    EXPECT_STREQ(config->getPluginToSerialize(1), "/b/libTwo.so");
    EXPECT_EQ(config->getPluginToSerialize(2), nullptr);
    EXPECT_EQ(config->getPluginToSerialize(-1), nullptr);

    // Bad arguments are reported and leave the list as it was.
    config->setPluginsToSerialize(paths, -1);
    EXPECT_TRUE(logger.has(Severity::kERROR, "nbPaths is negative (-1)")) << logger.dump(Severity::kERROR);
    config->setPluginsToSerialize(nullptr, 3);
    EXPECT_TRUE(logger.has(Severity::kERROR, "paths is null but nbPaths is 3")) << logger.dump(Severity::kERROR);
    EXPECT_EQ(config->getNbPluginsToSerialize(), 2);

    // Each call replaces the list; (nullptr, 0) clears it.
    config->setPluginsToSerialize(paths + 1, 1);
    ASSERT_EQ(config->getNbPluginsToSerialize(), 1);
    EXPECT_STREQ(config->getPluginToSerialize(0), "/b/libTwo.so");
    config->setPluginsToSerialize(nullptr, 0);
    EXPECT_EQ(config->getNbPluginsToSerialize(), 0);
}

//! A one-layer network (identity) for build tests.
struct TinyBuild
{
    CapturingLogger logger;
    std::unique_ptr<IBuilder> builder{createInferBuilder(logger)};
    std::unique_ptr<INetworkDefinition> network{builder->createNetworkV2(0)};
    std::unique_ptr<IBuilderConfig> config{builder->createBuilderConfig()};

    TinyBuild()
    {
        Dims dims{};
        dims.nbDims = 2;
        dims.d[0] = 2;
        dims.d[1] = 3;
        ITensor* input = network->addInput("input", DataType::kFLOAT, dims);
        ITensor* output = network->addIdentity(*input)->getOutput(0);
        output->setName("output");
        network->markOutput(*output);
    }
};

TEST(PluginRegistryEmbeddedTest, BuildFailsNamingAMissingOrInvalidLibrary)
{
    TinyBuild build;
    char const* missing[] = {"/nonexistent/libNope.so"};
    build.config->setPluginsToSerialize(missing, 1);
    std::unique_ptr<IHostMemory> plan{build.builder->buildSerializedNetwork(*build.network, *build.config)};
    EXPECT_EQ(plan, nullptr);
    EXPECT_TRUE(build.logger.has(Severity::kERROR, "cannot read plugin library '/nonexistent/libNope.so'"))
        << build.logger.dump(Severity::kERROR);

    TempDir dir;
    std::string const text = dir.file("libText.so");
    writeWhole(text, "not a library");
    char const* notLibrary[] = {text.c_str()};
    build.config->setPluginsToSerialize(notLibrary, 1);
    plan.reset(build.builder->buildSerializedNetwork(*build.network, *build.config));
    EXPECT_EQ(plan, nullptr);
    EXPECT_TRUE(build.logger.has(Severity::kERROR, "'" + text + "' is not a shared library"))
        << build.logger.dump(Severity::kERROR);

    // Without plugin libraries the same network builds.
    build.config->setPluginsToSerialize(nullptr, 0);
    plan.reset(build.builder->buildSerializedNetwork(*build.network, *build.config));
    EXPECT_NE(plan, nullptr) << build.logger.dump(Severity::kERROR);
}

TEST(PluginRegistryEmbeddedTest, EngineCarriesTheLibraryAndTheRuntimeLoadsItOnlyWhenAllowed)
{
    TinyBuild build;
    TempDir dir;
    std::string const path = dir.file("libEngineToy.so");
    writeWhole(path, readWhole(libraryPath("kilnToyPluginsV3")));
    char const* libraries[] = {path.c_str()};
    build.config->setPluginsToSerialize(libraries, 1);
    std::unique_ptr<IHostMemory> plan{build.builder->buildSerializedNetwork(*build.network, *build.config)};
    ASSERT_NE(plan, nullptr) << build.logger.dump(Severity::kERROR);
    ASSERT_EQ(unlink(path.c_str()), 0); // the engine must not need the file any more

    // Refused by default, naming the library and the switch; nothing is registered.
    {
        CapturingLogger logger;
        std::unique_ptr<IRuntime> runtime{createInferRuntime(logger)};
        ASSERT_NE(runtime, nullptr);
        EXPECT_FALSE(runtime->getEngineHostCodeAllowed());
        std::unique_ptr<ICudaEngine> engine{runtime->deserializeCudaEngine(plan->data(), plan->size())};
        EXPECT_EQ(engine, nullptr);
        EXPECT_TRUE(logger.has(Severity::kERROR,
            "engine carries plugin libraries (libEngineToy.so) whose code would run in this process; call "
            "IRuntime::setEngineHostCodeAllowed(true) to allow it"))
            << logger.dump(Severity::kERROR);
        EXPECT_EQ(runtime->getPluginRegistry().getCreator("ToyLibraryPlugin", "1", "toylib"), nullptr);
    }

    // Allowed: the library comes out of the engine into the runtime's registry (not the global one), and the engine
    // runs.
    CapturingLogger logger;
    std::unique_ptr<IRuntime> runtime{createInferRuntime(logger)};
    ASSERT_NE(runtime, nullptr);
    runtime->setEngineHostCodeAllowed(true);
    std::unique_ptr<ICudaEngine> engine{runtime->deserializeCudaEngine(plan->data(), plan->size())};
    ASSERT_NE(engine, nullptr) << logger.dump(Severity::kERROR);
    EXPECT_NE(runtime->getPluginRegistry().getCreator("ToyLibraryPlugin", "1", "toylib"), nullptr);
    auto* local = dynamic_cast<kiln::PluginRegistry*>(&runtime->getPluginRegistry());
    ASSERT_NE(local, nullptr);
    EXPECT_FALSE(local->findLibrary("libEngineToy.so").empty());
    EXPECT_TRUE(kiln::globalPluginRegistry().findLibrary("libEngineToy.so").empty());

    std::unique_ptr<IExecutionContext> context{engine->createExecutionContext()};
    ASSERT_NE(context, nullptr) << logger.dump(Severity::kERROR);
    std::mt19937 rng(99);
    std::uniform_real_distribution<float> dist(-4.0F, 4.0F);
    std::vector<float> in(6);
    for (float& v : in)
    {
        v = dist(rng);
    }
    std::vector<float> out(6, -12345.0F);
    ASSERT_TRUE(context->setTensorAddress("input", in.data()));
    ASSERT_TRUE(context->setTensorAddress("output", out.data()));
    ASSERT_TRUE(context->enqueueV3(nullptr)) << logger.dump(Severity::kERROR);
    EXPECT_EQ(out, in);

    // The same engine deserialized again by this runtime does not load the library a second time.
    std::unique_ptr<ICudaEngine> again{runtime->deserializeCudaEngine(plan->data(), plan->size())};
    ASSERT_NE(again, nullptr) << logger.dump(Severity::kERROR);
    EXPECT_TRUE(logger.has(Severity::kVERBOSE, "'libEngineToy.so' is not loaded again")) << logger.dump(Severity::kVERBOSE);
}

} // namespace
