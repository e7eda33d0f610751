// Tests of plugin libraries in Kiln's IPluginRegistry beyond the basics in pluginRegistryTest.cpp: one library in
// several registries, the same file reached by another path, broken libraries (throwing, null or duplicate
// creators), findLibrary() and loadLibraryFrom() (used for libraries embedded in engines).
#include "NvInfer.h"
#include "plugin/pluginRegistry.h"
#include "registryTestHelpers.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <string>

KILN_IGNORE_DEPRECATED_BEGIN

namespace
{
using namespace nvinfer1;
using namespace kiln::registry_test;

int32_t creatorCount(IPluginRegistry& registry)
{
    int32_t count = -1;
    registry.getAllCreators(&count);
    return count;
}

//! A fresh temporary directory, removed with its contents at the end of the test.
class TempDir
{
public:
    TempDir()
    {
        char pattern[] = "/tmp/kilnRegistryTestXXXXXX";
        char* made = mkdtemp(pattern);
        EXPECT_NE(made, nullptr);
        mPath = made != nullptr ? made : "/tmp";
    }
    ~TempDir()
    {
        std::string const command = "rm -rf '" + mPath + "'";
        (void) std::system(command.c_str());
    }
    std::string const& path() const
    {
        return mPath;
    }

private:
    std::string mPath;
};

TEST(PluginRegistryLibraryTest, OneLibraryInTwoRegistriesSharesItsCode)
{
    CapturingLogger logger;
    auto first = makeRegistry(logger);
    auto second = kiln::createLocalRegistry(nullptr, &logger, "the second registry");
    std::string const path = libraryPath("kilnToyPluginsV3");

    IPluginRegistry::PluginLibraryHandle a = first->loadLibrary(path.c_str());
    IPluginRegistry::PluginLibraryHandle b = second->loadLibrary(path.c_str());
    ASSERT_NE(a, nullptr) << logger.dump(Severity::kERROR);
    ASSERT_NE(b, nullptr) << logger.dump(Severity::kERROR);
    EXPECT_EQ(a, b); // dlopen of one file gives one handle (reference counted)
    IPluginCreatorInterface* creator = first->getCreator("ToyLibraryPlugin", "1", "toylib");
    ASSERT_NE(creator, nullptr);
    EXPECT_EQ(second->getCreator("ToyLibraryPlugin", "1", "toylib"), creator);

    // Unloading from the first registry leaves the second one's creator registered and its code mapped.
    first->deregisterLibrary(a);
    EXPECT_EQ(first->getCreator("ToyLibraryPlugin", "1", "toylib"), nullptr);
    ASSERT_EQ(second->getCreator("ToyLibraryPlugin", "1", "toylib"), creator);
    EXPECT_STREQ(static_cast<IPluginCreatorV3One*>(creator)->getPluginName(), "ToyLibraryPlugin");
    EXPECT_STREQ(static_cast<IPluginCreatorV3One*>(creator)->getPluginNamespace(), "toylib");

    // Loaded again into the first registry (a second load there is refused), then gone from both.
    a = first->loadLibrary(path.c_str());
    ASSERT_NE(a, nullptr) << logger.dump(Severity::kERROR);
    EXPECT_EQ(first->loadLibrary(path.c_str()), nullptr);
    EXPECT_TRUE(logger.has(Severity::kERROR, "the library is already loaded into the test registry"))
        << logger.dump(Severity::kERROR);
    EXPECT_EQ(creatorCount(*first), 1);
    first->deregisterLibrary(a);
    second->deregisterLibrary(b);
    EXPECT_EQ(creatorCount(*first), 0);
    EXPECT_EQ(creatorCount(*second), 0);
}

TEST(PluginRegistryLibraryTest, NamespacesKeepLibrariesApart)
{
    CapturingLogger logger;
    auto registry = makeRegistry(logger);
    // Two libraries offer a plugin with the same name and version, each under its own namespace.
    IPluginRegistry::PluginLibraryHandle toylib = registry->loadLibrary(libraryPath("kilnToyPluginsV3").c_str());
    IPluginRegistry::PluginLibraryHandle otherlib = registry->loadLibrary(libraryPath("kilnToyPluginsOtherNs").c_str());
    ASSERT_NE(toylib, nullptr) << logger.dump(Severity::kERROR);
    ASSERT_NE(otherlib, nullptr) << logger.dump(Severity::kERROR);
    EXPECT_NE(toylib, otherlib);
    IPluginCreatorInterface* a = registry->getCreator("ToyLibraryPlugin", "1", "toylib");
    IPluginCreatorInterface* b = registry->getCreator("ToyLibraryPlugin", "1", "otherlib");
    ASSERT_NE(a, nullptr);
    ASSERT_NE(b, nullptr);
    EXPECT_NE(a, b);
    EXPECT_STREQ(static_cast<IPluginCreatorV3One*>(b)->getPluginNamespace(), "otherlib");
    // Neither answers for the empty namespace.
    EXPECT_EQ(registry->getCreator("ToyLibraryPlugin", "1", ""), nullptr);
    EXPECT_EQ(creatorCount(*registry), 2);

    // Unloading one leaves the other.
    registry->deregisterLibrary(toylib);
    EXPECT_EQ(registry->getCreator("ToyLibraryPlugin", "1", "toylib"), nullptr);
    EXPECT_EQ(registry->getCreator("ToyLibraryPlugin", "1", "otherlib"), b);
    registry->deregisterLibrary(otherlib);
    EXPECT_EQ(creatorCount(*registry), 0);
}

TEST(PluginRegistryLibraryTest, SameFileThroughAnotherPathIsRecognised)
{
    CapturingLogger logger;
    auto registry = makeRegistry(logger);
    TempDir dir;
    std::string const path = libraryPath("kilnToyPluginsV3");
    std::string const link = dir.path() + "/libAlias.so";
    ASSERT_EQ(symlink(path.c_str(), link.c_str()), 0);

    IPluginRegistry::PluginLibraryHandle handle = registry->loadLibrary(path.c_str());
    ASSERT_NE(handle, nullptr) << logger.dump(Severity::kERROR);
    EXPECT_EQ(registry->loadLibrary(link.c_str()), nullptr);
    // The message names the path it was loaded under first.
    EXPECT_TRUE(logger.has(Severity::kERROR, "already loaded into the test registry (as '" + path + "')"))
        << logger.dump(Severity::kERROR);
    EXPECT_TRUE(logger.has(Severity::kERROR, "libAlias.so"));
    EXPECT_EQ(creatorCount(*registry), 1);
    registry->deregisterLibrary(handle);
    EXPECT_EQ(creatorCount(*registry), 0);
}

TEST(PluginRegistryLibraryTest, ThrowingEntryPointIsReportedAndNothingIsRegistered)
{
    CapturingLogger logger;
    RecordingErrorRecorder recorder;
    auto registry = makeRegistry(logger);
    registry->setErrorRecorder(&recorder);
    std::string const path = libraryPath("kilnToyPluginsThrow");
    for (int32_t attempt = 0; attempt < 2; ++attempt)
    {
        EXPECT_EQ(registry->loadLibrary(path.c_str()), nullptr);
    }
    EXPECT_TRUE(logger.has(Severity::kERROR, "getCreators() threw an exception: toy getCreators exploded"))
        << logger.dump(Severity::kERROR);
    EXPECT_TRUE(logger.has(Severity::kERROR, "libkilnToyPluginsThrow.so"));
    EXPECT_EQ(recorder.getNbErrors(), 2);
    EXPECT_EQ(creatorCount(*registry), 0);
    EXPECT_TRUE(registry->findLibrary("libkilnToyPluginsThrow.so").empty());
    registry->setErrorRecorder(nullptr);
}

TEST(PluginRegistryLibraryTest, NullCreatorInTheListRegistersNothing)
{
    CapturingLogger logger;
    auto registry = makeRegistry(logger);
    EXPECT_EQ(registry->loadLibrary(libraryPath("kilnToyPluginsNullCreator").c_str()), nullptr);
    EXPECT_TRUE(logger.has(Severity::kERROR, "getCreators() returned a null creator at index 1"))
        << logger.dump(Severity::kERROR);
    // All or nothing: the valid first creator was not registered either.
    EXPECT_EQ(registry->getCreator("ToyLibraryPlugin", "1", "toylib"), nullptr);
    EXPECT_EQ(creatorCount(*registry), 0);
}

TEST(PluginRegistryLibraryTest, LibraryOfferingOneKeyTwiceRegistersNothing)
{
    CapturingLogger logger;
    auto registry = makeRegistry(logger);
    EXPECT_EQ(registry->loadLibrary(libraryPath("kilnToyPluginsDup").c_str()), nullptr);
    EXPECT_TRUE(logger.has(Severity::kERROR,
        "plugin 'ToyLibraryPlugin' version '1' namespace 'toylib' (offered twice by the same library)"))
        << logger.dump(Severity::kERROR);
    EXPECT_EQ(creatorCount(*registry), 0);
}

TEST(PluginRegistryLibraryTest, CreatorsOfALibraryCanBeDeregisteredOneByOne)
{
    CapturingLogger logger;
    auto registry = makeRegistry(logger);
    IPluginRegistry::PluginLibraryHandle handle = registry->loadLibrary(libraryPath("kilnToyPluginsV3").c_str());
    ASSERT_NE(handle, nullptr) << logger.dump(Severity::kERROR);
    IPluginCreatorInterface* creator = registry->getCreator("ToyLibraryPlugin", "1", "toylib");
    ASSERT_NE(creator, nullptr);
    EXPECT_TRUE(registry->deregisterCreator(*creator));
    EXPECT_EQ(creatorCount(*registry), 0);
    // The library itself is still loaded until deregisterLibrary().
    EXPECT_EQ(registry->findLibrary("libkilnToyPluginsV3.so"), "the test registry");
    logger.clear();
    registry->deregisterLibrary(handle);
    EXPECT_TRUE(logger.has(Severity::kVERBOSE, "Unloaded plugin library")) << logger.dump(Severity::kVERBOSE);
    EXPECT_TRUE(registry->findLibrary("libkilnToyPluginsV3.so").empty());
}

TEST(PluginRegistryLibraryTest, FindLibraryMatchesFileNamesHereAndInParents)
{
    CapturingLogger logger;
    auto parent = kiln::createLocalRegistry(nullptr, &logger, "the parent registry");
    auto child = kiln::createLocalRegistry(parent.get(), &logger, "the child registry");
    std::string const path = libraryPath("kilnToyPluginsV3");
    IPluginRegistry::PluginLibraryHandle handle = parent->loadLibrary(path.c_str());
    ASSERT_NE(handle, nullptr) << logger.dump(Severity::kERROR);

    EXPECT_EQ(parent->findLibrary("libkilnToyPluginsV3.so"), "the parent registry");
    EXPECT_EQ(parent->findLibrary("/some/other/dir/libkilnToyPluginsV3.so"), "the parent registry");
    EXPECT_EQ(child->findLibrary("libkilnToyPluginsV3.so"), "the parent registry");
    EXPECT_TRUE(child->findLibrary("libkilnToyPluginsV1.so").empty());
    child->setParentSearchEnabled(false);
    EXPECT_TRUE(child->findLibrary("libkilnToyPluginsV3.so").empty());
    parent->deregisterLibrary(handle);
}

TEST(PluginRegistryLibraryTest, LoadLibraryFromNamesTheLibraryByItsDisplayName)
{
    CapturingLogger logger;
    auto registry = makeRegistry(logger);
    std::string const path = libraryPath("kilnToyPluginsV3");
    kiln::StatusOr<IPluginRegistry::PluginLibraryHandle> handle
        = registry->loadLibraryFrom(path, "libPretty.so (embedded in the engine)", "libPretty.so");
    ASSERT_TRUE(handle.isOk()) << handle.status().message();
    EXPECT_TRUE(logger.has(Severity::kVERBOSE, "Loaded plugin library 'libPretty.so (embedded in the engine)'"))
        << logger.dump(Severity::kVERBOSE);
    EXPECT_EQ(registry->findLibrary("libPretty.so"), "the test registry");
    EXPECT_TRUE(registry->findLibrary("libkilnToyPluginsV3.so").empty());

    // A failure is returned, not reported: nothing reaches the logger at error level.
    kiln::StatusOr<IPluginRegistry::PluginLibraryHandle> missing
        = registry->loadLibraryFrom("/nonexistent/libGone.so", "libGone.so (embedded in the engine)", "libGone.so");
    ASSERT_FALSE(missing.isOk());
    EXPECT_THAT(missing.status().message(), ::testing::HasSubstr("'libGone.so (embedded in the engine)'"));
    EXPECT_THAT(missing.status().message(), ::testing::HasSubstr("dlopen failed"));
    EXPECT_EQ(logger.dump(Severity::kERROR), "");

    registry->deregisterLibrary(handle.value());
    EXPECT_TRUE(registry->findLibrary("libPretty.so").empty());
}

} // namespace

KILN_IGNORE_DEPRECATED_END
