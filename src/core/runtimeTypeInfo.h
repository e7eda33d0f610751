// runtimeTypeInfo.h — dynamic_cast that is safe on objects of user code compiled without RTTI (-fno-rtti). Such a
// class's vtable has a null type-information slot, and dynamic_cast reads through it (SIGSEGV). Every place where
// Kiln asks the type of an object that came through the public API goes through safeDynamicCast.
#pragma once

#include <type_traits>

namespace kiln
{

//! True when the polymorphic object's class carries type information, so that dynamic_cast may inspect it.
//! Itanium C++ ABI (GCC, Clang): the vtable slot just before the one the object's vptr points at holds the
//! address of the class's std::type_info, and -fno-rtti code leaves it null. Without that ABI the answer is
//! false, so that no cast is ever tried on an object Kiln cannot check.
inline bool hasRuntimeTypeInfo(void const* polymorphicSubobject) noexcept
{
#if defined(__GXX_ABI_VERSION)
    if (polymorphicSubobject == nullptr)
    {
        return false;
    }
    auto const* const* vtable = *static_cast<void const* const* const*>(polymorphicSubobject);
    return vtable != nullptr && vtable[-1] != nullptr;
#else
    (void) polymorphicSubobject;
    return false;
#endif
}

//! dynamic_cast<To*>(object), or nullptr when the object is null or its class has no type information.
template <typename To, typename From>
To* safeDynamicCast(From* object) noexcept
{
    static_assert(std::is_polymorphic<std::remove_cv_t<From>>::value, "safeDynamicCast needs a polymorphic type");
    if (!hasRuntimeTypeInfo(static_cast<void const*>(object)))
    {
        return nullptr;
    }
    return dynamic_cast<To*>(object);
}

} // namespace kiln
