// NetworkDefinition: Kiln's implementation of nvinfer1::INetworkDefinition. It owns tensors and layers.
// The add<Kind> methods are defined next to each layer kind (src/network/layers/<kind>Layer.cpp); the rest
// lives in networkDefinition.cpp.
#pragma once

#include "NvInfer.h"
#include "core/logging.h"
#include "core/status.h"
#include "network/incrementalAnalysis.h"
#include "network/layer.h"
#include "network/networkAnalysis.h"
#include "network/tensor.h"

#include <memory>
#include <string>
#include <vector>

namespace kiln
{

class NetworkDefinition final : public nvinfer1::INetworkDefinition
{
public:
    NetworkDefinition(nvinfer1::IBuilder& builder, Logger& logger, nvinfer1::NetworkDefinitionCreationFlags flags);
    ~NetworkDefinition() noexcept override;

    // ---- nvinfer1::INetworkDefinition (TensorRT 10.16 order) ----
    nvinfer1::ITensor* addInput(char const* name, nvinfer1::DataType type, nvinfer1::Dims const& dimensions) noexcept override;
    void markOutput(nvinfer1::ITensor& tensor) noexcept override;
    bool markDebug(nvinfer1::ITensor& tensor) noexcept override;
    bool unmarkDebug(nvinfer1::ITensor& tensor) noexcept override;
    bool isDebugTensor(nvinfer1::ITensor const& tensor) const noexcept override;
    bool markUnfusedTensorsAsDebugTensors() noexcept override;
    bool unmarkUnfusedTensorsAsDebugTensors() noexcept override;
    nvinfer1::IActivationLayer* addActivation(nvinfer1::ITensor& input, nvinfer1::ActivationType type) noexcept override;
    nvinfer1::ILRNLayer* addLRN(nvinfer1::ITensor& input, int64_t window, float alpha, float beta, float k) noexcept override;
    nvinfer1::IScaleLayer* addScale(nvinfer1::ITensor& input, nvinfer1::ScaleMode mode, nvinfer1::Weights shift,
        nvinfer1::Weights scale, nvinfer1::Weights power) noexcept override;
    nvinfer1::ISoftMaxLayer* addSoftMax(nvinfer1::ITensor& input) noexcept override;
    nvinfer1::IConcatenationLayer* addConcatenation(nvinfer1::ITensor* const* inputs, int32_t nbInputs) noexcept override;
    nvinfer1::IElementWiseLayer* addElementWise(
        nvinfer1::ITensor& input1, nvinfer1::ITensor& input2, nvinfer1::ElementWiseOperation op) noexcept override;
    nvinfer1::IUnaryLayer* addUnary(nvinfer1::ITensor& input, nvinfer1::UnaryOperation operation) noexcept override;
    nvinfer1::IShuffleLayer* addShuffle(nvinfer1::ITensor& input) noexcept override;
    nvinfer1::IOneHotLayer* addOneHot(
        nvinfer1::ITensor& indices, nvinfer1::ITensor& values, nvinfer1::ITensor& depth, int32_t axis) noexcept override;
    int32_t getNbLayers() const noexcept override;
    nvinfer1::ILayer* getLayer(int32_t index) const noexcept override;
    int32_t getNbInputs() const noexcept override;
    nvinfer1::ITensor* getInput(int32_t index) const noexcept override;
    int32_t getNbOutputs() const noexcept override;
    nvinfer1::ITensor* getOutput(int32_t index) const noexcept override;
    nvinfer1::IReduceLayer* addReduce(nvinfer1::ITensor& input, nvinfer1::ReduceOperation operation, uint32_t reduceAxes,
        bool keepDimensions) noexcept override;
    nvinfer1::ITopKLayer* addTopK(
        nvinfer1::ITensor& input, nvinfer1::TopKOperation op, int32_t k, uint32_t reduceAxes) noexcept override;
    nvinfer1::ITopKLayer* addTopK(nvinfer1::ITensor& input, nvinfer1::TopKOperation op, int32_t k, uint32_t reduceAxes,
        nvinfer1::DataType indicesType) noexcept override;
    nvinfer1::IGatherLayer* addGather(nvinfer1::ITensor& data, nvinfer1::ITensor& indices, int32_t axis) noexcept override;
    nvinfer1::IGatherLayer* addGatherV2(
        nvinfer1::ITensor& data, nvinfer1::ITensor& indices, nvinfer1::GatherMode mode) noexcept override;
    nvinfer1::IRaggedSoftMaxLayer* addRaggedSoftMax(nvinfer1::ITensor& input, nvinfer1::ITensor& bounds) noexcept override;
    nvinfer1::IMatrixMultiplyLayer* addMatrixMultiply(nvinfer1::ITensor& input0, nvinfer1::MatrixOperation op0,
        nvinfer1::ITensor& input1, nvinfer1::MatrixOperation op1) noexcept override;
    nvinfer1::INonZeroLayer* addNonZero(nvinfer1::ITensor& input) noexcept override;
    nvinfer1::INonZeroLayer* addNonZero(nvinfer1::ITensor& input, nvinfer1::DataType indicesType) noexcept override;
    nvinfer1::IConstantLayer* addConstant(nvinfer1::Dims const& dimensions, nvinfer1::Weights weights) noexcept override;
    nvinfer1::IIdentityLayer* addIdentity(nvinfer1::ITensor& input) noexcept override;
    nvinfer1::ICastLayer* addCast(nvinfer1::ITensor& input, nvinfer1::DataType toType) noexcept override;
    void removeTensor(nvinfer1::ITensor& tensor) noexcept override;
    void unmarkOutput(nvinfer1::ITensor& tensor) noexcept override;
    nvinfer1::IPluginV2Layer* addPluginV2(
        nvinfer1::ITensor* const* inputs, int32_t nbInputs, nvinfer1::IPluginV2& plugin) noexcept override;
    nvinfer1::IPluginV3Layer* addPluginV3(nvinfer1::ITensor* const* inputs, int32_t nbInputs,
        nvinfer1::ITensor* const* shapeInputs, int32_t nbShapeInputs, nvinfer1::IPluginV3& plugin) noexcept override;
    nvinfer1::ISliceLayer* addSlice(nvinfer1::ITensor& input, nvinfer1::Dims const& start, nvinfer1::Dims const& size,
        nvinfer1::Dims const& stride) noexcept override;
    void setName(char const* name) noexcept override;
    char const* getName() const noexcept override;
    nvinfer1::IShapeLayer* addShape(nvinfer1::ITensor& input) noexcept override;
    bool hasImplicitBatchDimension() const noexcept override;
    nvinfer1::NetworkDefinitionCreationFlags getFlags() const noexcept override;
    bool getFlag(nvinfer1::NetworkDefinitionCreationFlag networkDefinitionCreationFlag) const noexcept override;
    bool markOutputForShapes(nvinfer1::ITensor& tensor) noexcept override;
    bool unmarkOutputForShapes(nvinfer1::ITensor& tensor) noexcept override;
    nvinfer1::IParametricReLULayer* addParametricReLU(nvinfer1::ITensor& input, nvinfer1::ITensor& slope) noexcept override;
    nvinfer1::IConvolutionLayer* addConvolutionNd(nvinfer1::ITensor& input, int64_t nbOutputMaps,
        nvinfer1::Dims const& kernelSize, nvinfer1::Weights kernelWeights, nvinfer1::Weights biasWeights) noexcept override;
    nvinfer1::IPoolingLayer* addPoolingNd(
        nvinfer1::ITensor& input, nvinfer1::PoolingType type, nvinfer1::Dims const& windowSize) noexcept override;
    nvinfer1::IDeconvolutionLayer* addDeconvolutionNd(nvinfer1::ITensor& input, int64_t nbOutputMaps,
        nvinfer1::Dims kernelSize, nvinfer1::Weights kernelWeights, nvinfer1::Weights biasWeights) noexcept override;
    nvinfer1::IScaleLayer* addScaleNd(nvinfer1::ITensor& input, nvinfer1::ScaleMode mode, nvinfer1::Weights shift,
        nvinfer1::Weights scale, nvinfer1::Weights power, int32_t channelAxis) noexcept override;
    nvinfer1::IResizeLayer* addResize(nvinfer1::ITensor& input) noexcept override;
    nvinfer1::ILoop* addLoop() noexcept override;
    nvinfer1::IIfConditional* addIfConditional() noexcept override;
    nvinfer1::ISelectLayer* addSelect(
        nvinfer1::ITensor& condition, nvinfer1::ITensor& thenInput, nvinfer1::ITensor& elseInput) noexcept override;
    nvinfer1::IAssertionLayer* addAssertion(nvinfer1::ITensor& condition, char const* message) noexcept override;
    nvinfer1::IFillLayer* addFill(nvinfer1::Dims const& dimensions, nvinfer1::FillOperation op) noexcept override;
    nvinfer1::IFillLayer* addFill(
        nvinfer1::Dims const& dimensions, nvinfer1::FillOperation op, nvinfer1::DataType outputType) noexcept override;
    nvinfer1::IPaddingLayer* addPaddingNd(
        nvinfer1::ITensor& input, nvinfer1::Dims const& prePadding, nvinfer1::Dims const& postPadding) noexcept override;
    bool setWeightsName(nvinfer1::Weights weights, char const* name) noexcept override;
    void setErrorRecorder(nvinfer1::IErrorRecorder* recorder) noexcept override;
    nvinfer1::IErrorRecorder* getErrorRecorder() const noexcept override;
    nvinfer1::IDequantizeLayer* addDequantize(nvinfer1::ITensor& input, nvinfer1::ITensor& scale) noexcept override;
    nvinfer1::IDequantizeLayer* addDequantize(
        nvinfer1::ITensor& input, nvinfer1::ITensor& scale, nvinfer1::DataType outputType) noexcept override;
    nvinfer1::IScatterLayer* addScatter(nvinfer1::ITensor& data, nvinfer1::ITensor& indices, nvinfer1::ITensor& updates,
        nvinfer1::ScatterMode mode) noexcept override;
    nvinfer1::IQuantizeLayer* addQuantize(nvinfer1::ITensor& input, nvinfer1::ITensor& scale) noexcept override;
    nvinfer1::IQuantizeLayer* addQuantize(
        nvinfer1::ITensor& input, nvinfer1::ITensor& scale, nvinfer1::DataType outputType) noexcept override;
    nvinfer1::IDynamicQuantizeLayer* addDynamicQuantize(nvinfer1::ITensor& input, int32_t axis, int32_t blockSize,
        nvinfer1::DataType outputType, nvinfer1::DataType scaleType) noexcept override;
    nvinfer1::IDynamicQuantizeLayer* addDynamicQuantizeV2(nvinfer1::ITensor& input, nvinfer1::Dims const& blockShape,
        nvinfer1::DataType outputType, nvinfer1::DataType scaleType) noexcept override;
    nvinfer1::IEinsumLayer* addEinsum(nvinfer1::ITensor* const* inputs, int32_t nbInputs, char const* equation) noexcept override;
    nvinfer1::IGridSampleLayer* addGridSample(nvinfer1::ITensor& input, nvinfer1::ITensor& grid) noexcept override;
    nvinfer1::INMSLayer* addNMS(nvinfer1::ITensor& boxes, nvinfer1::ITensor& scores,
        nvinfer1::ITensor& maxOutputBoxesPerClass) noexcept override;
    nvinfer1::INMSLayer* addNMS(nvinfer1::ITensor& boxes, nvinfer1::ITensor& scores,
        nvinfer1::ITensor& maxOutputBoxesPerClass, nvinfer1::DataType indicesType) noexcept override;
    nvinfer1::IReverseSequenceLayer* addReverseSequence(
        nvinfer1::ITensor& input, nvinfer1::ITensor& sequenceLens) noexcept override;
    nvinfer1::INormalizationLayer* addNormalization(nvinfer1::ITensor& input, nvinfer1::ITensor& scale,
        nvinfer1::ITensor& bias, uint32_t axesMask) noexcept override;
    nvinfer1::ICumulativeLayer* addCumulative(nvinfer1::ITensor& input, nvinfer1::ITensor& axis,
        nvinfer1::CumulativeOperation operation, bool exclusive, bool reverse) noexcept override;
    nvinfer1::IAttention* addAttention(nvinfer1::ITensor& query, nvinfer1::ITensor& key, nvinfer1::ITensor& value,
        nvinfer1::AttentionNormalizationOp normOp, bool causal) noexcept override;
    nvinfer1::IRotaryEmbeddingLayer* addRotaryEmbedding(nvinfer1::ITensor& input, nvinfer1::ITensor& cosCache,
        nvinfer1::ITensor& sinCache, bool interleaved, int32_t rotaryEmbeddingDim) noexcept override;
    nvinfer1::IKVCacheUpdateLayer* addKVCacheUpdate(nvinfer1::ITensor& cache, nvinfer1::ITensor& update,
        nvinfer1::ITensor& writeIndices, nvinfer1::KVCacheMode cacheMode) noexcept override;
    nvinfer1::IMoELayer* addMoE(nvinfer1::ITensor& hiddenStates, nvinfer1::ITensor& selectedExpertsForTokens,
        nvinfer1::ITensor& scoresForSelectedExperts) noexcept override;
    nvinfer1::IDistCollectiveLayer* addDistCollective(nvinfer1::ITensor& input,
        nvinfer1::CollectiveOperation distCollectiveOp, nvinfer1::ReduceOperation reduceOp, int64_t root,
        int64_t* groups, int64_t groupSize) noexcept override;
    nvinfer1::IBuilder& getBuilder() const noexcept override;
    bool markWeightsRefittable(char const* name) noexcept override;
    bool unmarkWeightsRefittable(char const* name) noexcept override;
    bool areWeightsMarkedRefittable(char const* name) const noexcept override;
    nvinfer1::ISqueezeLayer* addSqueeze(nvinfer1::ITensor& input, nvinfer1::ITensor& axes) noexcept override;
    nvinfer1::IUnsqueezeLayer* addUnsqueeze(nvinfer1::ITensor& input, nvinfer1::ITensor& axes) noexcept override;
    nvinfer1::INormalizationLayer* addNormalizationV2(nvinfer1::ITensor& input, nvinfer1::ITensor& scale,
        nvinfer1::ITensor& bias, uint32_t axesMask) noexcept override;

