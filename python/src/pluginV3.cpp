// Method bodies of the IPluginV3 trampolines and of PyPluginV3Owner (see pluginV3.h). Python methods use
// tensorrt's names and signatures; where tensorrt's C++ returns an error code, the Python method raises instead,
// and the trampoline turns the exception into that error code after logging the Python message.
#include "pluginV3.h"

namespace kiln::python
{

using namespace nvinfer1;

namespace
{

//! Write a Python list of DimsExprs into `outputs`.
void copyShapes(py::object const& result, DimsExprs* outputs, int32_t nbOutputs)
{
    auto const list = result.cast<std::vector<DimsExprs>>();
    if (static_cast<int32_t>(list.size()) != nbOutputs)
    {
        throw py::value_error("get_output_shapes() returned " + std::to_string(list.size()) + " shapes for "
            + std::to_string(nbOutputs) + " outputs");
    }
    for (int32_t i = 0; i < nbOutputs; ++i)
    {
        outputs[i] = list[static_cast<size_t>(i)];
    }
}

} // namespace

std::string capabilityLabel(py::handle self, char const* capability)
{
    std::string name = "?";
    if (self && py::hasattr(self, "plugin_name"))
    {
        py::object n = self.attr("plugin_name");
        if (!n.is_none())
        {
            name = py::str(n).cast<std::string>();
        }
    }
    return "Python plugin '" + name + "' (" + capability + ")";
}

IPluginV3* adoptPluginV3(py::object result, py::handle self, char const* method)
{
    if (result.is_none())
    {
        throw py::value_error(std::string(method) + "() returned None");
    }
    if (result.is(self))
    {
        throw py::value_error(std::string(method) + "() returned self; return a new plugin object");
    }
    if (!py::isinstance<IPluginV3>(result))
    {
        throw py::type_error(std::string(method) + "() must return an IPluginV3");
    }
    auto* inner = result.cast<IPluginV3*>();
    return new PyPluginV3Owner(std::move(result), inner);
}

// ---- PyPluginV3 -------------------------------------------------------------------------------------------------

std::string PyPluginV3::pyLabel() const
{
    return capabilityLabel(pyInstanceOf<IPluginV3>(this), "IPluginV3");
}

IPluginCapability* PyPluginV3::getCapabilityInterface(PluginCapabilityType type) noexcept
{
    return callPython(static_cast<PyBacked const*>(this), "get_capability_interface",
        static_cast<IPluginCapability*>(nullptr), [&]() -> IPluginCapability* {
            py::function f = pyOverride<IPluginV3>(this, "get_capability_interface");
            if (!f)
            {
                throw py::type_error("get_capability_interface() is not implemented");
            }
            py::object cap = f(type);
            if (cap.is_none())
            {
                return nullptr;
            }
            IPluginCapability* out = nullptr;
            switch (type)
            {
            case PluginCapabilityType::kCORE: out = cap.cast<IPluginV3OneCore*>(); break;
            case PluginCapabilityType::kBUILD: out = cap.cast<v_1_0::IPluginV3OneBuild*>(); break;
            case PluginCapabilityType::kRUNTIME: out = cap.cast<IPluginV3OneRuntime*>(); break;
            }
            if (!cap.is(pyInstanceOf<IPluginV3>(this)))
            {
                mCapabilities[static_cast<int32_t>(type)] = cap;
            }
            return out;
        });
}

IPluginV3* PyPluginV3::clone() noexcept
{
    return callPython(static_cast<PyBacked const*>(this), "clone", static_cast<IPluginV3*>(nullptr), [&]() -> IPluginV3* {
        py::function f = pyOverride<IPluginV3>(this, "clone");
        if (!f)
        {
            throw py::type_error("clone() is not implemented");
        }
        return adoptPluginV3(f(), pyInstanceOf<IPluginV3>(this), "clone");
    });
}

// ---- PyPluginV3OneCore ------------------------------------------------------------------------------------------

std::string PyPluginV3OneCore::pyLabel() const
{
    return "Python plugin '" + mName + "' (IPluginV3OneCore)";
}

// ---- PyPluginV3OneBuildT ----------------------------------------------------------------------------------------

template <class Base>
std::string PyPluginV3OneBuildT<Base>::pyLabel() const
{
    return capabilityLabel(pyInstanceOf<Base>(this), "IPluginV3OneBuild");
}

template <class Base>
int32_t PyPluginV3OneBuildT<Base>::configurePlugin(
    DynamicPluginTensorDesc const* in, int32_t nbInputs, DynamicPluginTensorDesc const* out, int32_t nbOutputs) noexcept
{
    return callPython(static_cast<PyBacked const*>(this), "configure_plugin", int32_t{-1}, [&]() -> int32_t {
        py::function f = pyOverride<Base>(this, "configure_plugin");
        if (!f)
        {
            throw py::type_error("configure_plugin() is not implemented");
        }
        f(toPyList(in, nbInputs), toPyList(out, nbOutputs));
        return 0;
    });
}

template <class Base>
int32_t PyPluginV3OneBuildT<Base>::getOutputDataTypes(
    DataType* outputTypes, int32_t nbOutputs, DataType const* inputTypes, int32_t nbInputs) const noexcept
{
    return callPython(static_cast<PyBacked const*>(this), "get_output_data_types", int32_t{-1}, [&]() -> int32_t {
        py::function f = pyOverride<Base>(this, "get_output_data_types");
        if (!f)
        {
            throw py::type_error("get_output_data_types() is not implemented");
        }
        auto const types = f(toPyList(inputTypes, nbInputs)).template cast<std::vector<DataType>>();
        if (static_cast<int32_t>(types.size()) != nbOutputs)
        {
            throw py::value_error("get_output_data_types() returned " + std::to_string(types.size())
                + " types for " + std::to_string(nbOutputs) + " outputs");
        }
        for (int32_t i = 0; i < nbOutputs; ++i)
        {
            outputTypes[i] = types[static_cast<size_t>(i)];
        }
        return 0;
    });
}

template <class Base>
int32_t PyPluginV3OneBuildT<Base>::getOutputShapes(DimsExprs const* inputs, int32_t nbInputs,
    DimsExprs const* shapeInputs, int32_t nbShapeInputs, DimsExprs* outputs, int32_t nbOutputs,
    IExprBuilder& exprBuilder) noexcept
{
    return callPython(static_cast<PyBacked const*>(this), "get_output_shapes", int32_t{-1}, [&]() -> int32_t {
        py::function f = pyOverride<Base>(this, "get_output_shapes");
        if (!f)
        {
            throw py::type_error("get_output_shapes() is not implemented");
        }
        py::object result = f(toPyList(inputs, nbInputs), toPyList(shapeInputs, nbShapeInputs),
            py::cast(&exprBuilder, py::return_value_policy::reference));
        copyShapes(result, outputs, nbOutputs);
        return 0;
    });
}

template <class Base>
bool PyPluginV3OneBuildT<Base>::supportsFormatCombination(
    int32_t pos, DynamicPluginTensorDesc const* inOut, int32_t nbInputs, int32_t nbOutputs) noexcept
{
    return callPython(static_cast<PyBacked const*>(this), "supports_format_combination", false, [&]() -> bool {
        py::function f = pyOverride<Base>(this, "supports_format_combination");
        if (!f)
        {
            throw py::type_error("supports_format_combination() is not implemented");
        }
        return f(pos, toPyList(inOut, nbInputs + nbOutputs), nbInputs).template cast<bool>();
    });
}

template <class Base>
int32_t PyPluginV3OneBuildT<Base>::getNbOutputs() const noexcept
{
    if (mNbOutputs < 0)
    {
        reportPluginError(pyLabel() + ": the attribute num_outputs was never set");
    }
    return mNbOutputs;
}

template <class Base>
size_t PyPluginV3OneBuildT<Base>::getWorkspaceSize(
    DynamicPluginTensorDesc const* inputs, int32_t nbInputs, DynamicPluginTensorDesc const* outputs, int32_t nbOutputs) const noexcept
{
    return callPython(static_cast<PyBacked const*>(this), "get_workspace_size", size_t{0}, [&]() -> size_t {
        if (py::function f = pyOverride<Base>(this, "get_workspace_size"))
        {
            return f(toPyList(inputs, nbInputs), toPyList(outputs, nbOutputs)).template cast<size_t>();
        }
        return 0;
    });
}

template <class Base>
int32_t PyPluginV3OneBuildT<Base>::getNbTactics() noexcept
{
    return callPython(static_cast<PyBacked const*>(this), "get_valid_tactics", int32_t{-1}, [&]() -> int32_t {
        mTactics.clear();
        if (py::function f = pyOverride<Base>(this, "get_valid_tactics"))
        {
            mTactics = f().template cast<std::vector<int32_t>>();
        }
        return static_cast<int32_t>(mTactics.size());
    });
}

template <class Base>
int32_t PyPluginV3OneBuildT<Base>::getValidTactics(int32_t* tactics, int32_t nbTactics) noexcept
{
    if (static_cast<int32_t>(mTactics.size()) != nbTactics && getNbTactics() != nbTactics)
    {
        reportPluginError(pyLabel() + ": get_valid_tactics() changed its number of tactics");
        return -1;
    }
    std::copy(mTactics.begin(), mTactics.end(), tactics);
    return 0;
}

template <class Base>
char const* PyPluginV3OneBuildT<Base>::getTimingCacheID() noexcept
{
    return mHasTimingCacheId ? mTimingCacheId.c_str() : nullptr;
}

template <class Base>
int32_t PyPluginV3OneBuildT<Base>::getFormatCombinationLimit() noexcept
{
    return mFormatCombinationLimit;
}

template <class Base>
char const* PyPluginV3OneBuildT<Base>::getMetadataString() noexcept
{
    return mHasMetadata ? mMetadata.c_str() : nullptr;
}

template class PyPluginV3OneBuildT<v_1_0::IPluginV3OneBuild>;
template class PyPluginV3OneBuildT<v_2_0::IPluginV3OneBuild>;

int32_t PyPluginV3OneBuildV2::getAliasedInput(int32_t outputIndex) noexcept
{
    return callPython(static_cast<PyBacked const*>(this), "get_aliased_input", int32_t{-1}, [&]() -> int32_t {
        if (py::function f = pyOverride<v_2_0::IPluginV3OneBuild>(this, "get_aliased_input"))
        {
            return f(outputIndex).cast<int32_t>();
        }
        return -1;
    });
}

// ---- PyPluginV3OneRuntime ---------------------------------------------------------------------------------------

std::string PyPluginV3OneRuntime::pyLabel() const
{
    return capabilityLabel(pyInstanceOf<IPluginV3OneRuntime>(this), "IPluginV3OneRuntime");
}

int32_t PyPluginV3OneRuntime::setTactic(int32_t tactic) noexcept
{
    return callPython(static_cast<PyBacked const*>(this), "set_tactic", int32_t{-1}, [&]() -> int32_t {
        if (py::function f = pyOverride<IPluginV3OneRuntime>(this, "set_tactic"))
        {
            f(tactic);
        }
        return 0;
    });
}

int32_t PyPluginV3OneRuntime::onShapeChange(
    PluginTensorDesc const* in, int32_t nbInputs, PluginTensorDesc const* out, int32_t nbOutputs) noexcept
{
    mNbInputs = nbInputs;
    mNbOutputs = nbOutputs;
    return callPython(static_cast<PyBacked const*>(this), "on_shape_change", int32_t{-1}, [&]() -> int32_t {
        py::function f = pyOverride<IPluginV3OneRuntime>(this, "on_shape_change");
        if (!f)
        {
            throw py::type_error("on_shape_change() is not implemented");
        }
        f(toPyList(in, nbInputs), toPyList(out, nbOutputs));
        return 0;
    });
}

int32_t PyPluginV3OneRuntime::enqueue(PluginTensorDesc const* inputDesc, PluginTensorDesc const* outputDesc,
    void const* const* inputs, void* const* outputs, void* workspace, cudaStream_t stream) noexcept
{
    if (mNbInputs < 0)
    {
        reportPluginError(pyLabel() + ": enqueue() called before on_shape_change()");
        return -1;
    }
    return callPython(static_cast<PyBacked const*>(this), "enqueue", int32_t{-1}, [&]() -> int32_t {
        py::function f = pyOverride<IPluginV3OneRuntime>(this, "enqueue");
        if (!f)
        {
            throw py::type_error("enqueue() is not implemented");
        }
        // Host views on the CPU backend, __cuda_array_interface__ objects on the CUDA backend.
        bool const onDevice = enqueueOnDevice(inputs, mNbInputs, outputs, mNbOutputs, workspace);
        py::list ins = makeBuffers(inputs, inputDesc, mNbInputs, onDevice, stream);
        py::list outs = makeBuffers(outputs, outputDesc, mNbOutputs, onDevice, stream);
        py::object r = f(toPyList(inputDesc, mNbInputs), toPyList(outputDesc, mNbOutputs), ins, outs,
            makeRawBuffer(workspace, 0, onDevice, stream), py::int_(reinterpret_cast<uintptr_t>(stream)));
        if (!r.is_none() && py::isinstance<py::int_>(r) && r.cast<int64_t>() != 0)
        {
            throw py::value_error("enqueue() returned the error code " + std::to_string(r.cast<int64_t>()));
        }
        return 0;
    });
}

IPluginV3* PyPluginV3OneRuntime::attachToContext(IPluginResourceContext* context) noexcept
{
    return callPython(static_cast<PyBacked const*>(this), "attach_to_context", static_cast<IPluginV3*>(nullptr),
        [&]() -> IPluginV3* {
            py::function f = pyOverride<IPluginV3OneRuntime>(this, "attach_to_context");
            if (!f)
            {
                throw py::type_error("attach_to_context() is not implemented");
            }
            py::object self = pyInstanceOf<IPluginV3OneRuntime>(this);
            return adoptPluginV3(f(py::cast(context, py::return_value_policy::reference)), self, "attach_to_context");
        });
}

PluginFieldCollection const* PyPluginV3OneRuntime::getFieldsToSerialize() noexcept
{
    return callPython(static_cast<PyBacked const*>(this), "get_fields_to_serialize",
        static_cast<PluginFieldCollection const*>(nullptr), [&]() -> PluginFieldCollection const* {
            py::function f = pyOverride<IPluginV3OneRuntime>(this, "get_fields_to_serialize");
            if (!f)
            {
                throw py::type_error("get_fields_to_serialize() is not implemented");
            }
            py::object fields = f();
            if (!py::isinstance<PyPluginFieldCollection>(fields))
            {
                fields = py::cast(PyPluginFieldCollection(fields.cast<std::vector<py::object>>()));
            }
            mFields = fields;
            return mFields.cast<PyPluginFieldCollection&>().view();
        });
}

// ---- PyPluginCreatorV3One ---------------------------------------------------------------------------------------

std::string PyPluginCreatorV3One::pyLabel() const
{
    return "Python plugin creator '" + mName + "' (IPluginCreatorV3One)";
}

IPluginV3* PyPluginCreatorV3One::createPlugin(AsciiChar const* name, PluginFieldCollection const* fc, TensorRTPhase phase) noexcept
{
    return callPython(static_cast<PyBacked const*>(this), "create_plugin", static_cast<IPluginV3*>(nullptr),
        [&]() -> IPluginV3* {
            py::function f = pyOverride<IPluginCreatorV3One>(this, "create_plugin");
            if (!f)
            {
                throw py::type_error("create_plugin() is not implemented");
            }
            py::object fields = py::cast(PyPluginFieldCollection::fromC(fc));
            return adoptPluginV3(f(name != nullptr ? name : "", fields, phase), py::none(), "create_plugin");
        });
}

PluginFieldCollection const* PyPluginCreatorV3One::getFieldNames() noexcept
{
    return callPython(static_cast<PyBacked const*>(this), "field_names",
        static_cast<PluginFieldCollection const*>(nullptr), [&]() -> PluginFieldCollection const* {
            if (!mFieldNames)
            {
                mFieldNames = py::cast(PyPluginFieldCollection());
            }
            return mFieldNames.cast<PyPluginFieldCollection&>().view();
        });
}

} // namespace kiln::python
