// NvInferImpl.h — implementation-side (apiv) interfaces behind TensorRT's inline API wrappers. Kiln keeps only
// those that plugin binaries reach through inline code: the shape-expression objects (IDimensionExpr,
// IExprBuilder). Their vtable layout matches TensorRT 10.16 so that plugins compiled against NVIDIA's headers work.
#ifndef NV_INFER_IMPL_H
#define NV_INFER_IMPL_H

#include "NvInferLegacyDims.h"
#include "NvInferRuntimeCommon.h"

namespace nvinfer1
{

class IDimensionExpr;

enum class DimensionOperation : int32_t;
// Declared here (as TensorRT does) because NvInferRuntime.h refers to them; defined in NvInfer.h.
enum class HardwareCompatibilityLevel : int32_t;
enum class RuntimePlatform : int32_t;

//!
//! \namespace apiv
//! \brief Objects that cross the library boundary behind inline API wrappers. Never call these directly.
//!
namespace apiv
{

//! Common root of implementation objects.
class VRoot
{
public:
    virtual ~VRoot() noexcept = default;
};

//! Implementation behind IDimensionExpr.
class VDimensionExpr : public VRoot
{
public:
    virtual bool isConstant() const = 0;
    virtual int64_t getConstantValue() const = 0;
    virtual bool isSizeTensor() const = 0;
};

//! Implementation behind IExprBuilder.
class VExprBuilder : public VRoot
{
public:
    virtual IDimensionExpr const* constant(int64_t value) = 0;
    virtual IDimensionExpr const* operation(
        DimensionOperation op, IDimensionExpr const& first, IDimensionExpr const& second)
        = 0;
    virtual IDimensionExpr const* declareSizeTensor(
        int32_t outputIndex, IDimensionExpr const& opt, IDimensionExpr const& upper)
        = 0;
};

} // namespace apiv
} // namespace nvinfer1

#endif // NV_INFER_IMPL_H
