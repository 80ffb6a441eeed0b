// SPDX-License-Identifier: MIT
// A small PNG writer (zlib's deflate) for clforge-demo's masks and the examples' pictures:
// 1-bit two-colour masks and 8-bit RGB images.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace clforge_png {

/// The PNG file bytes of a width x height two-colour image (row-major, one byte per pixel:
/// 0 is black, anything else white), stored as 1-bit greyscale, deflate-compressed.
std::vector<std::uint8_t> encode_png_mask(const std::uint8_t* pixels, std::size_t width,
                                          std::size_t height);

/// The PNG file bytes of a width x height colour image (row-major, three bytes per pixel: red,
/// green, blue), stored as 8-bit RGB, deflate-compressed.
std::vector<std::uint8_t> encode_png_rgb(const std::uint8_t* pixels, std::size_t width,
                                         std::size_t height);

/// Writes encode_png_mask(...) to `path`; false when the file cannot be written completely.
bool write_png_mask(const std::string& path, const std::uint8_t* pixels, std::size_t width,
                    std::size_t height);

/// Writes encode_png_rgb(...) to `path`; false when the file cannot be written completely.
bool write_png_rgb(const std::string& path, const std::uint8_t* pixels, std::size_t width,
                   std::size_t height);

}  // namespace clforge_png
