// Tests of Kiln's IPluginRegistry (src/plugin/pluginRegistry.*): registration of every creator generation,
// namespaces, duplicates, parent search, resources, error reporting, thread safety and plugin libraries.
#include "NvInfer.h"
#include "NvInferPlugin.h"
#include "plugin/pluginLibraryLoader.h"
#include "plugin/pluginRegistry.h"
#include "registryTestHelpers.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

KILN_IGNORE_DEPRECATED_BEGIN

namespace
{
using namespace nvinfer1;
using ::testing::HasSubstr;

using namespace kiln::registry_test;

// ---------------------------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------------------------

//! Registered at static initialization through REGISTER_TENSORRT_PLUGIN.
class StaticToyCreator final : public IPluginCreatorV3One
{
public:
    IPluginV3* createPlugin(AsciiChar const*, PluginFieldCollection const*, TensorRTPhase) noexcept override
    {
        return nullptr;
    }
    PluginFieldCollection const* getFieldNames() noexcept override
    {
        return &mFields;
    }
    AsciiChar const* getPluginName() const noexcept override
    {
        return "KilnRegistryTestStaticPlugin";
    }
    AsciiChar const* getPluginVersion() const noexcept override
    {
        return "1";
    }
    AsciiChar const* getPluginNamespace() const noexcept override
    {
        return "";
    }

private:
    PluginFieldCollection mFields{};
};

//! Counts what the registry does with shared resources.
struct ResourceCounters
{
    std::atomic<int32_t> clones{0};
    std::atomic<int32_t> releases{0};
    std::atomic<int32_t> destroyed{0};
};

class ToyResource final : public IPluginResource
{
public:
    explicit ToyResource(ResourceCounters& counters, bool isClone = false)
        : mCounters(counters)
        , mIsClone(isClone)
    {
    }
    ~ToyResource() noexcept override
    {
        if (mIsClone)
        {
            ++mCounters.destroyed;
        }
    }
    int32_t release() noexcept override
    {
        ++mCounters.releases;
        return 0;
    }
    IPluginResource* clone() noexcept override
    {
        ++mCounters.clones;
        return new ToyResource(mCounters, true);
    }
    bool isClone() const
    {
        return mIsClone;
    }

private:
    ResourceCounters& mCounters;
    bool mIsClone;
};

//! Has the vtable layout of an IPluginCreatorV3One but no noexcept, as a library compiled against other headers
//! may have, and throws from getPluginName(). The registry must report this, not crash.
class LookalikeThrowingCreator
{
public:
    virtual APILanguage getAPILanguage() const
    {
        return APILanguage::kCPP;
    }
    virtual InterfaceInfo getInterfaceInfo() const
    {
        return InterfaceInfo{"PLUGIN CREATOR_V3ONE", 1, 0};
    }
    virtual ~LookalikeThrowingCreator() = default;
    virtual IPluginV3* createPlugin(AsciiChar const*, PluginFieldCollection const*, TensorRTPhase)
    {
        return nullptr;
    }
    virtual PluginFieldCollection const* getFieldNames()
    {
        return nullptr;
    }
    virtual AsciiChar const* getPluginName() const
    {
        throw std::runtime_error("getPluginName exploded");
    }
    virtual AsciiChar const* getPluginVersion() const
    {
        return "1";
    }
    virtual AsciiChar const* getPluginNamespace() const
    {
        return "";
    }
};

//! A creator claiming an interface kind the registry does not know.
class UnknownKindCreator final : public IPluginCreatorInterface
{
public:
    InterfaceInfo getInterfaceInfo() const noexcept override
    {
        return InterfaceInfo{"PLUGIN CREATOR_V9", 1, 0};
    }
};

} // namespace

REGISTER_TENSORRT_PLUGIN(StaticToyCreator);

