// PluginChecker: walks one plugin through the lifecycle the builder and the runtime use and records every broken
// rule of the plugin contract in a CheckReport. The objects mirror TensorRT's:
//   original  createPlugin(fields)                   (the application's object)
//   network   original.clone()                       (what addPluginV2/addPluginV3 keeps)
//   builder   network.clone()                        (clone per build: negotiation, configure, workspace, serialize)
//   copy      builder.clone() after configure        (must be a full copy of the configured plugin)
//   engine    creator.deserialize(builder bytes)     (deserializePlugin / createPlugin(kRUNTIME))
//   context   engine.attachToContext()               (per execution context: configure at real shapes, enqueue)
// Static rules run for every plugin; execution rules only for plugins that opted into the CPU backend.
#pragma once

#include "core/logging.h"
#include "kiln/KilnPluginChecker.h"
#include "plugin/checker/checkCreator.h"
#include "plugin/checker/checkFormats.h"
#include "plugin/checker/checkReport.h"
#include "plugin/checker/checkResources.h"
#include "plugin/checker/checkRuns.h"
#include "plugin/checker/checkShapes.h"
#include "plugin/checker/checkSpec.h"

#include <memory>
#include <string>
#include <vector>

namespace kiln::checker
{

class PluginChecker
{
public:
    PluginChecker(nvinfer1::IPluginRegistry& registry, PluginCheckRequest const& request, Logger const& logger,
        CheckReport& report);
    ~PluginChecker();
    PluginChecker(PluginChecker const&) = delete;
    PluginChecker& operator=(PluginChecker const&) = delete;

    //! Run every stage; never throws.
    void run() noexcept;

private:
    bool prepare();
    bool staticStage();
    bool buildStage();
    void executionStage();

    //! Log the step about to run at kVERBOSE ("plugin check: ..."), so that the lifecycle trace can be followed.
    void step(std::string const& what) const;
    //! Adds a call-failed finding for a failed status (with the step in brackets); returns status.isOk().
    bool ok(Status const& status, std::string const& step);
    void checkIdentity(PluginAdapter const& plugin, std::string const& which);
    void compareStatic(ShapeModel const& model, int32_t nbOutputs, std::string const& which);
    bool makeSetup(ShapeSet set, RunSetup& setup);
    Status reconfigure(PluginAdapter& plugin, RunSetup const& setup);
    //! Reference run of one object (poison 0): configure at the main shapes, enqueue. False when it failed.
    bool referenceRun(PluginAdapter& plugin, std::string const& which, RunResult& out);
    //! Outputs of the created plugin, the builder's copy, its configured clone and the engine's object.
    struct References
    {
        bool haveOriginal{false};
        bool haveBuilder{false};
        bool haveCopy{false};
        bool haveEngine{false};
        RunResult original;
        RunResult builder;
        RunResult copy;
        RunResult engine;
    };
    References referenceRuns(int32_t tactic);
    void compareReferences(References const& refs, PluginAdapter const& context, RunResult const& first);
    //! The execution context's runs for one tactic; returns the first run and whether runs were deterministic.
    bool contextRuns(PluginAdapter& context, std::string const& tactic, RunResult& first, bool& deterministic);
    void repeatedConfigure(PluginAdapter& context, std::string const& tactic, RunResult const& first,
        bool deterministic);
    void skipExecutionRules(std::string const& reason);

    nvinfer1::IPluginRegistry& mRegistry;
    PluginCheckRequest const& mRequest;
    Logger const& mLogger;
    CheckReport& mReport;

    CheckSpec mSpec;
    CreatorRef mCreator;
    std::unique_ptr<PluginAdapter> mOriginal;
    std::unique_ptr<PluginAdapter> mNetwork;
    std::unique_ptr<PluginAdapter> mBuilder;
    std::unique_ptr<PluginAdapter> mCopy;
    std::unique_ptr<PluginAdapter> mEngine;
    std::unique_ptr<ShapeModel> mOriginalShapes;
    std::unique_ptr<ShapeModel> mBuilderShapes;
    CheckResources mResources;

    int32_t mNbOutputs{0};
    bool mV3{false};
    Negotiation mNegotiation;
    std::vector<nvinfer1::DataType> mOutputTypes;
    size_t mWorkspace{0};
    std::vector<int32_t> mAliases;
    std::vector<int32_t> mTactics;
    std::string mSerialized;
    bool mBuilderInitialized{false};
    bool mEngineInitialized{false};
    RunSetup mMain;
    RunSetup mAlt;
};

} // namespace kiln::checker
