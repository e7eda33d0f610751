// ScopedEnv: sets (or, for nullptr, unsets) an environment variable for a test's scope and restores it after.
#pragma once

#include <cstdlib>
#include <string>

namespace kiln::test
{

//! Sets an environment variable for the scope of a test and restores it.
class ScopedEnv
{
public:
    ScopedEnv(char const* name, char const* value)
        : mName(name)
    {
        char const* old = std::getenv(name);
        mHad = old != nullptr;
        mOld = mHad ? old : "";
        if (value != nullptr)
        {
            setenv(name, value, 1);
        }
        else
        {
            unsetenv(name);
        }
    }
    ~ScopedEnv()
    {
        if (mHad)
        {
            setenv(mName.c_str(), mOld.c_str(), 1);
        }
        else
        {
            unsetenv(mName.c_str());
        }
    }

private:
    std::string mName;
    std::string mOld;
    bool mHad{false};
};

} // namespace kiln::test
