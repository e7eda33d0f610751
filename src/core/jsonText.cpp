// jsonText implementation: a UTF-8 validator and the JSON string escaper built on it.
#include "core/jsonText.h"

#include <cstdio>

namespace kiln
{

size_t utf8SequenceLength(std::string const& text, size_t pos)
{
    auto byte = [&](size_t i) -> unsigned { return i < text.size() ? static_cast<unsigned char>(text[i]) : 0U; };
    auto inRange = [&](size_t i, unsigned lo, unsigned hi) { return i < text.size() && byte(i) >= lo && byte(i) <= hi; };
    unsigned const b0 = byte(pos);
    if (pos >= text.size())
    {
        return 0;
    }
    if (b0 < 0x80)
    {
        return 1;
    }
    // The allowed range of the second byte depends on the first (excludes overlong forms and surrogates).
    unsigned lo = 0x80;
    unsigned hi = 0xBF;
    size_t length = 0;
    if (b0 >= 0xC2 && b0 <= 0xDF)
    {
        length = 2;
    }
    else if (b0 >= 0xE0 && b0 <= 0xEF)
    {
        length = 3;
        lo = b0 == 0xE0 ? 0xA0 : 0x80;
        hi = b0 == 0xED ? 0x9F : 0xBF;
    }
    else if (b0 >= 0xF0 && b0 <= 0xF4)
    {
        length = 4;
        lo = b0 == 0xF0 ? 0x90 : 0x80;
        hi = b0 == 0xF4 ? 0x8F : 0xBF;
    }
    else
    {
        return 0;
    }
    if (!inRange(pos + 1, lo, hi))
    {
        return 0;
    }
    for (size_t i = 2; i < length; ++i)
    {
        if (!inRange(pos + i, 0x80, 0xBF))
        {
            return 0;
        }
    }
    return length;
}

std::string jsonString(std::string const& text)
{
    std::string out = "\"";
    for (size_t pos = 0; pos < text.size();)
    {
        char const c = text[pos];
        size_t const length = utf8SequenceLength(text, pos);
        if (length == 0)
        {
            out += "\\ufffd"; // an invalid byte: the replacement character, as decoders do
            ++pos;
            continue;
        }
        if (length > 1)
        {
            out.append(text, pos, length);
        }
        else if (c == '"' || c == '\\')
        {
            out += '\\';
            out += c;
        }
        else if (c == '\n')
        {
            out += "\\n";
        }
        else if (c == '\t')
        {
            out += "\\t";
        }
        else if (c == '\r')
        {
            out += "\\r";
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
        pos += length;
    }
    return out + "\"";
}

} // namespace kiln
