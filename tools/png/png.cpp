// SPDX-License-Identifier: MIT
#include "png.hpp"

#include <zlib.h>

#include <algorithm>
#include <cstdio>
#include <stdexcept>

namespace clforge_png {

namespace {
void put32(std::vector<std::uint8_t>& out, std::uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<std::uint8_t>(v >> shift));
}

// A chunk: length, type, data, CRC-32 of type + data.
void chunk(std::vector<std::uint8_t>& out, const char* type,
           const std::vector<std::uint8_t>& data) {
  put32(out, static_cast<std::uint32_t>(data.size()));
  const std::size_t start = out.size();
  out.insert(out.end(), type, type + 4);
  out.insert(out.end(), data.begin(), data.end());
  put32(out, static_cast<std::uint32_t>(
                 ::crc32(0, out.data() + start, static_cast<uInt>(out.size() - start))));
}

// The file around `raw` (the rows, each after its filter byte) of an image with `bit_depth`
// and `colour_type` (0 greyscale, 2 RGB).
std::vector<std::uint8_t> file_of(const std::vector<std::uint8_t>& raw, std::size_t width,
                                  std::size_t height, std::uint8_t bit_depth,
                                  std::uint8_t colour_type) {
  uLongf z_size = compressBound(static_cast<uLong>(raw.size()));
  std::vector<std::uint8_t> z(z_size);
  if (compress2(z.data(), &z_size, raw.data(), static_cast<uLong>(raw.size()),
                Z_BEST_COMPRESSION) != Z_OK)
    throw std::runtime_error("png: zlib could not compress the image");
  z.resize(z_size);

  std::vector<std::uint8_t> png = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
  std::vector<std::uint8_t> header;
  put32(header, static_cast<std::uint32_t>(width));
  put32(header, static_cast<std::uint32_t>(height));
  // depth, colour type, deflate, adaptive filtering, no interlace
  header.insert(header.end(), {bit_depth, colour_type, 0, 0, 0});
  chunk(png, "IHDR", header);
  chunk(png, "IDAT", z);
  chunk(png, "IEND", {});
  return png;
}

bool write_file(const std::string& path, const std::vector<std::uint8_t>& png) {
  std::FILE* file = std::fopen(path.c_str(), "wb");
  if (!file) return false;
  const bool written = std::fwrite(png.data(), 1, png.size(), file) == png.size();
  return std::fclose(file) == 0 && written;
}
}  // namespace

std::vector<std::uint8_t> encode_png_mask(const std::uint8_t* pixels, std::size_t width,
                                          std::size_t height) {
  // Each row is filter type 0 (none), then the pixels packed 8 to a byte, the first pixel in
  // the most significant bit.
  const std::size_t row_bytes = (width + 7) / 8;
  std::vector<std::uint8_t> raw((row_bytes + 1) * height, 0);
  for (std::size_t y = 0; y < height; ++y) {
    std::uint8_t* row = raw.data() + y * (row_bytes + 1) + 1;
    for (std::size_t x = 0; x < width; ++x)
      if (pixels[y * width + x]) row[x / 8] |= static_cast<std::uint8_t>(0x80u >> (x % 8));
  }
  return file_of(raw, width, height, 1, 0);
}

std::vector<std::uint8_t> encode_png_rgb(const std::uint8_t* pixels, std::size_t width,
                                         std::size_t height) {
  const std::size_t row_bytes = 3 * width;
  std::vector<std::uint8_t> raw((row_bytes + 1) * height, 0);
  for (std::size_t y = 0; y < height; ++y)
    std::copy(pixels + y * row_bytes, pixels + (y + 1) * row_bytes,
              raw.begin() + static_cast<std::ptrdiff_t>(y * (row_bytes + 1) + 1));
  return file_of(raw, width, height, 8, 2);
}

bool write_png_mask(const std::string& path, const std::uint8_t* pixels, std::size_t width,
                    std::size_t height) {
  return write_file(path, encode_png_mask(pixels, width, height));
}

bool write_png_rgb(const std::string& path, const std::uint8_t* pixels, std::size_t width,
                   std::size_t height) {
  return write_file(path, encode_png_rgb(pixels, width, height));
}

}  // namespace clforge_png
