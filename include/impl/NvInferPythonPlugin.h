// impl/NvInferPythonPlugin.h — interfaces behind "quickly deployable" Python plugins (the kiln.plugin /
// tensorrt.plugin decorators). Not part of the public C++ API: applications must not implement or use them.
#ifndef TRT_PYTHON_IMPL_PLUGIN_H
#define TRT_PYTHON_IMPL_PLUGIN_H

#include "NvInfer.h"

namespace nvinfer1
{

//! \enum PluginArgType
//! \brief Kind of an extra scalar kernel argument of an ahead-of-time (AOT) Python plugin.
enum class PluginArgType : int32_t
{
    kINT = 0, //!< Integer argument.
};

//! \enum PluginArgDataType
//! \brief Width of an extra scalar kernel argument of an AOT Python plugin.
enum class PluginArgDataType : int32_t
{
    kINT8 = 0,  //!< int8_t
    kINT16 = 1, //!< int16_t
    kINT32 = 2, //!< int32_t
};

//! \class ISymExpr
//! \brief A scalar symbolic expression produced by the Python backend.
class ISymExpr
{
public:
    //! Kind of the expression.
    virtual PluginArgType getType() const noexcept = 0;
    //! Data type of the expression.
    virtual PluginArgDataType getDataType() const noexcept = 0;
    //! The backend's underlying expression object.
    virtual void* getExpr() noexcept = 0;
};

//! Implementation behind ISymExprs.
class ISymExprsImpl
{
public:
    virtual ISymExpr* getSymExpr(int32_t index) const noexcept = 0;
    virtual bool setSymExpr(int32_t index, ISymExpr* symExpr) noexcept = 0;
    virtual int32_t getNbSymExprs() const noexcept = 0;
    virtual bool setNbSymExprs(int32_t count) noexcept = 0;

    virtual ~ISymExprsImpl() noexcept = default;
};

//! \class ISymExprs
//! \brief A resizable sequence of symbolic expressions (library-implemented).
class ISymExprs
{
public:
    //! Expression at `index`, or nullptr when out of range.
    ISymExpr* getSymExpr(int32_t index) const noexcept
    {
        return mImpl->getSymExpr(index);
    }

    //! Replace the expression at `index`; false when out of range.
    bool setSymExpr(int32_t index, ISymExpr* symExpr) noexcept
    {
        return mImpl->setSymExpr(index, symExpr);
    }

    //! Number of expressions.
    int32_t getNbSymExprs() const noexcept
    {
        return mImpl->getNbSymExprs();
    }

    //! Resize the sequence.
    bool setNbSymExprs(int32_t count) noexcept
    {
        return mImpl->setNbSymExprs(count);
    }

protected:
    ISymExprsImpl* mImpl{nullptr};
    virtual ~ISymExprs() noexcept = default;
};

//! \enum QuickPluginCreationRequest
//! \brief Preference between the JIT and AOT implementations when a quick plugin is created.
enum class QuickPluginCreationRequest : int32_t
{
    kUNKNOWN = 0,    //!< No preference.
    kPREFER_JIT = 1, //!< Prefer JIT.
    kPREFER_AOT = 2, //!< Prefer AOT.
    kSTRICT_JIT = 3, //!< JIT required; fail otherwise.
    kSTRICT_AOT = 4, //!< AOT required; fail otherwise.
};

//! Implementation behind IKernelLaunchParams.
class IKernelLaunchParamsImpl
{
public:
    virtual ISymExpr* getGridX() noexcept = 0;
    virtual bool setGridX(ISymExpr* gridX) noexcept = 0;

    virtual ISymExpr* getGridY() noexcept = 0;
    virtual bool setGridY(ISymExpr* gridY) noexcept = 0;

    virtual ISymExpr* getGridZ() noexcept = 0;
    virtual bool setGridZ(ISymExpr* gridZ) noexcept = 0;

    virtual ISymExpr* getBlockX() noexcept = 0;
    virtual bool setBlockX(ISymExpr* blockX) noexcept = 0;

    virtual ISymExpr* getBlockY() noexcept = 0;
    virtual bool setBlockY(ISymExpr* blockY) noexcept = 0;

    virtual ISymExpr* getBlockZ() noexcept = 0;
    virtual bool setBlockZ(ISymExpr* blockZ) noexcept = 0;

    virtual ISymExpr* getSharedMem() noexcept = 0;
    virtual bool setSharedMem(ISymExpr* sharedMem) noexcept = 0;

    virtual ~IKernelLaunchParamsImpl() noexcept = default;
};

//! \class IKernelLaunchParams
//! \brief Grid, block and dynamic shared-memory sizes of a kernel launch, as symbolic expressions
//! (library-implemented).
class IKernelLaunchParams
{
public:
    ISymExpr* getGridX() noexcept
    {
        return mImpl->getGridX();
    }

