// SPDX-License-Identifier: MIT
#include "png.hpp"

#include <zlib.h>

#include <cstdio>
#include <stdexcept>

namespace clforge_demo {

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
}  // namespace

std::vector<std::uint8_t> encode_png_mask(const std::uint8_t* pixels, std::size_t width,
                                          std::size_t height) {
  // The raw image data: each row is filter type 0 (none), then the pixels packed 8 to a byte,
  // the first pixel in the most significant bit.
  const std::size_t row_bytes = (width + 7) / 8;
  std::vector<std::uint8_t> raw((row_bytes + 1) * height, 0);
  for (std::size_t y = 0; y < height; ++y) {
    std::uint8_t* row = raw.data() + y * (row_bytes + 1) + 1;
    for (std::size_t x = 0; x < width; ++x)
      if (pixels[y * width + x]) row[x / 8] |= static_cast<std::uint8_t>(0x80u >> (x % 8));
  }
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
  header.insert(header.end(),
                {1, 0, 0, 0, 0});  // 1 bit, greyscale, deflate, adaptive, no interlace
  chunk(png, "IHDR", header);
  chunk(png, "IDAT", z);
  chunk(png, "IEND", {});
  return png;
}

bool write_png_mask(const std::string& path, const std::uint8_t* pixels, std::size_t width,
                    std::size_t height) {
  const std::vector<std::uint8_t> png = encode_png_mask(pixels, width, height);
  std::FILE* file = std::fopen(path.c_str(), "wb");
  if (!file) return false;
  const bool written = std::fwrite(png.data(), 1, png.size(), file) == png.size();
  return std::fclose(file) == 0 && written;
}

}  // namespace clforge_demo
