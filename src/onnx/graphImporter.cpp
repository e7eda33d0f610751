// graphImporter: the graph walk (see graphImporter.h).
#include "onnx/graphImporter.h"

#include "onnx/networkErrorCapture.h"
#include "onnx/onnxAttributes.h"
#include "onnx/parserError.h"
#include "onnx/pluginFallback.h"
#include "onnx/tensorConversion.h"

#include <exception>
#include <new>
#include <set>

namespace kiln
{
namespace
{

using nvonnxparser::ErrorCode;

std::string canonicalDomain(std::string const& domain)
{
    return domain == "ai.onnx" ? std::string() : domain;
}

//! Clears the thread's "current node" for describeNode when an import ends.
struct DescribedNodeGuard
{
    ~DescribedNodeGuard() { setDescribedNode(nullptr, -1); }
};

class GraphWalk
{
public:
    GraphWalk(OnnxModel const& model, nvinfer1::INetworkDefinition& network, nvinfer1::ILogger* logger,
        WeightStore& weights, GraphImportOptions const& options, GraphImportResult& result, ImportFailure& failure)
        : mModel(model)
        , mGraph(model.model().graph())
        , mCtx(network, logger, weights)
        , mOptions(options)
        , mResult(result)
        , mFailure(failure)
    {
    }

    bool run()
    {
        DescribedNodeGuard guard;
        ErrorCode code = ErrorCode::kSUCCESS;
        auto opsets = checkOpsets(mModel.model(), nullptr, code);
        if (!opsets.isOk())
        {
            return fail(code, opsets.status().message(), "checkOpsets", __LINE__);
        }
        mCtx.setOpsets(*opsets);
        mCtx.setGraph(&mGraph);
        return addInitializers() && addInputs() && importNodes() && (!mOptions.markOutputs || markOutputs())
            && markExtraOutputs();
    }

private:
    bool fail(ErrorCode code, std::string desc, char const* func, int line, int node = -1)
    {
        mFailure.code = code;
        mFailure.desc = std::move(desc);
        mFailure.func = func;
        mFailure.line = line;
        mFailure.node = node;
        if (node >= 0)
        {
            mFailure.nodeName = mGraph.node(node).name();
            mFailure.nodeOperator = mGraph.node(node).op_type();
        }
        return false;
    }

    bool addInitializers()
    {
        for (auto const& init : mGraph.initializer())
        {
            if (init.name().empty())
            {
                return fail(ErrorCode::kINVALID_GRAPH, "the graph has an initializer without a name", __func__,
                    __LINE__);
            }
            mCtx.addInitializer(&init, mModel.externalData(init.name()));
        }
        for (auto const& [name, bytes] : mOptions.initializerOverrides)
        {
            mCtx.overrideInitializer(name, bytes.first, bytes.second);
        }
        if (mGraph.sparse_initializer_size() > 0)
        {
            return fail(ErrorCode::kUNSUPPORTED_GRAPH,
                "sparse initializer '" + mGraph.sparse_initializer(0).values().name()
                    + "': sparse tensors are not supported by Kiln",
                __func__, __LINE__);
        }
        if (mOptions.foldedValues != nullptr)
        {
            for (auto const& [name, value] : *mOptions.foldedValues)
            {
                OnnxValue v;
                v.constant = mCtx.keep(value);
                mCtx.bind(name, v);
            }
        }
        return true;
    }

