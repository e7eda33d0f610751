// JSON text helpers for kilnexec.
#include "jsonText.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>

namespace kilnexec
{

std::string jsonString(std::string const& text)
{
    std::string out = "\"";
    for (char c : text)
    {
        if (c == '"' || c == '\\')
        {
            out += '\\';
            out += c;
        }
        else if (static_cast<unsigned char>(c) < 0x20)
        {
            char buffer[8];
            std::snprintf(buffer, sizeof(buffer), "\\u%04x", static_cast<unsigned>(static_cast<unsigned char>(c)));
            out += buffer;
        }
        else
        {
            out += c;
        }
    }
    return out + "\"";
}

std::string numberText(double value, nvinfer1::DataType type)
{
    if (std::isnan(value))
    {
        return "nan";
    }
    if (std::isinf(value))
    {
        return value > 0 ? "inf" : "-inf";
    }
    char buffer[40];
    bool const integer = type == nvinfer1::DataType::kINT32 || type == nvinfer1::DataType::kINT64
        || type == nvinfer1::DataType::kINT8 || type == nvinfer1::DataType::kUINT8 || type == nvinfer1::DataType::kBOOL;
    std::snprintf(buffer, sizeof(buffer), integer ? "%.0f" : "%.9g", value);
    return buffer;
}

std::string jsonNumber(double value, nvinfer1::DataType type)
{
    if (std::isnan(value))
    {
        return "\"NaN\"";
    }
    if (std::isinf(value))
    {
        return value > 0 ? "\"Infinity\"" : "\"-Infinity\"";
    }
    return numberText(value, type);
}

bool writeTextFile(std::string const& path, std::string const& text, char const* flag, std::string& error)
{
    std::ofstream file(path, std::ios::binary | std::ios::trunc);
    if (file)
    {
        file << text;
        file.close();
    }
    if (!file)
    {
        error = std::string("kilnexec: ") + flag + ": cannot write '" + path + "': " + std::strerror(errno);
        return false;
    }
    return true;
}

} // namespace kilnexec