namespace
{

// ---------------------------------------------------------------------------------------------------------------
// Registration and lookup
// ---------------------------------------------------------------------------------------------------------------

TEST(PluginRegistryTest, RegistersFindsAndDeregistersV1Creator)
{
    CapturingLogger logger;
    auto registry = makeRegistry(logger);
    ToyV1Creator creator("ToyV1", "1");

    ASSERT_TRUE(registry->registerCreator(creator, "ns1"));
    EXPECT_EQ(creator.setNamespaceCalls(), 1);
    EXPECT_STREQ(creator.getPluginNamespace(), "ns1");
    EXPECT_TRUE(logger.has(Severity::kVERBOSE, "Registered IPluginCreator for plugin 'ToyV1' version '1' namespace 'ns1'"))
        << logger.dump(Severity::kVERBOSE);

    EXPECT_EQ(registry->getPluginCreator("ToyV1", "1", "ns1"), &creator);
    EXPECT_EQ(registry->getCreator("ToyV1", "1", "ns1"), &creator);
    EXPECT_EQ(registry->getCreator("ToyV1", "1", ""), nullptr);
    EXPECT_EQ(registry->getCreator("ToyV1", "2", "ns1"), nullptr);

    EXPECT_TRUE(registry->deregisterCreator(creator));
    EXPECT_TRUE(logger.has(Severity::kVERBOSE, "Deregistered IPluginCreator for plugin 'ToyV1'"));
    EXPECT_EQ(registry->getCreator("ToyV1", "1", "ns1"), nullptr);
    EXPECT_FALSE(registry->deregisterCreator(creator));
    EXPECT_TRUE(logger.has(Severity::kERROR, "is not registered"));
}

TEST(PluginRegistryTest, RegistersFindsAndDeregistersV3Creator)
{
    CapturingLogger logger;
    auto registry = makeRegistry(logger);
    ToyV3Creator creator("ToyV3", "1");

    ASSERT_TRUE(registry->registerCreator(static_cast<IPluginCreatorInterface&>(creator), ""));
    EXPECT_EQ(registry->getCreator("ToyV3", "1", ""), &creator);
    // The deprecated lookup returns only IPluginCreator and says why.
    EXPECT_EQ(registry->getPluginCreator("ToyV3", "1", ""), nullptr);
    EXPECT_TRUE(logger.has(Severity::kVERBOSE, "use getCreator() instead")) << logger.dump(Severity::kVERBOSE);

    EXPECT_TRUE(registry->deregisterCreator(static_cast<IPluginCreatorInterface const&>(creator)));
    EXPECT_EQ(registry->getCreator("ToyV3", "1", ""), nullptr);
}

TEST(PluginRegistryTest, NullNamespaceMeansEmpty)
{
    CapturingLogger logger;
    auto registry = makeRegistry(logger);
    ToyV1Creator v1("NullNs", "1");
    ASSERT_TRUE(registry->registerCreator(v1, nullptr));
    EXPECT_STREQ(v1.getPluginNamespace(), "");
    EXPECT_EQ(registry->getCreator("NullNs", "1", nullptr), &v1);
    EXPECT_EQ(registry->getPluginCreator("NullNs", "1", nullptr), &v1);
    EXPECT_EQ(registry->getCreator("NullNs", "1"), &v1);
}

TEST(PluginRegistryTest, NamespacesKeepCreatorsApart)
{
    CapturingLogger logger;
    auto registry = makeRegistry(logger);
    ToyV1Creator v1a("Same", "1");
    ToyV1Creator v1b("Same", "1");
    ToyV3Creator v3c("Same", "1", "c");
    ToyV3Creator v3d("Same", "1", "");

    ASSERT_TRUE(registry->registerCreator(v1a, "a"));
    ASSERT_TRUE(registry->registerCreator(v1b, "b"));
    ASSERT_TRUE(registry->registerCreator(static_cast<IPluginCreatorInterface&>(v3c), ""));
    ASSERT_TRUE(registry->registerCreator(static_cast<IPluginCreatorInterface&>(v3d), ""));

    EXPECT_EQ(registry->getCreator("Same", "1", "a"), &v1a);
    EXPECT_EQ(registry->getCreator("Same", "1", "b"), &v1b);
    EXPECT_EQ(registry->getCreator("Same", "1", "c"), &v3c);
    EXPECT_EQ(registry->getCreator("Same", "1", ""), &v3d);
    EXPECT_EQ(registry->getCreator("Same", "1", "d"), nullptr);
}

TEST(PluginRegistryTest, V3CreatorCanBeRegisteredUnderAnExplicitNamespace)
{
    CapturingLogger logger;
    auto registry = makeRegistry(logger);
    ToyV3Creator plain("Explicit", "1", "");
    ToyV3Creator mismatched("Explicit", "2", "own");

    ASSERT_TRUE(registry->registerCreator(static_cast<IPluginCreatorInterface&>(plain), "lib"));
    EXPECT_EQ(registry->getCreator("Explicit", "1", "lib"), &plain);

    ASSERT_TRUE(registry->registerCreator(static_cast<IPluginCreatorInterface&>(mismatched), "other"));
    EXPECT_EQ(registry->getCreator("Explicit", "2", "other"), &mismatched);
    EXPECT_TRUE(logger.has(Severity::kWARNING, "getPluginNamespace() returns 'own'")) << logger.dump(Severity::kWARNING);
}

TEST(PluginRegistryTest, DuplicateRegistrationFailsWithAMessage)
{
    CapturingLogger logger;
    RecordingErrorRecorder recorder;
    auto registry = makeRegistry(logger);
    registry->setErrorRecorder(&recorder);
    ToyV1Creator first("Dup", "1");
    ToyV1Creator second("Dup", "1");
    ToyV3Creator third("Dup", "1", "x");

    ASSERT_TRUE(registry->registerCreator(first, "x"));
    EXPECT_FALSE(registry->registerCreator(second, "x"));
    // The rejected creator is left untouched.
    EXPECT_EQ(second.setNamespaceCalls(), 0);
    EXPECT_FALSE(registry->registerCreator(static_cast<IPluginCreatorInterface&>(third), ""));
    EXPECT_FALSE(registry->registerCreator(first, "x")); // the same object twice

    EXPECT_TRUE(logger.has(Severity::kERROR, "plugin 'Dup' version '1' namespace 'x'")) << logger.dump(Severity::kERROR);
    EXPECT_TRUE(logger.has(Severity::kERROR, "already registered"));
    EXPECT_TRUE(logger.has(Severity::kERROR, "the same object"));
    ASSERT_EQ(recorder.getNbErrors(), 3);
    EXPECT_EQ(recorder.getErrorCode(0), ErrorCode::kINVALID_ARGUMENT);
    EXPECT_LE(std::string(recorder.getErrorDesc(0)).size(), static_cast<size_t>(IErrorRecorder::kMAX_DESC_LENGTH));

    // Never a silent replacement: the first creator still answers.
    EXPECT_EQ(registry->getCreator("Dup", "1", "x"), &first);
    registry->setErrorRecorder(nullptr);
}

TEST(PluginRegistryTest, RejectsBadCreators)
{
    CapturingLogger logger;
    auto registry = makeRegistry(logger);

    ToyV3Creator unnamed("", "1");
    EXPECT_FALSE(registry->registerCreator(static_cast<IPluginCreatorInterface&>(unnamed), ""));
    EXPECT_TRUE(logger.has(Severity::kERROR, "empty plugin name")) << logger.dump(Severity::kERROR);

    ToyV3Creator longName(std::string(2000, 'n'), "1");
    EXPECT_FALSE(registry->registerCreator(static_cast<IPluginCreatorInterface&>(longName), ""));
    EXPECT_TRUE(logger.has(Severity::kERROR, "at most 1023"));

    UnknownKindCreator unknown;
    EXPECT_FALSE(registry->registerCreator(unknown, ""));
    EXPECT_TRUE(logger.has(Severity::kERROR, "PLUGIN CREATOR_V9"));

    int32_t count = -1;
    EXPECT_EQ(registry->getAllCreators(&count), nullptr);
    EXPECT_EQ(count, 0);
}

TEST(PluginRegistryTest, CreatorThatThrowsIsReportedNotPropagated)
{
    CapturingLogger logger;
    RecordingErrorRecorder recorder;
    auto registry = makeRegistry(logger);
    registry->setErrorRecorder(&recorder);
    LookalikeThrowingCreator lookalike;
    // The registry sees the lookalike only through the vtable, as it would see a foreign library's object.
    void* foreign = &lookalike;
    auto& creator = *static_cast<IPluginCreatorInterface*>(foreign);

    EXPECT_FALSE(registry->registerCreator(creator, ""));
    EXPECT_TRUE(logger.has(Severity::kERROR, "getPluginName exploded")) << logger.dump(Severity::kERROR);
    EXPECT_EQ(recorder.getNbErrors(), 1);
    registry->setErrorRecorder(nullptr);
}

TEST(PluginRegistryTest, NullLookupArgumentsAreErrors)
{
    CapturingLogger logger;
    auto registry = makeRegistry(logger);
    EXPECT_EQ(registry->getCreator(nullptr, "1", ""), nullptr);
    EXPECT_EQ(registry->getPluginCreator("x", nullptr, ""), nullptr);
    EXPECT_TRUE(logger.has(Severity::kERROR, "must not be null"));
    EXPECT_EQ(registry->getAllCreators(nullptr), nullptr);
    EXPECT_EQ(registry->getPluginCreatorList(nullptr), nullptr);
    EXPECT_EQ(registry->getAllCreatorsRecursive(nullptr), nullptr);
}

TEST(PluginRegistryTest, MissLogsCreatorsWithTheSameName)
{
    CapturingLogger logger;
    auto registry = makeRegistry(logger);
    ToyV3Creator v1("Missing", "1", "");
    ToyV3Creator v3("Missing", "3", "vendor");
    ASSERT_TRUE(registry->registerCreator(static_cast<IPluginCreatorInterface&>(v1), ""));
    ASSERT_TRUE(registry->registerCreator(static_cast<IPluginCreatorInterface&>(v3), ""));

    EXPECT_EQ(registry->getCreator("Missing", "2", ""), nullptr);
    EXPECT_TRUE(logger.has(Severity::kVERBOSE, "No plugin creator found for plugin 'Missing' version '2' namespace ''"))
        << logger.dump(Severity::kVERBOSE);
    EXPECT_TRUE(logger.has(Severity::kVERBOSE, "version '1' namespace ''"));
    EXPECT_TRUE(logger.has(Severity::kVERBOSE, "version '3' namespace 'vendor'"));

    EXPECT_EQ(registry->getCreator("Absent", "1", ""), nullptr);
    EXPECT_TRUE(logger.has(Severity::kVERBOSE, "No creator named 'Absent' is registered"));
}

TEST(PluginRegistryTest, GetAllCreatorsCounts)
{
    CapturingLogger logger;
    auto registry = makeRegistry(logger);
    ToyV1Creator a("A", "1");
    ToyV1Creator b("B", "1");
    ToyV3Creator c("C", "1");

    int32_t count = -1;
    EXPECT_EQ(registry->getAllCreators(&count), nullptr);
    EXPECT_EQ(count, 0);
    EXPECT_EQ(registry->getPluginCreatorList(&count), nullptr);
    EXPECT_EQ(count, 0);

    ASSERT_TRUE(registry->registerCreator(a, ""));
    ASSERT_TRUE(registry->registerCreator(b, ""));
    ASSERT_TRUE(registry->registerCreator(static_cast<IPluginCreatorInterface&>(c), ""));

    IPluginCreatorInterface* const* all = registry->getAllCreators(&count);
    ASSERT_EQ(count, 3);
    ASSERT_NE(all, nullptr);
    EXPECT_EQ(all[0], &a);
    EXPECT_EQ(all[1], &b);
    EXPECT_EQ(all[2], &c);

    IPluginCreator* const* v1s = registry->getPluginCreatorList(&count);
    ASSERT_EQ(count, 2);
    EXPECT_EQ(v1s[0], &a);
    EXPECT_EQ(v1s[1], &b);

    ASSERT_TRUE(registry->deregisterCreator(a));
    registry->getAllCreators(&count);
    EXPECT_EQ(count, 2);
    registry->getPluginCreatorList(&count);
    EXPECT_EQ(count, 1);
}

// ---------------------------------------------------------------------------------------------------------------
// Parent search
// ---------------------------------------------------------------------------------------------------------------

TEST(PluginRegistryTest, ParentSearchCanBeSwitchedOff)
{
    CapturingLogger logger;
    auto parent = makeRegistry(logger);
    auto child = makeRegistry(logger, parent.get());
    ToyV3Creator inParent("Inherited", "1");
    ToyV1Creator v1InParent("InheritedV1", "1");
    ToyV3Creator inChild("Own", "1");
    ASSERT_TRUE(parent->registerCreator(static_cast<IPluginCreatorInterface&>(inParent), ""));
    ASSERT_TRUE(parent->registerCreator(v1InParent, ""));
    ASSERT_TRUE(child->registerCreator(static_cast<IPluginCreatorInterface&>(inChild), ""));

    EXPECT_TRUE(child->isParentSearchEnabled());
    EXPECT_EQ(child->getCreator("Inherited", "1", ""), &inParent);
    EXPECT_EQ(child->getPluginCreator("InheritedV1", "1", ""), &v1InParent);
    EXPECT_EQ(child->getCreator("Own", "1", ""), &inChild);
    EXPECT_EQ(parent->getCreator("Own", "1", ""), nullptr); // lookups never go down

    int32_t count = 0;
    child->getAllCreators(&count);
    EXPECT_EQ(count, 1);
    child->getAllCreatorsRecursive(&count);
    EXPECT_EQ(count, 3);

    child->setParentSearchEnabled(false);
    EXPECT_FALSE(child->isParentSearchEnabled());
    EXPECT_EQ(child->getCreator("Inherited", "1", ""), nullptr);
    EXPECT_TRUE(logger.has(Severity::kVERBOSE, "(parent search disabled)")) << logger.dump(Severity::kVERBOSE);
    EXPECT_EQ(child->getCreator("Own", "1", ""), &inChild);
    child->getAllCreatorsRecursive(&count);
    EXPECT_EQ(count, 1);

    child->setParentSearchEnabled(true);
    EXPECT_EQ(child->getCreator("Inherited", "1", ""), &inParent);
}

TEST(PluginRegistryTest, LocalCreatorShadowsParentCreator)
{
    CapturingLogger logger;
    auto parent = makeRegistry(logger);
    auto child = makeRegistry(logger, parent.get());
    ToyV3Creator up("Shadowed", "1");
    ToyV3Creator down("Shadowed", "1");
    ASSERT_TRUE(parent->registerCreator(static_cast<IPluginCreatorInterface&>(up), ""));
    // A local registry is a separate key space: the same key may be registered again there.
    ASSERT_TRUE(child->registerCreator(static_cast<IPluginCreatorInterface&>(down), ""));
    EXPECT_EQ(child->getCreator("Shadowed", "1", ""), &down);
    EXPECT_EQ(parent->getCreator("Shadowed", "1", ""), &up);

    int32_t count = 0;
    IPluginCreatorInterface* const* all = child->getAllCreatorsRecursive(&count);
    ASSERT_EQ(count, 1);
    EXPECT_EQ(all[0], &down);
}

TEST(PluginRegistryTest, MissInChildListsParentCandidates)
{
    CapturingLogger logger;
    auto parent = makeRegistry(logger);
    auto child = kiln::createLocalRegistry(parent.get(), &logger, "the child registry");
    ToyV3Creator up("Versioned", "7", "up");
    ASSERT_TRUE(parent->registerCreator(static_cast<IPluginCreatorInterface&>(up), ""));
    EXPECT_EQ(child->getCreator("Versioned", "1", ""), nullptr);
    EXPECT_TRUE(logger.has(Severity::kVERBOSE, "in the child registry or its parent")) << logger.dump(Severity::kVERBOSE);
    EXPECT_TRUE(logger.has(Severity::kVERBOSE, "version '7' namespace 'up'"));
}

TEST(PluginRegistryTest, RegisterMacroRegistersInGlobalRegistryAtStaticInit)
{
    IPluginCreatorInterface* creator = getPluginRegistry()->getCreator("KilnRegistryTestStaticPlugin", "1", "");
    ASSERT_NE(creator, nullptr);
    EXPECT_STREQ(creator->getInterfaceInfo().kind, "PLUGIN CREATOR_V3ONE");

    // A builder-style local registry sees it through parent search.
    CapturingLogger logger;
    auto local = kiln::createLocalRegistry(getPluginRegistry(), &logger);
    EXPECT_EQ(local->getCreator("KilnRegistryTestStaticPlugin", "1", ""), creator);
    int32_t count = 0;
    IPluginCreatorInterface* const* all = local->getAllCreatorsRecursive(&count);
    EXPECT_THAT(std::vector<IPluginCreatorInterface*>(all, all + count), ::testing::Contains(creator));
}

TEST(PluginRegistryTest, GlobalEntryPoints)
{
    CapturingLogger logger;
    GlobalLoggerScope scope(&logger);
    EXPECT_EQ(getLogger(), &logger);
    EXPECT_EQ(getPluginRegistry(), &kiln::globalPluginRegistry());
    EXPECT_EQ(getBuilderPluginRegistry(EngineCapability::kSTANDARD), getPluginRegistry());
    EXPECT_EQ(getBuilderPluginRegistry(EngineCapability::kSAFETY), nullptr);
    EXPECT_TRUE(logger.has(Severity::kERROR, "only EngineCapability::kSTANDARD")) << logger.dump(Severity::kERROR);

    EXPECT_TRUE(setInternalLibraryPath("/opt/kiln/internal"));
    EXPECT_EQ(kiln::internalLibraryPath(), "/opt/kiln/internal");
    EXPECT_TRUE(setInternalLibraryPath(""));
    EXPECT_EQ(kiln::internalLibraryPath(), "");
    EXPECT_FALSE(setInternalLibraryPath(nullptr));

    // unsetRegistryLogger clears only its own logger.
    CapturingLogger other;
    kiln::unsetRegistryLogger(&other);
    EXPECT_EQ(getLogger(), &logger);
    kiln::unsetRegistryLogger(&logger);
    EXPECT_EQ(getLogger(), nullptr);
}

TEST(PluginRegistryTest, GlobalRegistryLogsThroughTheRegistryLogger)
{
    CapturingLogger logger;
    GlobalLoggerScope scope(&logger);
    ToyV3Creator creator("KilnRegistryTestGlobal", "1", "kilnTest");
    IPluginRegistry* global = getPluginRegistry();
    ASSERT_TRUE(global->registerCreator(static_cast<IPluginCreatorInterface&>(creator), ""));
    EXPECT_TRUE(logger.has(Severity::kVERBOSE, "in the global plugin registry"));
    EXPECT_FALSE(global->registerCreator(static_cast<IPluginCreatorInterface&>(creator), ""));
    EXPECT_TRUE(logger.has(Severity::kERROR, "already registered"));
    EXPECT_TRUE(global->deregisterCreator(static_cast<IPluginCreatorInterface const&>(creator)));
}

TEST(PluginRegistryTest, InitLibNvInferPluginsRegistersPerNamespace)
{
    CapturingLogger logger;
    GlobalLoggerScope scope(&logger);
    IPluginRegistry* global = getPluginRegistry();
    ASSERT_TRUE(initLibNvInferPlugins(&logger, ""));
    IPluginCreatorInterface* plain = global->getCreator("LReLU_TRT", "1", "");
    ASSERT_NE(plain, nullptr) << logger.dump(Severity::kERROR);
    EXPECT_STREQ(plain->getInterfaceInfo().kind, "PLUGIN CREATOR_V1");
    EXPECT_EQ(global->getPluginCreator("LReLU_TRT", "1", ""), plain);

    // A second call with the same namespace succeeds and changes nothing; nullptr means "".
    EXPECT_TRUE(initLibNvInferPlugins(&logger, ""));
    EXPECT_TRUE(initLibNvInferPlugins(nullptr, nullptr));
    EXPECT_EQ(global->getCreator("LReLU_TRT", "1", ""), plain);

    // Another namespace gets its own creator, kept apart from the first.
    ASSERT_TRUE(initLibNvInferPlugins(&logger, "kilnRegistryTestNs"));
    IPluginCreatorInterface* spaced = global->getCreator("LReLU_TRT", "1", "kilnRegistryTestNs");
    ASSERT_NE(spaced, nullptr);
    EXPECT_NE(spaced, plain);
    EXPECT_STREQ(static_cast<IPluginCreator*>(spaced)->getPluginNamespace(), "kilnRegistryTestNs");
    EXPECT_STREQ(static_cast<IPluginCreator*>(plain)->getPluginNamespace(), "");
    EXPECT_EQ(logger.dump(Severity::kERROR), "");
}

// ---------------------------------------------------------------------------------------------------------------
// Error recorder
// ---------------------------------------------------------------------------------------------------------------

TEST(PluginRegistryTest, ErrorRecorderIsReferenceCountedAndReceivesErrors)
{
    CapturingLogger logger;
    RecordingErrorRecorder first;
    RecordingErrorRecorder second;
    {
        auto registry = makeRegistry(logger);
        EXPECT_EQ(registry->getErrorRecorder(), nullptr);
        registry->setErrorRecorder(&first);
        EXPECT_EQ(first.refs(), 1);
        EXPECT_EQ(registry->getErrorRecorder(), &first);

        EXPECT_EQ(registry->releasePluginResource("nothing"), -1);
        ASSERT_EQ(first.getNbErrors(), 1);
        EXPECT_THAT(first.getErrorDesc(0), HasSubstr("no resource is registered under key 'nothing'"));

        registry->setErrorRecorder(&second);
        EXPECT_EQ(first.refs(), 0);
        EXPECT_EQ(second.refs(), 1);
    }
    // Destroying the registry drops its reference.
    EXPECT_EQ(second.refs(), 0);
}

// ---------------------------------------------------------------------------------------------------------------
// Shared resources
// ---------------------------------------------------------------------------------------------------------------

TEST(PluginRegistryTest, ResourcesAreClonedOnceAndReleasedAtZero)
{
    CapturingLogger logger;
    auto registry = makeRegistry(logger);
    ResourceCounters counters;
    ToyResource original(counters);

    IPluginResource* first = registry->acquirePluginResource("shared", &original);
    ASSERT_NE(first, nullptr);
    EXPECT_NE(first, &original);
    EXPECT_TRUE(static_cast<ToyResource*>(first)->isClone());
    EXPECT_EQ(counters.clones.load(), 1);

    ToyResource another(counters);
    IPluginResource* second = registry->acquirePluginResource("shared", &another);
    EXPECT_EQ(second, first);
    EXPECT_EQ(counters.clones.load(), 1);

    EXPECT_EQ(registry->releasePluginResource("shared"), 0);
    EXPECT_EQ(counters.releases.load(), 0);
    EXPECT_EQ(counters.destroyed.load(), 0);
    EXPECT_EQ(registry->releasePluginResource("shared"), 0);
    EXPECT_EQ(counters.releases.load(), 1);
    EXPECT_EQ(counters.destroyed.load(), 1);

    EXPECT_EQ(registry->releasePluginResource("shared"), -1);
    EXPECT_TRUE(logger.has(Severity::kERROR, "no resource is registered under key 'shared'"));

    EXPECT_EQ(registry->acquirePluginResource(nullptr, &original), nullptr);
    EXPECT_EQ(registry->acquirePluginResource("k", nullptr), nullptr);
    EXPECT_EQ(registry->releasePluginResource(nullptr), -1);
}

TEST(PluginRegistryTest, ResourcesLeftAtDestructionAreReleased)
{
    CapturingLogger logger;
    ResourceCounters counters;
    ToyResource original(counters);
    {
        auto registry = makeRegistry(logger);
        ASSERT_NE(registry->acquirePluginResource("a", &original), nullptr);
        ASSERT_NE(registry->acquirePluginResource("b", &original), nullptr);
        EXPECT_EQ(registry->releasePluginResource("a"), 0);
    }
    EXPECT_EQ(counters.clones.load(), 2);
    EXPECT_EQ(counters.releases.load(), 2);
    EXPECT_EQ(counters.destroyed.load(), 2);
}

TEST(PluginRegistryTest, ConcurrentResourceAcquisitionKeepsOneClone)
{
    CapturingLogger logger;
    auto registry = makeRegistry(logger);
    ResourceCounters counters;
    ToyResource original(counters);
    constexpr int32_t kTHREADS = 8;
    std::vector<IPluginResource*> seen(kTHREADS, nullptr);
    std::vector<std::thread> threads;
    for (int32_t t = 0; t < kTHREADS; ++t)
    {
        threads.emplace_back([&, t] { seen[t] = registry->acquirePluginResource("contended", &original); });
    }
    for (auto& th : threads)
    {
        th.join();
    }
    for (auto* r : seen)
    {
        EXPECT_EQ(r, seen[0]);
    }
    // Clones made by losing threads were released and deleted again.
    EXPECT_EQ(counters.clones.load() - counters.destroyed.load(), 1);
    for (int32_t t = 0; t < kTHREADS; ++t)
    {
        EXPECT_EQ(registry->releasePluginResource("contended"), 0);
    }
    EXPECT_EQ(counters.clones.load(), counters.destroyed.load());
}

// ---------------------------------------------------------------------------------------------------------------
// Thread safety
// ---------------------------------------------------------------------------------------------------------------

TEST(PluginRegistryTest, ConcurrentRegistrationAndLookup)
{
    CapturingLogger logger;
    auto parent = makeRegistry(logger);
    auto registry = makeRegistry(logger, parent.get());
    constexpr int32_t kTHREADS = 8;
    constexpr int32_t kPER_THREAD = 40;
    std::vector<std::vector<std::unique_ptr<ToyV3Creator>>> creators(kTHREADS);
    std::vector<std::vector<std::unique_ptr<ToyV1Creator>>> v1Creators(kTHREADS);
    for (int32_t t = 0; t < kTHREADS; ++t)
    {
        for (int32_t i = 0; i < kPER_THREAD; ++i)
        {
            creators[t].push_back(std::make_unique<ToyV3Creator>(
                "Thread" + std::to_string(t) + "_" + std::to_string(i), "1", "ns" + std::to_string(t % 3)));
            v1Creators[t].push_back(
                std::make_unique<ToyV1Creator>("ThreadV1_" + std::to_string(t) + "_" + std::to_string(i), "1"));
        }
    }
    std::atomic<int32_t> failures{0};
    std::vector<std::thread> threads;
    for (int32_t t = 0; t < kTHREADS; ++t)
    {
        threads.emplace_back([&, t] {
            for (int32_t i = 0; i < kPER_THREAD; ++i)
            {
                auto& c = *creators[t][i];
                auto& v1 = *v1Creators[t][i];
                if (!registry->registerCreator(static_cast<IPluginCreatorInterface&>(c), "")
                    || !registry->registerCreator(v1, "v1"))
                {
                    ++failures;
                }
                if (registry->getCreator(c.getPluginName(), "1", c.getPluginNamespace()) != &c
                    || registry->getPluginCreator(v1.getPluginName(), "1", "v1") != &v1)
                {
                    ++failures;
                }
                int32_t count = 0;
                registry->getAllCreators(&count);
                registry->getAllCreatorsRecursive(&count);
                if (registry->getCreator("NoSuchPlugin", "1", "") != nullptr)
                {
                    ++failures;
                }
            }
            for (int32_t i = 0; i < kPER_THREAD; i += 2)
            {
                if (!registry->deregisterCreator(static_cast<IPluginCreatorInterface const&>(*creators[t][i])))
                {
                    ++failures;
                }
            }
        });
    }
    for (auto& th : threads)
    {
        th.join();
    }
    EXPECT_EQ(failures.load(), 0) << logger.dump(Severity::kERROR);
    int32_t count = 0;
    registry->getAllCreators(&count);
    EXPECT_EQ(count, kTHREADS * (kPER_THREAD + kPER_THREAD / 2));
    registry->getPluginCreatorList(&count);
    EXPECT_EQ(count, kTHREADS * kPER_THREAD);
}

TEST(PluginRegistryTest, ConcurrentDuplicateRegistrationHasOneWinner)
{
    CapturingLogger logger;
    auto registry = makeRegistry(logger);
    constexpr int32_t kTHREADS = 8;
    std::vector<std::unique_ptr<ToyV3Creator>> creators;
    for (int32_t t = 0; t < kTHREADS; ++t)
    {
        creators.push_back(std::make_unique<ToyV3Creator>("Contended", "1"));
    }
    std::atomic<int32_t> winners{0};
    std::vector<std::thread> threads;
    for (int32_t t = 0; t < kTHREADS; ++t)
    {
        threads.emplace_back([&, t] {
            if (registry->registerCreator(static_cast<IPluginCreatorInterface&>(*creators[t]), ""))
            {
                ++winners;
            }
        });
    }
    for (auto& th : threads)
    {
        th.join();
    }
    EXPECT_EQ(winners.load(), 1);
    int32_t count = 0;
    registry->getAllCreators(&count);
    EXPECT_EQ(count, 1);
}

// ---------------------------------------------------------------------------------------------------------------
// Plugin libraries
// ---------------------------------------------------------------------------------------------------------------

TEST(PluginRegistryTest, LoadLibraryRegistersItsCreators)
{
    CapturingLogger logger;
    auto registry = makeRegistry(logger);
    std::string const path = libraryPath("kilnToyPluginsV3");

    IPluginRegistry::PluginLibraryHandle handle = registry->loadLibrary(path.c_str());
    ASSERT_NE(handle, nullptr) << logger.dump(Severity::kERROR);
    IPluginCreatorInterface* creator = registry->getCreator("ToyLibraryPlugin", "1", "toylib");
    ASSERT_NE(creator, nullptr);
    EXPECT_STREQ(creator->getInterfaceInfo().kind, "PLUGIN CREATOR_V3ONE");
    // setLoggerFinder() was called and its finder led the library to this registry's logger.
    EXPECT_TRUE(logger.has(Severity::kINFO, "toy plugin library: logger found")) << logger.dump(Severity::kINFO);
    EXPECT_TRUE(logger.has(Severity::kVERBOSE, "Loaded plugin library"));

    // Loading it again fails: its plugins are registered already.
    EXPECT_EQ(registry->loadLibrary(path.c_str()), nullptr);
    EXPECT_TRUE(logger.has(Severity::kERROR, "already")) << logger.dump(Severity::kERROR);
    EXPECT_EQ(registry->getCreator("ToyLibraryPlugin", "1", "toylib"), creator);

    registry->deregisterLibrary(handle);
    EXPECT_EQ(registry->getCreator("ToyLibraryPlugin", "1", "toylib"), nullptr);
    int32_t count = -1;
    registry->getAllCreators(&count);
    EXPECT_EQ(count, 0);

    // A handle that was deregistered already is refused.
    logger.clear();
    registry->deregisterLibrary(handle);
    EXPECT_TRUE(logger.has(Severity::kERROR, "not a handle returned by loadLibrary()")) << logger.dump(Severity::kERROR);

    // And the library can be loaded again afterwards.
    handle = registry->loadLibrary(path.c_str());
    ASSERT_NE(handle, nullptr);
    registry->deregisterLibrary(handle);
}

TEST(PluginRegistryTest, LoadLibraryAcceptsTheOlderGetPluginCreators)
{
    CapturingLogger logger;
    auto registry = makeRegistry(logger);
    std::string const path = libraryPath("kilnToyPluginsV1");
    IPluginRegistry::PluginLibraryHandle handle = registry->loadLibrary(path.c_str());
    ASSERT_NE(handle, nullptr) << logger.dump(Severity::kERROR);
    EXPECT_NE(registry->getPluginCreator("ToyLibraryPluginV1", "2", ""), nullptr);
    EXPECT_TRUE(logger.has(Severity::kVERBOSE, "getPluginCreators()"));
    registry->deregisterLibrary(handle);
    EXPECT_EQ(registry->getPluginCreator("ToyLibraryPluginV1", "2", ""), nullptr);
}

TEST(PluginRegistryTest, LoadLibraryFailsIfAnyCreatorIsRegistered)
{
    CapturingLogger logger;
    auto registry = makeRegistry(logger);
    ToyV3Creator squatter("ToyLibraryPlugin", "1", "toylib");
    ASSERT_TRUE(registry->registerCreator(static_cast<IPluginCreatorInterface&>(squatter), ""));
    std::string const path = libraryPath("kilnToyPluginsV3");

    EXPECT_EQ(registry->loadLibrary(path.c_str()), nullptr);
    EXPECT_TRUE(logger.has(Severity::kERROR, "were registered")) << logger.dump(Severity::kERROR);
    EXPECT_EQ(registry->getCreator("ToyLibraryPlugin", "1", "toylib"), &squatter);

    ASSERT_TRUE(registry->deregisterCreator(static_cast<IPluginCreatorInterface const&>(squatter)));
    IPluginRegistry::PluginLibraryHandle handle = registry->loadLibrary(path.c_str());
    ASSERT_NE(handle, nullptr);
    registry->deregisterLibrary(handle);
}

TEST(PluginRegistryTest, LoadLibraryReportsAMissingFile)
{
    CapturingLogger logger;
    RecordingErrorRecorder recorder;
    auto registry = makeRegistry(logger);
    registry->setErrorRecorder(&recorder);
    std::string const path = libraryPath("kilnNoSuchLibrary");
    EXPECT_EQ(registry->loadLibrary(path.c_str()), nullptr);
    // The dlerror() text names the file and the reason.
    EXPECT_TRUE(logger.has(Severity::kERROR, "dlopen failed")) << logger.dump(Severity::kERROR);
    EXPECT_TRUE(logger.has(Severity::kERROR, "No such file or directory"));
    EXPECT_EQ(recorder.getNbErrors(), 1);

    EXPECT_EQ(registry->loadLibrary(nullptr), nullptr);
    EXPECT_EQ(registry->loadLibrary(""), nullptr);
    registry->setErrorRecorder(nullptr);
}

TEST(PluginRegistryTest, LoadLibraryRefusesALibraryWithoutEntryPoints)
{
    CapturingLogger logger;
    auto registry = makeRegistry(logger);
    std::string const path = libraryPath("kilnToyNoEntry");
    EXPECT_EQ(registry->loadLibrary(path.c_str()), nullptr);
    EXPECT_TRUE(logger.has(Severity::kERROR, "exports neither getCreators() nor getPluginCreators()"))
        << logger.dump(Severity::kERROR);
}

TEST(PluginRegistryTest, DeregisterLibraryRejectsUnknownHandles)
{
    CapturingLogger logger;
    auto registry = makeRegistry(logger);
    registry->deregisterLibrary(nullptr);
    EXPECT_TRUE(logger.has(Severity::kERROR, "the handle is null"));
    int32_t dummy = 0;
    registry->deregisterLibrary(&dummy);
    EXPECT_TRUE(logger.has(Severity::kERROR, "not a handle returned by loadLibrary()"));
}

} // namespace

KILN_IGNORE_DEPRECATED_END