    bool addInputs()
    {
        if (!mOptions.addGraphInputs)
        {
            return true;
        }
        std::set<std::string> initializerNames;
        for (auto const& init : mGraph.initializer())
        {
            initializerNames.insert(init.name());
        }
        for (auto const& input : mGraph.input())
        {
            if (initializerNames.count(input.name()) != 0)
            {
                continue; // IR < 4 lists initializers among the inputs; the initializer provides the value
            }
            std::string const what = "graph input '" + input.name() + "'";
            if (input.name().empty())
            {
                return fail(ErrorCode::kINVALID_GRAPH, "the graph has an input without a name", __func__, __LINE__);
            }
            if (!input.type().has_tensor_type())
            {
                return fail(ErrorCode::kUNSUPPORTED_GRAPH,
                    what + " is not a tensor (sequence, map and optional inputs are not supported by Kiln)", __func__,
                    __LINE__);
            }
            auto const& tt = input.type().tensor_type();
            auto type = onnxToKilnType(tt.elem_type());
            if (!type.isOk())
            {
                return fail(ErrorCode::kUNSUPPORTED_GRAPH, what + ": " + type.status().message(), __func__, __LINE__);
            }
            if (!tt.has_shape())
            {
                return fail(ErrorCode::kUNSUPPORTED_GRAPH,
                    what + " has no shape; Kiln needs at least the rank of every network input", __func__, __LINE__);
            }
            if (tt.shape().dim_size() > nvinfer1::Dims::MAX_DIMS)
            {
                return fail(ErrorCode::kUNSUPPORTED_GRAPH,
                    what + " has rank " + std::to_string(tt.shape().dim_size()) + "; Kiln supports at most "
                        + std::to_string(nvinfer1::Dims::MAX_DIMS),
                    __func__, __LINE__);
            }
            nvinfer1::Dims dims{};
            dims.nbDims = tt.shape().dim_size();
            for (int i = 0; i < dims.nbDims; ++i)
            {
                auto const& dim = tt.shape().dim(i);
                dims.d[i] = dim.has_dim_value() ? dim.dim_value() : -1;
                if (dim.has_dim_value() && dim.dim_value() < 0)
                {
                    return fail(ErrorCode::kINVALID_GRAPH,
                        what + " has a negative dimension " + std::to_string(dim.dim_value()), __func__, __LINE__);
                }
            }
            if (mCtx.isDefined(input.name()))
            {
                return fail(ErrorCode::kINVALID_GRAPH, what + " is declared twice", __func__, __LINE__);
            }
            nvinfer1::ITensor* t = mCtx.network().addInput(input.name().c_str(), *type, dims);
            if (t == nullptr)
            {
                return fail(ErrorCode::kINVALID_GRAPH,
                    what + ": INetworkDefinition::addInput refused it (see the logged network error)", __func__,
                    __LINE__);
            }
            mCtx.bind(input.name(), OnnxValue(t));
        }
        return true;
    }

    //! Imports one node; a value the network API rejected meanwhile (a void setter reports it through the
    //! network's error recorder and keeps the layer's previous value) fails the node instead of changing the model.
    Status importNode(::onnx::NodeProto const& node, std::vector<OnnxValue>& outputs)
    {
        NetworkErrorCapture capture(mCtx.network());
        Status st = importNodeUnchecked(node, outputs);
        if (st.isOk() && capture.reported() > 0)
        {
            std::vector<std::string> const errors = capture.errors();
            std::string text = errors.empty() ? std::string("an error whose text was lost") : errors.front();
            if (errors.size() > 1)
            {
                text += " (and " + std::to_string(errors.size() - 1) + " more error(s))";
            }
            return invalidArgument(describeNode(node) + ": the network rejected a value set for this node, so the "
                + "engine would not compute the model: " + text);
        }
        return st;
    }

    Status importNodeUnchecked(::onnx::NodeProto const& node, std::vector<OnnxValue>& outputs)
    {
        OpImporter importer = findOpImporter(node.op_type(), node.domain());
        bool handled = false;
        if (mOptions.fallback && (importer == nullptr || mOptions.fallbackFirst))
        {
            KILN_RETURN_IF_ERROR(mOptions.fallback(mCtx, node, outputs, handled));
            if (handled)
            {
                return Status::ok();
            }
        }
        if (importer == nullptr && mOptions.fallback)
        {
            return unsupported(missingPluginMessage(mCtx, node));
        }
        if (importer == nullptr)
        {
            std::string domain = node.domain().empty() ? std::string("ai.onnx") : node.domain();
            return unsupported(describeNode(node) + ": no importer for op '" + node.op_type() + "' (domain '" + domain
                + "', opset " + std::to_string(mCtx.opsetVersion(node.domain())) + ") and no plugin creator serves it");
        }
        return importer(mCtx, node, outputs);
    }

