// A minimal PNG writer for 8-bit grayscale images: no compression (zlib "stored" blocks), so
// it needs no library. Enough for a person to look at a mask.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace clforge_demo {

/// The PNG file bytes of a width x height grayscale image (row-major, one byte per pixel).
std::vector<std::uint8_t> encode_png_gray(const std::uint8_t* pixels, std::size_t width,
                                          std::size_t height);

/// Writes encode_png_gray(...) to `path`; false when the file cannot be written.
bool write_png_gray(const std::string& path, const std::uint8_t* pixels, std::size_t width,
                    std::size_t height);

/// CRC-32 (ISO 3309, as PNG chunks use it) and Adler-32 (as zlib streams end with it).
std::uint32_t crc32(const std::uint8_t* data, std::size_t size, std::uint32_t crc = 0);
std::uint32_t adler32(const std::uint8_t* data, std::size_t size, std::uint32_t adler = 1);

}  // namespace clforge_demo