    // ---- Internal API for layer files and the builder ----
    Logger& logger() const { return mLogger; }
    bool stronglyTyped() const;
    //! Report an error through the logger and this network's error recorder.
    void reportError(Status const& status) const;
    //! The Tensor behind `t` if it belongs to this network; otherwise reports an error naming `what`, nullptr.
    Tensor* ownTensor(nvinfer1::ITensor* t, char const* what) const;
    Tensor* ownTensor(nvinfer1::ITensor const& t, char const* what) const;
    //! Create a tensor owned by this network (used by Layer for outputs).
    Tensor* createTensor(std::string name);
    //! Take ownership of a new layer, name it "(Unnamed Layer* N) [Kind]" and return its interface.
    template <typename L>
    L* adopt(std::unique_ptr<L> layer)
    {
        L* raw = layer.get();
        adoptLayer(std::move(layer));
        return raw;
    }
    std::vector<std::unique_ptr<Layer>> const& layers() const { return mLayers; }
    std::vector<Tensor*> const& inputs() const { return mInputs; }
    std::vector<Tensor*> const& outputs() const { return mOutputs; }
    bool isDebug(Tensor const* t) const;
    //! Bumped by every change.
    uint64_t revision() const { return mRevision; }
    //! A change that does not affect shapes or types (e.g. a loop's name); see layerChanged/tensorChanged.
    void touch() { ++mRevision; }
    //! A layer's inputs, attributes, weights, output types or name changed (Layer::touch): its results and those
    //! of everything downstream are re-inferred on the next query.
    void layerChanged(Layer& layer);
    //! A tensor's name, type or (network inputs) dims or dimension names changed. `rolesMayChange`: the change can
    //! alter which inputs are shape tensors (type, dims).
    void tensorChanged(Tensor& tensor, bool rolesMayChange);
    //! Report "not supported yet" for an API Kiln declares but does not implement; returns nullptr.
    std::nullptr_t notSupported(char const* api) const;