    //! Tolerant mode: node `index` failed (or depends on a failed node); record it and stand in for its outputs.
    void markUnsupported(::onnx::NodeProto const& node, int index)
    {
        mResult.nodeSupported[static_cast<size_t>(index)] = false;
        for (auto const& name : node.output())
        {
            if (name.empty() || mCtx.isDefined(name))
            {
                continue;
            }
            ::onnx::ValueInfoProto const* info = findValueInfo(name);
            nvinfer1::ITensor* placeholder = nullptr;
            if (info != nullptr && info->type().has_tensor_type() && info->type().tensor_type().has_shape()
                && info->type().tensor_type().shape().dim_size() <= nvinfer1::Dims::MAX_DIMS)
            {
                auto const& tt = info->type().tensor_type();
                auto type = onnxToKilnType(tt.elem_type());
                if (type.isOk())
                {
                    nvinfer1::Dims dims{};
                    dims.nbDims = tt.shape().dim_size();
                    for (int i = 0; i < dims.nbDims; ++i)
                    {
                        dims.d[i] = tt.shape().dim(i).has_dim_value() ? tt.shape().dim(i).dim_value() : -1;
                    }
                    placeholder = mCtx.network().addInput(name.c_str(), *type, dims);
                }
            }
            if (placeholder != nullptr)
            {
                mCtx.bind(name, OnnxValue(placeholder));
            }
            else
            {
                mUnavailable.insert(name);
            }
        }
    }

    ::onnx::ValueInfoProto const* findValueInfo(std::string const& name) const
    {
        for (auto const& v : mGraph.value_info())
        {
            if (v.name() == name)
            {
                return &v;
            }
        }
        for (auto const& v : mGraph.output())
        {
            if (v.name() == name)
            {
                return &v;
            }
        }
        return nullptr;
    }

    bool importNodes()
    {
        if (mOptions.tolerant)
        {
            mResult.nodeSupported.assign(static_cast<size_t>(mGraph.node_size()), true);
        }
        for (int i = 0; i < mGraph.node_size(); ++i)
        {
            mResult.nodesImported = i;
            if (mOptions.skipNodes != nullptr && static_cast<size_t>(i) < mOptions.skipNodes->size()
                && (*mOptions.skipNodes)[static_cast<size_t>(i)])
            {
                continue;
            }
            ::onnx::NodeProto const& node = mGraph.node(i);
            setDescribedNode(&node, i);
            bool dependsOnFailure = false;
            for (int j = 0; j < node.input_size(); ++j)
            {
                if (node.input(j).empty() || mCtx.isDefined(node.input(j)))
                {
                    continue;
                }
                if (mUnavailable.count(node.input(j)) != 0)
                {
                    dependsOnFailure = true;
                    continue;
                }
                auto const omitted = mOmitted.find(node.input(j));
                if (omitted != mOmitted.end())
                {
                    fail(ErrorCode::kUNSUPPORTED_NODE,
                        describeNode(node) + ": input " + std::to_string(j) + " '" + node.input(j) + "' is an output of "
                            + omitted->second + " that Kiln's importer does not produce",
                        __func__, __LINE__, i);
                    if (!mOptions.tolerant)
                    {
                        return false;
                    }
                    mResult.failures.push_back(mFailure);
                    dependsOnFailure = true;
                    continue;
                }
                return fail(ErrorCode::kINVALID_GRAPH,
                    describeNode(node) + ": input " + std::to_string(j) + " '" + node.input(j)
                        + "' is not a graph input, an initializer or the output of an earlier node",
                    __func__, __LINE__, i);
            }
            if (dependsOnFailure)
            {
                markUnsupported(node, i);
                continue;
            }
            std::vector<OnnxValue> outputs;
            Status st;
            try
            {
                st = importNode(node, outputs);
            }
            catch (std::bad_alloc const&)
            {
                st = failedAllocation(describeNode(node) + ": out of memory");
            }
            catch (std::exception const& e)
            {
                st = internalError(describeNode(node) + ": exception while importing: " + e.what());
            }
            catch (...)
            {
                st = internalError(describeNode(node) + ": unknown exception while importing");
            }
            if (!st.isOk())
            {
                fail(nodeErrorCode(st.code()), st.message(), __func__, __LINE__, i);
                if (!mOptions.tolerant)
                {
                    return false;
                }
                mResult.failures.push_back(mFailure);
                markUnsupported(node, i);
                continue;
            }
            if (!bindOutputs(node, outputs, i))
            {
                if (!mOptions.tolerant)
                {
                    return false;
                }
                mResult.failures.push_back(mFailure);
                markUnsupported(node, i);
            }
        }
        mResult.nodesImported = mGraph.node_size();
        return mResult.failures.empty();
    }

