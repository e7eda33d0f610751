// pyTypeHook.h — how pybind11 finds the dynamic type of a C++ object it hands to Python, made safe for objects
// of code compiled without RTTI (plugins and creators of -fno-rtti libraries, issue 17). pybind11's default hook
// applies typeid and dynamic_cast<void const*> to every polymorphic object, which reads the null type information
// of such an object and crashes. This specialization asks core/runtimeTypeInfo.h first; an object without type
// information reaches Python as its static type. Included right after pybind11 by every binding source (through
// bindings.h and pyCommon.h) so that all of them use the same hook.
#pragma once

#include "core/runtimeTypeInfo.h"

#include <pybind11/pybind11.h>

#include <type_traits>

namespace pybind11
{

template <typename itype>
struct polymorphic_type_hook<itype, detail::enable_if_t<std::is_polymorphic<itype>::value>>
{
    static void const* get(itype const* src, std::type_info const*& type)
    {
        if (!kiln::hasRuntimeTypeInfo(static_cast<void const*>(src)))
        {
            type = nullptr;
            return src;
        }
        return polymorphic_type_hook_base<itype>::get(src, type);
    }
};

} // namespace pybind11