    //! Lenient analysis for ITensor getters, kept up to date incrementally (incrementalAnalysis.h).
    IncrementalAnalysis& incrementalAnalysis() const { return *mIncremental; }
    nvinfer1::Dims analysisDims(Tensor const& t) const;
    nvinfer1::DataType analysisType(Tensor const& t) const;
    bool analysisIsShapeTensor(Tensor const& t) const;
    bool analysisIsExecutionTensor(Tensor const& t) const;
    //! Remove a layer created by add* (used when a layer's creation fails after adoption).
    void removeLayer(Layer* layer);
    //! Loops and conditionals (layers/loop.h, layers/ifConditional.h) live as long as the network.
    void keepControlFlow(std::shared_ptr<void> object) { mControlFlow.push_back(std::move(object)); }
    int32_t nbControlFlowObjects() const { return static_cast<int32_t>(mControlFlow.size()); }

private:
    void adoptLayer(std::unique_ptr<Layer> layer);

    nvinfer1::IBuilder& mBuilder;
    Logger& mLogger;
    nvinfer1::NetworkDefinitionCreationFlags mFlags;
    nvinfer1::IErrorRecorder* mRecorder{nullptr};
    std::string mName;
    std::vector<std::unique_ptr<Tensor>> mTensors;
    std::vector<std::unique_ptr<Layer>> mLayers;
    std::vector<Tensor*> mInputs;
    std::vector<Tensor*> mOutputs;
    std::vector<Tensor const*> mDebugTensors;
    std::vector<std::string> mRefittable;
    uint64_t mRevision{0};
    std::vector<std::shared_ptr<void>> mControlFlow;
    std::unique_ptr<IncrementalAnalysis> mIncremental; // (getters are const; the analysis caches)
};

} // namespace kiln