    bool bindOutputs(::onnx::NodeProto const& node, std::vector<OnnxValue> const& outputs, int index)
    {
        if (outputs.size() > static_cast<size_t>(node.output_size()))
        {
            return fail(ErrorCode::kINTERNAL_ERROR,
                describeNode(node) + ": the importer produced " + std::to_string(outputs.size())
                    + " outputs but the node has " + std::to_string(node.output_size()),
                __func__, __LINE__, index);
        }
        std::vector<nvinfer1::ITensor*> tensors;
        for (int j = 0; j < node.output_size(); ++j)
        {
            std::string const& name = node.output(j);
            OnnxValue value = static_cast<size_t>(j) < outputs.size() ? outputs[static_cast<size_t>(j)] : OnnxValue();
            tensors.push_back(value.tensor);
            if (!name.empty() && !value.defined())
            {
                mOmitted[name] = describeNode(node);
            }
            if (name.empty() || !value.defined())
            {
                continue;
            }
            if (mCtx.isDefined(name))
            {
                return fail(ErrorCode::kINVALID_GRAPH,
                    describeNode(node) + ": output '" + name + "' is already defined earlier in the graph", __func__,
                    __LINE__, index);
            }
            if (value.tensor != nullptr && mCtx.nameOf(value.tensor) == nullptr && !value.tensor->isNetworkInput())
            {
                value.tensor->setName(name.c_str());
            }
            mCtx.bind(name, value);
        }
        if (!node.name().empty() && mResult.nodeOutputs.count(node.name()) == 0)
        {
            mResult.nodeOutputs[node.name()] = tensors;
        }
        return true;
    }

    //! Mark `name` as a network output named `name`, of `declaredType` when that is a known ONNX type.
    bool markOutput(std::string const& name, int32_t declaredType)
    {
        std::string const what = "graph output '" + name + "'";
        auto const omitted = mOmitted.find(name);
        if (!mCtx.isDefined(name) && omitted != mOmitted.end())
        {
            return fail(ErrorCode::kUNSUPPORTED_GRAPH,
                what + " is an output of " + omitted->second + " that Kiln's importer does not produce", __func__,
                __LINE__);
        }
        if (!mCtx.isDefined(name))
        {
            return fail(ErrorCode::kINVALID_GRAPH, what + " is not produced by any node, input or initializer",
                __func__, __LINE__);
        }
        // A value known only as a constant gets an identity layer, so the output is not an IConstantLayer's.
        auto before = mCtx.lookup(name);
        bool const constantOnly = before.isOk() && before->tensor == nullptr;
        auto t = mCtx.materialise(name);
        if (!t.isOk())
        {
            return fail(nodeErrorCode(t.status().code()) == ErrorCode::kUNSUPPORTED_NODE ? ErrorCode::kUNSUPPORTED_GRAPH
                                                                                      : ErrorCode::kINVALID_GRAPH,
                what + ": " + t.status().message(), __func__, __LINE__);
        }
        nvinfer1::ITensor* tensor = *t;
        auto& network = mCtx.network();
        bool const needsCopy = constantOnly || tensor->isNetworkInput() || tensor->isNetworkOutput()
            || std::string(tensor->getName()) != name || mMarked.count(tensor) != 0;
        ::onnx::NodeProto outputNode;
        outputNode.set_name(name);
        outputNode.set_op_type("GraphOutput");
        bool fresh = false; // a tensor created here (by the cast) is renamed rather than copied
        if (declaredType != 0)
        {
            auto kilnType = onnxToKilnType(declaredType);
            if (!kilnType.isOk())
            {
                return fail(ErrorCode::kUNSUPPORTED_GRAPH, what + ": " + kilnType.status().message(), __func__,
                    __LINE__);
            }
            if (*kilnType != tensor->getType())
            {
                auto* cast = network.addCast(*tensor, *kilnType);
                if (cast == nullptr)
                {
                    return fail(ErrorCode::kINVALID_GRAPH, what + ": cannot cast to the declared type", __func__,
                        __LINE__);
                }
                mCtx.nameLayer(cast, outputNode, "cast");
                tensor = cast->getOutput(0);
                fresh = true;
            }
        }
        if (needsCopy && !fresh)
        {
            if (!tensor->isNetworkInput() && std::string(tensor->getName()) == name)
            {
                // The copy takes the ONNX name; the source (e.g. the constant) keeps a distinct one.
                tensor->setName((name + "_value").c_str());
            }
            auto* identity = network.addIdentity(*tensor);
            if (identity == nullptr)
            {
                return fail(ErrorCode::kINVALID_GRAPH, what + ": cannot copy the value into an output", __func__,
                    __LINE__);
            }
            mCtx.nameLayer(identity, outputNode, "copy");
            tensor = identity->getOutput(0);
        }
        tensor->setName(name.c_str());
        network.markOutput(*tensor);
        mMarked.insert(tensor);
        return true;
    }