    bool setGridX(ISymExpr* gridX) noexcept
    {
        return mImpl->setGridX(gridX);
    }

    ISymExpr* getGridY() noexcept
    {
        return mImpl->getGridY();
    }

    bool setGridY(ISymExpr* gridY) noexcept
    {
        return mImpl->setGridY(gridY);
    }

    ISymExpr* getGridZ() noexcept
    {
        return mImpl->getGridZ();
    }

    bool setGridZ(ISymExpr* gridZ) noexcept
    {
        return mImpl->setGridZ(gridZ);
    }

    ISymExpr* getBlockX() noexcept
    {
        return mImpl->getBlockX();
    }

    bool setBlockX(ISymExpr* blockX) noexcept
    {
        return mImpl->setBlockX(blockX);
    }

    ISymExpr* getBlockY() noexcept
    {
        return mImpl->getBlockY();
    }

    bool setBlockY(ISymExpr* blockY) noexcept
    {
        return mImpl->setBlockY(blockY);
    }

    ISymExpr* getBlockZ() noexcept
    {
        return mImpl->getBlockZ();
    }

    bool setBlockZ(ISymExpr* blockZ) noexcept
    {
        return mImpl->setBlockZ(blockZ);
    }

    //! Dynamic shared memory per block, in bytes.
    ISymExpr* getSharedMem() noexcept
    {
        return mImpl->getSharedMem();
    }

    bool setSharedMem(ISymExpr* sharedMem) noexcept
    {
        return mImpl->setSharedMem(sharedMem);
    }

protected:
    IKernelLaunchParamsImpl* mImpl{nullptr};
    virtual ~IKernelLaunchParams() noexcept = default;
};

namespace v_1_0
{

//! Core capability of a quick plugin: its identity.
class IPluginV3QuickCore : public IPluginCapability
{
public:
    InterfaceInfo getInterfaceInfo() const noexcept override
    {
        return InterfaceInfo{"PLUGIN_V3QUICK_CORE", 1, 0};
    }

    virtual AsciiChar const* getPluginName() const noexcept = 0;

    virtual AsciiChar const* getPluginVersion() const noexcept = 0;

    virtual AsciiChar const* getPluginNamespace() const noexcept = 0;
};

//! Build capability of a quick plugin (JIT).
class IPluginV3QuickBuild : public IPluginCapability
{
public:
    InterfaceInfo getInterfaceInfo() const noexcept override
    {
        return InterfaceInfo{"PLUGIN_V3QUICK_BUILD", 1, 0};
    }

    //! Output types for the given input types and ranks. Return 0 on success.
    virtual int32_t getOutputDataTypes(DataType* outputTypes, int32_t nbOutputs, DataType const* inputTypes,
        int32_t const* inputRanks, int32_t nbInputs) const noexcept = 0;

    //! Output shapes as expressions of the input shapes (as IPluginV3OneBuild::getOutputShapes()).
    virtual int32_t getOutputShapes(DimsExprs const* inputs, int32_t nbInputs, DimsExprs const* shapeInputs,
        int32_t nbShapeInputs, DimsExprs* outputs, int32_t nbOutputs, IExprBuilder& exprBuilder) noexcept = 0;

    //! As IPluginV3OneBuild::configurePlugin().
    virtual int32_t configurePlugin(DynamicPluginTensorDesc const* in, int32_t nbInputs,
        DynamicPluginTensorDesc const* out, int32_t nbOutputs) noexcept = 0;

    //! Number of supported type/format combinations for these I/O characteristics.
    virtual int32_t getNbSupportedFormatCombinations(
        DynamicPluginTensorDesc const* inOut, int32_t nbInputs, int32_t nbOutputs) noexcept = 0;

    //! Write all supported combinations: (nbInputs + nbOutputs) descriptors per combination.
    virtual int32_t getSupportedFormatCombinations(DynamicPluginTensorDesc const* inOut, int32_t nbInputs,
        int32_t nbOutputs, PluginTensorDesc* supportedCombinations, int32_t nbFormatCombinations) noexcept = 0;

    virtual int32_t getNbOutputs() const noexcept = 0;

    //! As v_2_0::IPluginV3OneBuild::getAliasedInput().
    virtual int32_t getAliasedInput(int32_t /*outputIndex*/) noexcept
    {
        return -1;
    }

    //! As IPluginV3OneBuild::getValidTactics().
    virtual int32_t getValidTactics(int32_t* /*tactics*/, int32_t /*nbTactics*/) noexcept
    {
        return 0;
    }

