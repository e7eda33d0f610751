// jsonText: JSON string literals that are valid whatever the bytes they hold (tensor and layer names come from
// models and engine files): quotes, backslashes and control characters escaped, invalid UTF-8 replaced by U+FFFD.
#pragma once

#include <cstddef>
#include <string>

namespace kiln
{

//! Length of the well-formed UTF-8 sequence (RFC 3629: no overlong forms, no surrogates, at most U+10FFFF) that
//! starts text[pos], or 0 when the bytes there are not one.
size_t utf8SequenceLength(std::string const& text, size_t pos);

//! `text` as a JSON string literal, quotes included.
std::string jsonString(std::string const& text);

} // namespace kiln