    bool markOutputs()
    {
        std::set<std::string> seen;
        for (auto const& output : mGraph.output())
        {
            if (!seen.insert(output.name()).second)
            {
                return fail(ErrorCode::kINVALID_GRAPH, "graph output '" + output.name() + "' is listed twice",
                    __func__, __LINE__);
            }
            int32_t const declared
                = output.type().has_tensor_type() ? output.type().tensor_type().elem_type() : 0;
            if (!markOutput(output.name(), declared))
            {
                return false;
            }
        }
        return true;
    }

    bool markExtraOutputs()
    {
        for (auto const& name : mOptions.extraOutputs)
        {
            if (!markOutput(name, 0))
            {
                return false;
            }
        }
        return true;
    }

    OnnxModel const& mModel;
    ::onnx::GraphProto const& mGraph;
    ImporterContextImpl mCtx;
    GraphImportOptions const& mOptions;
    GraphImportResult& mResult;
    ImportFailure& mFailure;
    std::set<nvinfer1::ITensor*> mMarked;
    std::set<std::string> mUnavailable; //!< outputs of unsupported nodes (tolerant mode)
    std::map<std::string, std::string> mOmitted; //!< optional outputs an importer left out -> the node
};

} // namespace

StatusOr<std::map<std::string, int64_t>> checkOpsets(
    ::onnx::ModelProto const& model, nvinfer1::ILogger* logger, nvonnxparser::ErrorCode& code)
{
    std::map<std::string, int64_t> opsets;
    for (auto const& opset : model.opset_import())
    {
        opsets[canonicalDomain(opset.domain())] = opset.version();
    }
    auto const it = opsets.find("");
    if (it == opsets.end())
    {
        // A model made only of ops from other domains (e.g. ai.onnx.preview.training) needs no ai.onnx opset.
        for (auto const& node : model.graph().node())
        {
            if (canonicalDomain(node.domain()).empty())
            {
                code = ErrorCode::kINVALID_GRAPH;
                return invalidArgument("the model imports no opset for the default ONNX domain (ai.onnx), which node '"
                    + node.name() + "' (" + node.op_type() + ") uses");
            }
        }
        return opsets;
    }
    if (it->second < 1)
    {
        code = ErrorCode::kINVALID_GRAPH;
        return invalidArgument("the model imports ai.onnx opset " + std::to_string(it->second)
            + "; opset versions start at 1");
    }
    if (it->second > kMaxOpset)
    {
        code = ErrorCode::kUNSUPPORTED_GRAPH;
        return unsupported("the model imports ai.onnx opset " + std::to_string(it->second)
            + "; Kiln supports opsets 1 to " + std::to_string(kMaxOpset));
    }
    if (it->second < kMinWarnFreeOpset && logger != nullptr)
    {
        try
        {
            logger->log(nvinfer1::ILogger::Severity::kWARNING,
                ("ONNX model uses ai.onnx opset " + std::to_string(it->second)
                    + ": opsets before 9 are imported best-effort")
                    .c_str());
        }
        catch (...)
        {
        }
    }
    return opsets;
}

bool importGraph(OnnxModel const& model, nvinfer1::INetworkDefinition& network, nvinfer1::ILogger* logger,
    WeightStore& weights, GraphImportOptions const& options, GraphImportResult& result, ImportFailure& failure)
{
    GraphWalk walk(model, network, logger, weights, options, result, failure);
    return walk.run();
}

} // namespace kiln
