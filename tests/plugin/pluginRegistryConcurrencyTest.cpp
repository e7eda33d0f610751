// Thread-safety tests of Kiln's IPluginRegistry: many threads registering, deregistering and looking up distinct
// and identical creators (of both generations) at once, and loading/unloading plugin libraries concurrently into
// shared and private registries. Each test checks invariants that any interleaving must keep.
#include "NvInfer.h"
#include "plugin/pluginRegistry.h"
#include "registryTestHelpers.h"

#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

KILN_IGNORE_DEPRECATED_BEGIN

namespace
{
using namespace nvinfer1;
using namespace kiln::registry_test;

constexpr int32_t kTHREADS = 8;

//! Runs `body(threadIndex)` on kTHREADS threads that start together.
template <typename Body>
void runTogether(Body body)
{
    std::atomic<int32_t> ready{0};
    std::vector<std::thread> threads;
    for (int32_t t = 0; t < kTHREADS; ++t)
    {
        threads.emplace_back([&, t] {
            ++ready;
            while (ready.load() < kTHREADS)
            {
                std::this_thread::yield();
            }
            body(t);
        });
    }
    for (auto& th : threads)
    {
        th.join();
    }
}

// Every thread owns one creator object per shared key and races the others to register it. The key then belongs
// to the winner until the winner deregisters it, so while a thread holds a key every lookup must return exactly its
// creator; lookups by anyone else return nullptr or one of the key's candidates. Threads also register and
// deregister keys of their own, and everyone registers one shared *object* (the same creator instance).
TEST(PluginRegistryConcurrencyTest, RegisterDeregisterAndLookupDistinctAndIdenticalCreators)
{
    CapturingLogger logger;
    auto parent = makeRegistry(logger);
    auto registry = makeRegistry(logger, parent.get());
    constexpr int32_t kKEYS = 4;
    constexpr int32_t kROUNDS = 300;

    // candidates[k][t]: thread t's creator for shared key k (V3 for even keys, V1 for odd ones).
    std::vector<std::vector<std::unique_ptr<IPluginCreatorInterface>>> candidates(kKEYS);
    for (int32_t k = 0; k < kKEYS; ++k)
    {
        for (int32_t t = 0; t < kTHREADS; ++t)
        {
            std::string const name = "Shared" + std::to_string(k);
            if (k % 2 == 0)
            {
                candidates[k].push_back(std::make_unique<ToyV3Creator>(name, "1", "shared"));
            }
            else
            {
                candidates[k].push_back(std::make_unique<ToyV1Creator>(name, "1"));
            }
        }
    }
    auto isCandidate = [&](int32_t k, IPluginCreatorInterface const* c) {
        for (auto const& candidate : candidates[k])
        {
            if (candidate.get() == c)
            {
                return true;
            }
        }
        return false;
    };
    // A parent creator with a shared key's name but another version: never returned for version "1".
    ToyV3Creator parentDecoy("Shared0", "2", "shared");
    ASSERT_TRUE(parent->registerCreator(static_cast<IPluginCreatorInterface&>(parentDecoy), ""));
    ToyV3Creator sameObject("SameObject", "1", "shared");

    std::vector<std::vector<std::unique_ptr<ToyV3Creator>>> own(kTHREADS);
    for (int32_t t = 0; t < kTHREADS; ++t)
    {
        for (int32_t i = 0; i < 8; ++i)
        {
            own[t].push_back(std::make_unique<ToyV3Creator>(
                "Own" + std::to_string(t) + "_" + std::to_string(i), "1", "own"));
        }
    }

    std::atomic<int32_t> violations{0};
    std::atomic<int32_t> registrations{0};
    std::atomic<int32_t> deregistrations{0};
    std::atomic<int32_t> sameObjectWins{0};
    runTogether([&](int32_t t) {
        std::mt19937 rng(1234U + static_cast<uint32_t>(t));
        for (int32_t round = 0; round < kROUNDS; ++round)
        {
            int32_t const k = static_cast<int32_t>(rng() % kKEYS);
            std::string const name = "Shared" + std::to_string(k);
            char const* const nspace = "shared";
            IPluginCreatorInterface& mine = *candidates[k][t];
            bool registered = false;
            if (k % 2 == 0)
            {
                registered = registry->registerCreator(mine, "");
            }
            else
            {
                registered = registry->registerCreator(static_cast<IPluginCreator&>(mine), nspace);
            }
            IPluginCreatorInterface* seen = registry->getCreator(name.c_str(), "1", nspace);
            if (registered)
            {
                ++registrations;
                // Nobody else can take or drop the key while we hold it.
                if (seen != &mine || registry->getCreator(name.c_str(), "1", nspace) != &mine)
                {
                    ++violations;
                }
                if (k % 2 == 1 && registry->getPluginCreator(name.c_str(), "1", nspace) != &mine)
                {
                    ++violations;
                }
                if (registry->deregisterCreator(static_cast<IPluginCreatorInterface const&>(mine)))
                {
                    ++deregistrations;
                }
                else
                {
                    ++violations;
                }
            }
            else if (seen != nullptr && !isCandidate(k, seen))
            {
                ++violations;
            }

            // The same creator object offered by everybody: at most one registration at a time.
            if (registry->registerCreator(static_cast<IPluginCreatorInterface&>(sameObject), ""))
            {
                if (sameObjectWins.fetch_add(1) != 0)
                {
                    ++violations; // two threads hold the same key at once
                }
                if (registry->getCreator("SameObject", "1", "shared") != &sameObject)
                {
                    ++violations;
                }
                sameObjectWins.fetch_sub(1);
                if (!registry->deregisterCreator(static_cast<IPluginCreatorInterface const&>(sameObject)))
                {
                    ++violations;
                }
            }

            // Keys of our own: always registrable, always found, always removable.
            ToyV3Creator& mineOnly = *own[t][static_cast<size_t>(round) % own[t].size()];
            if (!registry->registerCreator(static_cast<IPluginCreatorInterface&>(mineOnly), "")
                || registry->getCreator(mineOnly.getPluginName(), "1", "own") != &mineOnly
                || !registry->deregisterCreator(static_cast<IPluginCreatorInterface const&>(mineOnly)))
            {
                ++violations;
            }

            // Lists and parent search under contention (the arrays themselves may change under us; only the counts
            // are read, as TensorRT documents the arrays valid until the next change).
            int32_t count = -1;
            registry->getAllCreators(&count);
            if (count < 0)
            {
                ++violations;
            }
            registry->getAllCreatorsRecursive(&count);
            if (count < 1) // the parent's decoy is always there
            {
                ++violations;
            }
            if (registry->getCreator("Shared0", "2", "shared") != &parentDecoy)
            {
                ++violations;
            }
        }
    });

    EXPECT_EQ(violations.load(), 0) << logger.dump(Severity::kERROR);
    EXPECT_GT(registrations.load(), 0);
    EXPECT_EQ(registrations.load(), deregistrations.load());
    int32_t count = -1;
    registry->getAllCreators(&count);
    EXPECT_EQ(count, 0);
    registry->getPluginCreatorList(&count);
    EXPECT_EQ(count, 0);
    // How often a thread lost a race (depends on the scheduler; shown in the XML report, not asserted).
    ::testing::Test::RecordProperty("lostRaces", logger.count(Severity::kERROR, "already registered"));
    // A rejected V1 creator keeps the namespace it had; the winners' namespace is "shared".
    for (int32_t k = 1; k < kKEYS; k += 2)
    {
        for (auto const& c : candidates[k])
        {
            std::string const ns = static_cast<ToyV1Creator&>(*c).getPluginNamespace();
            EXPECT_TRUE(ns.empty() || ns == "shared") << ns;
        }
    }
    EXPECT_TRUE(parent->deregisterCreator(static_cast<IPluginCreatorInterface const&>(parentDecoy)));
}

// Threads load and unload the same plugin library at once: into a registry each (all must succeed every time, and
// the creator stays usable in the others while one unloads), and into one shared registry (one holder at a time).
TEST(PluginRegistryConcurrencyTest, LoadAndDeregisterLibrariesFromManyThreads)
{
    CapturingLogger logger;
    auto shared = makeRegistry(logger);
    std::string const path = libraryPath("kilnToyPluginsV3");
    std::string const v1Path = libraryPath("kilnToyPluginsV1");
    constexpr int32_t kROUNDS = 25;

    std::atomic<int32_t> violations{0};
    std::atomic<int32_t> sharedHolders{0};
    std::atomic<int32_t> sharedLoads{0};
    runTogether([&](int32_t t) {
        auto mine = kiln::createLocalRegistry(nullptr, &logger, "registry of thread " + std::to_string(t));
        for (int32_t round = 0; round < kROUNDS; ++round)
        {
            IPluginRegistry::PluginLibraryHandle handle = mine->loadLibrary(path.c_str());
            IPluginRegistry::PluginLibraryHandle v1Handle = mine->loadLibrary(v1Path.c_str());
            IPluginCreatorInterface* creator = mine->getCreator("ToyLibraryPlugin", "1", "toylib");
            if (handle == nullptr || v1Handle == nullptr || creator == nullptr
                || mine->getPluginCreator("ToyLibraryPluginV1", "2", "") == nullptr)
            {
                ++violations;
                continue;
            }
            // The library's code stays mapped while this registry holds it, whatever the others do.
            auto* v3 = static_cast<IPluginCreatorV3One*>(creator);
            if (std::string(v3->getPluginName()) != "ToyLibraryPlugin")
            {
                ++violations;
            }

            IPluginRegistry::PluginLibraryHandle sharedHandle = shared->loadLibrary(path.c_str());
            if (sharedHandle != nullptr)
            {
                ++sharedLoads;
                if (sharedHolders.fetch_add(1) != 0)
                {
                    ++violations;
                }
                if (shared->getCreator("ToyLibraryPlugin", "1", "toylib") == nullptr)
                {
                    ++violations;
                }
                sharedHolders.fetch_sub(1);
                shared->deregisterLibrary(sharedHandle);
            }

            mine->deregisterLibrary(handle);
            mine->deregisterLibrary(v1Handle);
            if (mine->getCreator("ToyLibraryPlugin", "1", "toylib") != nullptr)
            {
                ++violations;
            }
        }
    });
    EXPECT_EQ(violations.load(), 0) << logger.dump(Severity::kERROR);
    EXPECT_GT(sharedLoads.load(), 0);
    int32_t count = -1;
    shared->getAllCreators(&count);
    EXPECT_EQ(count, 0);
    EXPECT_TRUE(shared->findLibrary("libkilnToyPluginsV3.so").empty());
}

// Shared resources acquired and released in a storm: every acquirer of a key gets the same object while the key
// lives, and every clone the registry made is released and deleted exactly once.
TEST(PluginRegistryConcurrencyTest, ResourcesAcquiredAndReleasedFromManyThreads)
{
    CapturingLogger logger;
    auto registry = makeRegistry(logger);
    struct Counters
    {
        std::atomic<int32_t> clones{0};
        std::atomic<int32_t> releases{0};
        std::atomic<int32_t> deleted{0};
    } counters;
    class Resource final : public IPluginResource
    {
    public:
        explicit Resource(Counters& c, bool clone)
            : mCounters(c)
            , mClone(clone)
        {
        }
        ~Resource() noexcept override
        {
            if (mClone)
            {
                ++mCounters.deleted;
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
            return new Resource(mCounters, true);
        }

    private:
        Counters& mCounters;
        bool mClone;
    };
    Resource original(counters, false);
    constexpr int32_t kROUNDS = 200;
    std::atomic<int32_t> violations{0};
    runTogether([&](int32_t t) {
        for (int32_t round = 0; round < kROUNDS; ++round)
        {
            std::string const key = "key" + std::to_string((t + round) % 3);
            IPluginResource* a = registry->acquirePluginResource(key.c_str(), &original);
            IPluginResource* b = registry->acquirePluginResource(key.c_str(), &original);
            if (a == nullptr || a != b || a == &original)
            {
                ++violations;
            }
            if (registry->releasePluginResource(key.c_str()) != 0 || registry->releasePluginResource(key.c_str()) != 0)
            {
                ++violations;
            }
        }
    });
    EXPECT_EQ(violations.load(), 0) << logger.dump(Severity::kERROR);
    EXPECT_GT(counters.clones.load(), 0);
    EXPECT_EQ(counters.clones.load(), counters.deleted.load());
    EXPECT_EQ(counters.clones.load(), counters.releases.load());
}

} // namespace

KILN_IGNORE_DEPRECATED_END
