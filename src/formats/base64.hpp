// Standard base64 (RFC 4648 alphabet, '=' padding, as Go's base64.StdEncoding writes it), written
// once for the tree. Decoding is strict: no whitespace, length a multiple of 4, padding only at the
// end, unused bits zero; errors are one line starting "base64: " and naming the offset.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.hpp"

namespace cuzk::formats {

std::string base64_encode(std::span<const std::uint8_t> bytes);
// Writes (bytes.size() + 2) / 3 * 4 characters at out.
void base64_encode_into(std::span<const std::uint8_t> bytes, char* out);

// `extra` zero bytes are allocated after the decoded data (e.g. a parser's padding); they are not part
// of the returned size.
Result<std::vector<std::uint8_t>> base64_decode(std::string_view text, std::size_t extra = 0);
// Decoded size of a padded base64 text, or an error when its length is malformed.
Result<std::size_t> base64_decoded_size(std::string_view text);
// Decodes into out[0 .. base64_decoded_size(text)); returns an error message, or "" on success.
std::string base64_decode_into(std::string_view text, std::uint8_t* out);

}  // namespace cuzk::formats
