// EngineInspector: Kiln's IEngineInspector. Describes each node of an engine (name, kind, I/O tensors with
// dimensions and formats, parameters, chosen tactic) in TensorRT's JSON or one-line layout, with as much
// detail as the engine's ProfilingVerbosity allows. With an execution context attached, dimensions are that
// context's concrete shapes.
#pragma once

#include "NvInferRuntime.h"
#include "core/logging.h"
#include "runtime/engineData.h"
#include "runtime/errorRecorderRef.h"
#include "runtime/shapeBinding.h"

#include <memory>
#include <string>

namespace kiln
{

class Engine;
class ExecutionContext;

class EngineInspector final : public nvinfer1::IEngineInspector
{
public:
    explicit EngineInspector(Engine const& engine);
    ~EngineInspector() noexcept override = default;

    bool setExecutionContext(nvinfer1::IExecutionContext const* context) noexcept override;
    nvinfer1::IExecutionContext const* getExecutionContext() const noexcept override;
    char const* getLayerInformation(int32_t layerIndex, nvinfer1::LayerInformationFormat format) const noexcept override;
    char const* getEngineInformation(nvinfer1::LayerInformationFormat format) const noexcept override;
    void setErrorRecorder(nvinfer1::IErrorRecorder* recorder) noexcept override;
    nvinfer1::IErrorRecorder* getErrorRecorder() const noexcept override;

private:
    std::string layerText(int32_t index, bool json, EvaluatedShapes const* shapes) const;
    std::string tensorText(int32_t tensor, bool json, EvaluatedShapes const* shapes) const;
    EvaluatedShapes const* contextShapes() const;
    bool validFormat(nvinfer1::LayerInformationFormat format, char const* api) const;

    Engine const& mEngine; // identity only (setExecutionContext); the data below is shared
    std::shared_ptr<EngineData const> mData;
    std::shared_ptr<Logger const> mLogger;
    ErrorRecorderRef mRecorder;
    ExecutionContext const* mContext{nullptr};
    mutable std::string mText; // the last answer (valid until the next call, as TensorRT documents)
};

} // namespace kiln
