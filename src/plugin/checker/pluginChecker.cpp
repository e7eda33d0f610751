// PluginChecker: the static and build stages of the plugin contract check (see pluginChecker.h for the objects
// involved); the execution stage is in pluginCheckerRuns.cpp.
#include "plugin/checker/pluginChecker.h"

#include "core/dataType.h"

#include <algorithm>
#include <cstdio>
#include <exception>

namespace kiln::checker
{

using nvinfer1::DataType;
using nvinfer1::DynamicPluginTensorDesc;
using nvinfer1::PluginTensorDesc;

namespace
{

std::string quote(std::string const& s)
{
    return "'" + s + "'";
}

//! "first difference at byte 12 (0x01 vs 0x02), 40 vs 40 bytes" for two byte strings that differ.
std::string bytesDifference(std::string const& a, std::string const& b)
{
    size_t i = 0;
    while (i < a.size() && i < b.size() && a[i] == b[i])
    {
        ++i;
    }
    char at[96];
    if (i < a.size() && i < b.size())
    {
        std::snprintf(at, sizeof(at), "first difference at byte %zu (0x%02x vs 0x%02x)", i,
            static_cast<unsigned>(static_cast<uint8_t>(a[i])), static_cast<unsigned>(static_cast<uint8_t>(b[i])));
    }
    else
    {
        std::snprintf(at, sizeof(at), "one is a prefix of the other");
    }
    return std::string(at) + "; " + std::to_string(a.size()) + " vs " + std::to_string(b.size()) + " bytes";
}

std::string descsText(std::vector<PluginTensorDesc> const& descs)
{
    std::string text;
    for (size_t i = 0; i < descs.size(); ++i)
    {
        text += (i > 0 ? ", " : "") + descText(descs[i]);
    }
    return text.empty() ? "none" : text;
}

} // namespace

PluginChecker::PluginChecker(nvinfer1::IPluginRegistry& registry, PluginCheckRequest const& request,
    Logger const& logger, CheckReport& report)
    : mRegistry(registry)
    , mRequest(request)
    , mLogger(logger)
    , mReport(report)
{
}

PluginChecker::~PluginChecker()
{
    // Lifecycle end, in the runtime's order: engine terminate -> destroy, then the build-side objects.
    if (mEngine != nullptr && mEngineInitialized)
    {
        mEngine->terminate();
    }
    mEngine.reset();
    if (mBuilder != nullptr && mBuilderInitialized)
    {
        mBuilder->terminate();
    }
    mCopy.reset();
    mBuilder.reset();
    mNetwork.reset();
    mOriginal.reset();
}

void PluginChecker::step(std::string const& what) const
{
    mLogger.verbose("plugin check: " + what);
}

bool PluginChecker::ok(Status const& status, std::string const& step)
{
    if (status.isOk())
    {
        return true;
    }
    // The same failure of several copies of the plugin (e.g. every enqueue throwing) is reported once.
    mReport.addFinding(PluginCheckRules::kCALL_FAILED, status.message() + " [" + step + "]", status.message());
    return false;
}

void PluginChecker::run() noexcept
{
    try
    {
        if (prepare() && staticStage() && buildStage())
        {
            executionStage();
        }
    }
    catch (std::exception const& e)
    {
        mReport.addFinding(PluginCheckRules::kNOT_CHECKABLE, std::string("the checker stopped: ") + e.what());
    }
    catch (...)
    {
        mReport.addFinding(PluginCheckRules::kNOT_CHECKABLE, "the checker stopped on an unknown exception");
    }
}

// ---- Stage 1: request, creator, creation, clones ------------------------------------------------------------------

bool PluginChecker::prepare()
{
    auto spec = makeCheckSpec(mRequest);
    if (!spec.isOk())
    {
        mReport.addFinding(PluginCheckRules::kBAD_REQUEST, spec.status().message());
        return false;
    }
    mSpec = std::move(spec.value());
    if (!findCreator(mRegistry, mSpec, mCreator, mReport))
    {
        return false;
    }
    mReport.addSummaryLine("creator: " + mCreator.describe());

    step("createPlugin with the given fields (" + mCreator.describe() + ")");
    auto original = createFromFields(mCreator, mSpec, mLogger);
    if (!ok(original.status(), "creating the plugin from its fields"))
    {
        return false;
    }
    mOriginal = std::move(original.value());
    mV3 = mOriginal->generation() == PluginGeneration::kV3_ONE;
    mReport.addSummaryLine("plugin: " + mOriginal->label());
    if (!mSpec.shapeInputs.empty() && !mV3)
    {
        mReport.addFinding(PluginCheckRules::kBAD_REQUEST, "shape-input values were given, but "
            + mOriginal->label() + " is not an IPluginV3; only IPluginV3 plugins take shape inputs");
        return false;
    }
    bool const dynamic = mV3 || mOriginal->generation() == PluginGeneration::kV2_DYNAMIC_EXT;
    if (!mSpec.altShapes.empty() && !dynamic)
    {
        mReport.addNote(std::string("the alternative input shapes were not used: ")
            + pluginGenerationName(mOriginal->generation())
            + " has static shapes, so it is never configured at other shapes at run time");
        mSpec.altShapes.clear();
    }
    checkIdentity(*mOriginal, "the plugin returned by createPlugin");

    step("clone: the network's copy, then the builder's copy");
    auto network = mOriginal->clone();
    if (!ok(network.status(), "clone() of the created plugin (the network's copy)"))
    {
        return false;
    }
    mNetwork = std::move(network.value());
    mNetwork->setLayerName(mSpec.layerName);
    auto builder = mNetwork->clone();
    if (!ok(builder.status(), "clone() of the network's copy (the builder's copy)"))
    {
        return false;
    }
    mBuilder = std::move(builder.value());
    mBuilder->setLayerName(mSpec.layerName);
    return true;
}

void PluginChecker::checkIdentity(PluginAdapter const& plugin, std::string const& which)
{
    std::string const consequence = "; an engine records the plugin's own name, version and namespace and looks "
                                    "its creator up by them when it is loaded, so it would not find "
        + mCreator.describe();
    if (plugin.name() != mCreator.name)
    {
        mReport.addFinding(PluginCheckRules::kIDENTITY_MISMATCH, which + " reports the name " + quote(plugin.name())
            + " (getPluginType/getPluginName) but its creator's name is " + quote(mCreator.name) + consequence);
    }
    if (plugin.version() != mCreator.version)
    {
        mReport.addFinding(PluginCheckRules::kIDENTITY_MISMATCH, which + " (" + plugin.label()
            + ") reports the version " + quote(plugin.version()) + " but its creator's version is "
            + quote(mCreator.version) + consequence);
    }
    if (plugin.pluginNamespace() != mCreator.pluginNamespace)
    {
        mReport.addFinding(PluginCheckRules::kIDENTITY_MISMATCH, which + " (" + plugin.label()
            + ") reports the namespace " + quote(plugin.pluginNamespace()) + " but its creator is registered under "
            + quote(mCreator.pluginNamespace) + consequence);
    }
    mReport.markChecked(PluginCheckRules::kIDENTITY_MISMATCH);
}

// ---- Stage 2: outputs, shapes, types, formats -------------------------------------------------------------------

void PluginChecker::compareStatic(ShapeModel const& model, int32_t nbOutputs, std::string const& which)
{
    if (nbOutputs != mNbOutputs)
    {
        mReport.addFinding(PluginCheckRules::kCLONE_DIFFERS, which + " reports " + std::to_string(nbOutputs)
            + " outputs (getNbOutputs), the plugin it was cloned from " + std::to_string(mNbOutputs));
        return;
    }
    for (ShapeSet set : {ShapeSet::kMAIN, ShapeSet::kALTERNATIVE})
    {
        if (set == ShapeSet::kALTERNATIVE && !mOriginalShapes->hasAlternative())
        {
            break;
        }
        auto mine = model.outputUpperDims(set);
        auto theirs = mOriginalShapes->outputUpperDims(set);
        if (!mine.isOk() || !theirs.isOk())
        {
            ok(mine.isOk() ? theirs.status() : mine.status(), "evaluating the output shapes");
            return;
        }
        for (int32_t o = 0; o < nbOutputs; ++o)
        {
            nvinfer1::Dims const& a = mine.value()[static_cast<size_t>(o)];
            nvinfer1::Dims const& b = theirs.value()[static_cast<size_t>(o)];
            bool same = a.nbDims == b.nbDims && std::equal(a.d, a.d + std::max(a.nbDims, 0), b.d);
            if (!same || model.isSizeTensorOutput(o) != mOriginalShapes->isSizeTensorOutput(o))
            {
                mReport.addFinding(PluginCheckRules::kCLONE_DIFFERS, which + " declares output "
                    + std::to_string(o) + " as [" + dimsText(a) + "]" + (model.isSizeTensorOutput(o) ? " (size tensor)" : "")
                    + ", the plugin it was cloned from as [" + dimsText(b) + "]"
                    + (mOriginalShapes->isSizeTensorOutput(o) ? " (size tensor)" : "")
                    + (set == ShapeSet::kMAIN ? "" : " at the alternative input shapes"));
                return;
            }
        }
    }
}

bool PluginChecker::staticStage()
{
    bool const dynamic = mV3 || mOriginal->generation() == PluginGeneration::kV2_DYNAMIC_EXT;
    struct Copy
    {
        PluginAdapter* plugin;
        char const* which;
    };
    std::string inputsText;
    for (auto const& d : mSpec.shapes)
    {
        inputsText += (inputsText.empty() ? "[" : ", [") + dimsText(d) + "]";
    }
    inputsText = inputsText.empty() ? "(none)" : inputsText;
    Copy const copies[] = {{mOriginal.get(), "the plugin returned by createPlugin"},
        {mNetwork.get(), "its clone (the network's copy)"}, {mBuilder.get(), "the clone of that clone (the builder's copy)"}};
    for (Copy const& copy : copies)
    {
        step(std::string("output count and shapes of ") + copy.which);
        auto nb = copy.plugin->nbOutputs();
        if (!ok(nb.status(), std::string("getNbOutputs of ") + copy.which))
        {
            return false;
        }
        auto model = std::make_unique<ShapeModel>(mSpec, dynamic);
        if (!ok(model->infer(*copy.plugin), std::string("output shapes of ") + copy.which + " for inputs " + inputsText))
        {
            return false;
        }
        if (copy.plugin == mOriginal.get())
        {
            mNbOutputs = nb.value();
            mOriginalShapes = std::move(model);
        }
        else
        {
            compareStatic(*model, nb.value(), copy.which);
            if (copy.plugin == mBuilder.get())
            {
                if (nb.value() != mNbOutputs)
                {
                    return false;
                }
                mBuilderShapes = std::move(model);
            }
        }
    }

    step("format negotiation on the builder's copy");
    auto negotiation = negotiateFormats(*mBuilder, *mBuilderShapes, mSpec, mNbOutputs);
    if (!ok(negotiation.status(), "format negotiation (supportsFormatCombination, getOutputDataType(s))"))
    {
        return false;
    }
    mNegotiation = std::move(negotiation.value());
    if (!mNegotiation.found)
    {
        mReport.addFinding(PluginCheckRules::kNO_FORMAT_COMBINATION, mBuilder->label() + ": "
            + mNegotiation.failure
            + (mSpec.types.empty() ? "" : "; the input types were fixed by the request")
            + ". A network with this plugin cannot be built");
        return false;
    }
    mReport.markChecked(PluginCheckRules::kNO_FORMAT_COMBINATION);
    auto const nbIn = static_cast<size_t>(mSpec.nbInputs());
    std::vector<PluginTensorDesc> ins(mNegotiation.io.begin(), mNegotiation.io.begin() + static_cast<std::ptrdiff_t>(nbIn));
    std::vector<PluginTensorDesc> outs(mNegotiation.io.begin() + static_cast<std::ptrdiff_t>(nbIn), mNegotiation.io.end());
    mReport.addSummaryLine("inputs: " + descsText(ins));
    mReport.addSummaryLine("outputs: " + descsText(outs));
    if (!mSpec.shapeInputs.empty())
    {
        std::string values;
        for (auto const& shapeInput : mSpec.shapeInputs)
        {
            std::string v;
            for (int64_t x : shapeInput)
            {
                v += (v.empty() ? "" : ", ") + std::to_string(x);
            }
            values += (values.empty() ? "{" : ", {") + v + "}";
        }
        mReport.addSummaryLine("shape inputs: " + values);
    }

    // Output types of the other copies for the negotiated input types.
    std::vector<DataType> inTypes;
    for (PluginTensorDesc const& d : ins)
    {
        inTypes.push_back(d.type);
    }
    for (PluginTensorDesc const& d : outs)
    {
        mOutputTypes.push_back(d.type);
    }
    for (Copy const& copy : {copies[0], copies[1]})
    {
        auto types = copy.plugin->outputTypes(inTypes);
        if (!ok(types.status(), std::string("getOutputDataType(s) of ") + copy.which))
        {
            return false;
        }
        if (types.value() != mOutputTypes)
        {
            for (size_t o = 0; o < mOutputTypes.size() && o < types.value().size(); ++o)
            {
                if (types.value()[o] != mOutputTypes[o])
                {
                    mReport.addFinding(PluginCheckRules::kCLONE_DIFFERS, std::string(copies[2].which)
                        + " gives output " + std::to_string(o) + " the type " + dataTypeName(mOutputTypes[o])
                        + ", " + copy.which + " " + dataTypeName(types.value()[o]) + " (getOutputDataType(s))");
                    break;
                }
            }
        }
    }
    mReport.markChecked(PluginCheckRules::kCLONE_DIFFERS);
    step("supportsFormatCombination with later positions poisoned (format-reads-ahead)");
    return ok(checkFormatReadsAhead(*mBuilder, *mBuilderShapes, mSpec, mNegotiation, mReport),
        "supportsFormatCombination with poisoned later positions");
}

// ---- Stage 3: build-time configure, workspace, tactics, serialization, engine object ---------------------------

bool PluginChecker::buildStage()
{
    auto descs = mBuilderShapes->buildDescs(mNegotiation.io);
    if (!ok(descs.status(), "build-time descriptors"))
    {
        return false;
    }
    auto const nbIn = static_cast<std::ptrdiff_t>(mSpec.nbInputs());
    std::vector<DynamicPluginTensorDesc> in(descs.value().begin(), descs.value().begin() + nbIn);
    std::vector<DynamicPluginTensorDesc> out(descs.value().begin() + nbIn, descs.value().end());
    step("build-time configurePlugin, getWorkspaceSize, getAliasedInput and getValidTactics");
    // The builder configures its copy; the original and the network's copy get the same configuration so that
    // the three can be compared (serialized state, outputs).
    if (!ok(mBuilder->configure(in, out), "configurePlugin at build time (profile min/opt/max) of the builder's copy")
        || !ok(mOriginal->configure(in, out), "configurePlugin at build time of the plugin returned by createPlugin")
        || !ok(mNetwork->configure(in, out), "configurePlugin at build time of the network's copy"))
    {
        return false;
    }
    // The workspace must suffice for every shape of the profile: ask at its max (as TensorRT plugins expect, e.g.
    // IPluginV2DynamicExt::getWorkspaceSize reading inputs[i].dims).
    auto atMax = [](std::vector<DynamicPluginTensorDesc> descs) {
        for (DynamicPluginTensorDesc& d : descs)
        {
            d.desc.dims = d.max;
        }
        return descs;
    };
    auto workspace = mBuilder->workspaceSize(atMax(in), atMax(out));
    if (!ok(workspace.status(), "getWorkspaceSize"))
    {
        return false;
    }
    mWorkspace = workspace.value();
    std::string aliasText;
    for (int32_t o = 0; o < mNbOutputs; ++o)
    {
        int32_t alias = mBuilder->aliasedInput(o);
        if (alias >= mSpec.nbInputs())
        {
            mReport.addFinding(PluginCheckRules::kCALL_FAILED, mBuilder->label() + ": getAliasedInput("
                + std::to_string(o) + ") returned " + std::to_string(alias) + ", but the plugin has only "
                + std::to_string(mSpec.nbInputs()) + " inputs");
            alias = -1;
        }
        mAliases.push_back(alias < 0 ? -1 : alias);
        if (alias >= 0)
        {
            aliasText += (aliasText.empty() ? "" : ", ") + ("output " + std::to_string(o) + " aliases input "
                + std::to_string(alias));
        }
    }
    auto tactics = mBuilder->validTactics();
    if (!ok(tactics.status(), "getValidTactics"))
    {
        return false;
    }
    mTactics = tactics.value();
    std::string tacticText;
    for (int32_t t : mTactics)
    {
        tacticText += (tacticText.empty() ? "" : ", ") + std::to_string(t);
    }
    mReport.addSummaryLine("workspace: " + std::to_string(mWorkspace) + " bytes; tactics: "
        + (tacticText.empty() ? "default" : tacticText) + (aliasText.empty() ? "" : "; " + aliasText));

    step("clone of the configured builder's copy, then serialization of every copy");
    // A clone of the configured plugin must be a full copy of it.
    auto copy = mBuilder->clone();
    if (!ok(copy.status(), "clone() of the configured builder copy"))
    {
        return false;
    }
    mCopy = std::move(copy.value());
    mCopy->setLayerName(mSpec.layerName);

    if (!mV3)
    {
        // As the builder does before timing: initialize (terminate follows when the builder is done with it).
        if (!ok(mBuilder->initialize(), "initialize of the builder copy"))
        {
            return false;
        }
        mBuilderInitialized = true;
    }
    char const* what = mV3 ? "getFieldsToSerialize" : "serialize";
    auto bytes = mBuilder->serialize();
    auto again = mBuilder->serialize();
    auto originalBytes = mOriginal->serialize();
    auto networkBytes = mNetwork->serialize();
    auto copyBytes = mCopy->serialize();
    if (!ok(bytes.status(), std::string(what) + " of the builder's copy")
        || !ok(again.status(), std::string(what) + " of the builder's copy (second call)")
        || !ok(originalBytes.status(), std::string(what) + " of the plugin returned by createPlugin")
        || !ok(networkBytes.status(), std::string(what) + " of the network's copy")
        || !ok(copyBytes.status(), std::string(what) + " of the clone of the configured plugin"))
    {
        return false;
    }
    mSerialized = bytes.value();
    if (again.value() != mSerialized)
    {
        mReport.addFinding(PluginCheckRules::kSERIALIZE_ROUNDTRIP, mBuilder->label() + ": two calls of " + what
            + " on the same plugin gave different bytes (" + bytesDifference(mSerialized, again.value())
            + "); uninitialized or changing state is being serialized");
    }
    struct Pair
    {
        std::string const* clone;
        std::string const* source;
        char const* which;
    };
    Pair const pairs[] = {
        {&networkBytes.value(), &originalBytes.value(), "the clone of the created plugin (the network's copy)"},
        {&mSerialized, &networkBytes.value(), "the clone of the network's copy (the builder's copy)"},
        {&copyBytes.value(), &mSerialized, "the clone of the configured builder's copy"}};
    for (Pair const& pair : pairs)
    {
        if (*pair.clone != *pair.source)
        {
            mReport.addFinding(PluginCheckRules::kCLONE_DIFFERS, mBuilder->label() + ": " + pair.which + " "
                + (mV3 ? "returns other getFieldsToSerialize fields" : "serializes to other bytes")
                + " than the plugin it was cloned from, configured alike (" + bytesDifference(*pair.source, *pair.clone)
                + "); clone() must copy every member");
            break;
        }
    }

    step(mV3 ? "createPlugin(kRUNTIME) with the serialized fields (the engine's plugin)"
             : "deserializePlugin with the serialized bytes (the engine's plugin)");
    // The engine's object: recreated through the creator from those bytes.
    auto engine = createFromBytes(mCreator, mSerialized, mSpec, mLogger);
    if (!ok(engine.status(), mV3 ? "createPlugin(kRUNTIME) with the serialized fields"
                                 : "deserializePlugin with the serialized bytes"))
    {
        return false;
    }
    mEngine = std::move(engine.value());
    checkIdentity(*mEngine, std::string("the plugin recreated by ")
            + (mV3 ? "createPlugin(kRUNTIME)" : "deserializePlugin"));
    auto engineBytes = mEngine->serialize();
    if (!ok(engineBytes.status(), "serialize of the recreated plugin"))
    {
        return false;
    }
    if (engineBytes.value() != mSerialized)
    {
        mReport.addFinding(PluginCheckRules::kSERIALIZE_ROUNDTRIP, mEngine->label() + ": " + what + " -> "
            + (mV3 ? "createPlugin(kRUNTIME)" : "deserializePlugin") + " -> " + what + " changed the "
            + (mV3 ? "fields" : "bytes") + " (" + bytesDifference(mSerialized, engineBytes.value())
            + "); the creator does not restore everything the plugin serializes");
    }
    mReport.markChecked(PluginCheckRules::kSERIALIZE_ROUNDTRIP);
    if (!mV3)
    {
        if (!ok(mEngine->initialize(), "initialize of the recreated (engine) plugin"))
        {
            return false;
        }
        mEngineInitialized = true;
    }
    return true;
}

} // namespace kiln::checker