    virtual int32_t getNbTactics() noexcept
    {
        return 0;
    }

    virtual char const* getTimingCacheID() noexcept
    {
        return nullptr;
    }

    virtual char const* getMetadataString() noexcept
    {
        return nullptr;
    }
};

//! Additional build capability of an ahead-of-time compiled quick plugin.
class IPluginV3QuickAOTBuild : public IPluginV3QuickBuild
{
public:
    InterfaceInfo getInterfaceInfo() const noexcept override
    {
        return InterfaceInfo{"PLUGIN_V3QUICKAOT_BUILD", 1, 0};
    }

    //! Launch parameters and extra scalar arguments of the kernel, as expressions of the input shapes, for the
    //! tactic chosen by the preceding setTactic(). Return 0 on success.
    virtual int32_t getLaunchParams(DimsExprs const* inputs, DynamicPluginTensorDesc const* inOut, int32_t nbInputs,
        int32_t nbOutputs, IKernelLaunchParams* launchParams, ISymExprs* extraArgs,
        IExprBuilder& exprBuilder) noexcept = 0;

    //! Name and compiled form (PTX) of the kernel for these I/O descriptors. Return 0 on success.
    virtual int32_t getKernel(PluginTensorDesc const* in, int32_t nbInputs, PluginTensorDesc const* out,
        int32_t nbOutputs, const char** kernelName, char** compiledKernel, int32_t* compiledKernelSize) noexcept = 0;

    //! Select the tactic used by getLaunchParams()/getKernel().
    virtual int32_t setTactic(int32_t /*tactic*/) noexcept
    {
        return 0;
    }
};

//! Runtime capability of a JIT quick plugin.
class IPluginV3QuickRuntime : public IPluginCapability
{
public:
    InterfaceInfo getInterfaceInfo() const noexcept override
    {
        return InterfaceInfo{"PLUGIN_V3QUICK_RUNTIME", 1, 0};
    }

    //! Select the tactic for the following enqueue() calls.
    virtual int32_t setTactic(int32_t /*tactic*/) noexcept
    {
        return 0;
    }

    //! Run the plugin; strides are given per tensor. Return 0 on success.
    virtual int32_t enqueue(PluginTensorDesc const* inputDesc, PluginTensorDesc const* outputDesc,
        void const* const* inputs, void* const* outputs, Dims const* inputStrides, Dims const* outputStrides,
        int32_t nbInputs, int32_t nbOutputs, cudaStream_t stream) noexcept = 0;

    //! Fields that capture the plugin's state for serialization.
    virtual PluginFieldCollection const* getFieldsToSerialize() noexcept = 0;
};

//! Creator of quick plugins.
class IPluginCreatorV3Quick : public IPluginCreatorInterface
{
public:
    InterfaceInfo getInterfaceInfo() const noexcept override
    {
        return InterfaceInfo{"PLUGIN CREATOR_V3QUICK", 1, 0};
    }

    //! Create a plugin for the given phase, honouring the JIT/AOT request; nullptr on error.
    virtual IPluginV3* createPlugin(AsciiChar const* name, AsciiChar const* nspace, PluginFieldCollection const* fc,
        TensorRTPhase phase, QuickPluginCreationRequest quickPluginCreationRequest) noexcept = 0;

    //! Fields that createPlugin() understands in the build phase.
    virtual PluginFieldCollection const* getFieldNames() noexcept = 0;

    virtual AsciiChar const* getPluginName() const noexcept = 0;

    virtual AsciiChar const* getPluginVersion() const noexcept = 0;

    virtual AsciiChar const* getPluginNamespace() const noexcept = 0;

    IPluginCreatorV3Quick() = default;
    virtual ~IPluginCreatorV3Quick() = default;

protected:
    IPluginCreatorV3Quick(IPluginCreatorV3Quick const&) = default;
    IPluginCreatorV3Quick(IPluginCreatorV3Quick&&) = default;
    IPluginCreatorV3Quick& operator=(IPluginCreatorV3Quick const&) & = default;
    IPluginCreatorV3Quick& operator=(IPluginCreatorV3Quick&&) & = default;
};

} // namespace v_1_0

using IPluginV3QuickCore = v_1_0::IPluginV3QuickCore;
using IPluginV3QuickBuild = v_1_0::IPluginV3QuickBuild;
using IPluginV3QuickAOTBuild = v_1_0::IPluginV3QuickAOTBuild;
using IPluginV3QuickRuntime = v_1_0::IPluginV3QuickRuntime;
using IPluginCreatorV3Quick = v_1_0::IPluginCreatorV3Quick;

} // namespace nvinfer1

#endif // TRT_PYTHON_IMPL_PLUGIN_H
