// jsonTextTest.cpp — JSON string literals (core/jsonText.h, used by the engine inspector and attribute dumps, and
// kilnexec's own copy in tools/kilnexec/jsonText.h) stay valid JSON whatever the bytes: a reference decoder reads
// each literal back; valid UTF-8 text (any code point, controls, quotes and backslashes) must come back unchanged,
// and every byte that is not part of well-formed UTF-8 must come back as U+FFFD.
#include "core/jsonText.h"
#include "jsonText.h" // kilnexec's

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <vector>

namespace kiln
{
namespace
{

void appendUtf8(std::string& out, uint32_t cp)
{
    if (cp < 0x80)
    {
        out += static_cast<char>(cp);
    }
    else if (cp < 0x800)
    {
        out += static_cast<char>(0xC0 | (cp >> 6));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    }
    else if (cp < 0x10000)
    {
        out += static_cast<char>(0xE0 | (cp >> 12));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    }
    else
    {
        out += static_cast<char>(0xF0 | (cp >> 18));
        out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    }
}

//! Decodes a JSON string literal strictly (RFC 8259): quotes around, no raw control character, only the defined
//! escapes; \u escapes become UTF-8. Raw bytes are copied (validity is checked by the caller). False when invalid.
bool decodeLiteral(std::string const& literal, std::string& out)
{
    if (literal.size() < 2 || literal.front() != '"' || literal.back() != '"')
    {
        return false;
    }
    for (size_t i = 1; i + 1 < literal.size(); ++i)
    {
        auto const c = static_cast<unsigned char>(literal[i]);
        if (c < 0x20 || c == '"')
        {
            return false;
        }
        if (c != '\\')
        {
            out += static_cast<char>(c);
            continue;
        }
        if (i + 2 >= literal.size())
        {
            return false;
        }
        char const e = literal[++i];
        std::string const simple = "\"\\/bfnrt";
        std::string const meaning = "\"\\/\b\f\n\r\t";
        if (simple.find(e) != std::string::npos)
        {
            out += meaning[simple.find(e)];
            continue;
        }
        if (e != 'u' || i + 5 >= literal.size())
        {
            return false;
        }
        uint32_t const cp = static_cast<uint32_t>(std::stoul(literal.substr(i + 1, 4), nullptr, 16));
        if (cp >= 0xD800 && cp <= 0xDFFF)
        {
            return false; // the escaper never needs surrogate pairs
        }
        appendUtf8(out, cp);
        i += 4;
    }
    return true;
}

//! A random code point: ASCII (controls, quote, backslash included) or any scalar value of 2, 3 or 4 bytes.
uint32_t randomCodePoint(std::mt19937& rng)
{
    switch (rng() % 4)
    {
    case 0: return rng() % 0x80;
    case 1: return 0x80 + rng() % (0x800 - 0x80);
    case 2:
    {
        uint32_t cp = 0x800 + rng() % (0x10000 - 0x800);
        return cp >= 0xD800 && cp <= 0xDFFF ? cp - 0x800 : cp;
    }
    default: return 0x10000 + rng() % (0x110000 - 0x10000);
    }
}

using Escaper = std::function<std::string(std::string const&)>;

void checkEscaper(Escaper const& escape, char const* which)
{
    std::mt19937 rng(2017);
    // Lone continuation bytes, overlong leads, bytes above F4, encoded surrogates, truncated sequences.
    std::vector<std::string> const invalid = {"\x80", "\xbf", "\xc0\xaf", "\xc1\x81", "\xf5\x80\x80\x80", "\xff",
        "\xed\xa0\x80", "\xe2\x82", "\xf0\x9f\x98"};
    std::vector<size_t> const invalidBytes = {1, 1, 2, 2, 4, 1, 3, 2, 3}; // bytes each one is replaced by U+FFFD
    std::string replacement;
    appendUtf8(replacement, 0xFFFD);
    for (int round = 0; round < 300; ++round)
    {
        std::string text;
        std::string expected;
        for (int k = 0; k < 1 + static_cast<int>(rng() % 12); ++k)
        {
            if (rng() % 4 == 0)
            {
                size_t const pick = rng() % invalid.size();
                text += invalid[pick];
                for (size_t b = 0; b < invalidBytes[pick]; ++b)
                {
                    expected += replacement;
                }
                // A following ASCII letter ends a truncated sequence, as it would in a name.
                text += 'z';
                expected += 'z';
                continue;
            }
            std::string ch;
            appendUtf8(ch, randomCodePoint(rng));
            text += ch;
            expected += ch;
        }
        std::string const literal = escape(text);
        std::string decoded;
        ASSERT_TRUE(decodeLiteral(literal, decoded)) << which << ": not a JSON string literal: " << literal;
        for (size_t pos = 0; pos < literal.size(); pos += std::max<size_t>(utf8SequenceLength(literal, pos), 1))
        {
            ASSERT_NE(utf8SequenceLength(literal, pos), 0U) << which << ": invalid UTF-8 in " << literal;
        }
        EXPECT_EQ(decoded, expected) << which << ": round " << round;
    }
}

TEST(JsonText, CoreEscaperRoundTripsAndReplacesInvalidBytes)
{
    checkEscaper([](std::string const& s) { return jsonString(s); }, "kiln::jsonString");
}

TEST(JsonText, KilnexecEscaperRoundTripsAndReplacesInvalidBytes)
{
    checkEscaper([](std::string const& s) { return kilnexec::jsonString(s); }, "kilnexec::jsonString");
}

TEST(JsonText, Utf8SequenceLengths)
{
    EXPECT_EQ(utf8SequenceLength("a", 0), 1U);
    EXPECT_EQ(utf8SequenceLength("\xc3\xa9", 0), 2U);
    EXPECT_EQ(utf8SequenceLength("\xe2\x82\xac", 0), 3U);
    EXPECT_EQ(utf8SequenceLength("\xf4\x8f\xbf\xbf", 0), 4U);  // U+10FFFF
    EXPECT_EQ(utf8SequenceLength("\xf4\x90\x80\x80", 0), 0U);  // above U+10FFFF
    EXPECT_EQ(utf8SequenceLength("\xe0\x80\x80", 0), 0U);      // overlong
    EXPECT_EQ(utf8SequenceLength("\xc3", 0), 0U);              // truncated
    EXPECT_EQ(utf8SequenceLength("", 0), 0U);
}

} // namespace
} // namespace kiln
