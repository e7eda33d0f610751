// JSON text helpers for kilnexec.
#include "jsonText.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>

namespace kilnexec
{

namespace
{

//! Bytes of the well-formed UTF-8 character at text[pos] (RFC 3629), or 0 for an invalid byte there.
size_t utf8Length(std::string const& text, size_t pos)
{
    auto at = [&](size_t i) { return i < text.size() ? static_cast<unsigned char>(text[i]) : 0U; };
    unsigned const lead = at(pos);
    // For each lead byte: the sequence length and the range of the second byte (no overlong forms, no surrogates,
    // nothing above U+10FFFF); every later byte is a plain continuation byte 0x80..0xBF.
    size_t length = lead < 0x80 ? 1 : lead < 0xC2 ? 0 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : lead < 0xF5 ? 4 : 0;
    unsigned const second = at(pos + 1);
    unsigned const lo = lead == 0xE0 ? 0xA0 : lead == 0xF0 ? 0x90 : 0x80;
    unsigned const hi = lead == 0xED ? 0x9F : lead == 0xF4 ? 0x8F : 0xBF;
    if (length > 1 && (second < lo || second > hi))
    {
        return 0;
    }
    for (size_t i = 2; i < length; ++i)
    {
        length = at(pos + i) >= 0x80 && at(pos + i) <= 0xBF ? length : 0;
    }
    return pos + length <= text.size() ? length : 0;
}

} // namespace

std::string jsonString(std::string const& text)
{
    std::string out = "\"";
    for (size_t pos = 0; pos < text.size();)
    {
        size_t const length = utf8Length(text, pos);
        auto const c = static_cast<unsigned char>(text[pos]);
        if (length == 0)
        {
            out += "\\ufffd"; // not UTF-8: the replacement character keeps the file valid JSON
            ++pos;
            continue;
        }
        if (c == '"' || c == '\\')
        {
            out += '\\';
        }
        if (c < 0x20)
        {
            char buffer[8];
            std::snprintf(buffer, sizeof(buffer), "\\u%04x", static_cast<unsigned>(c));
            out += buffer;
        }
        else
        {
            out.append(text, pos, length);
        }
        pos += length;
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
