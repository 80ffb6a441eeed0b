// SPDX-License-Identifier: MIT
// The cache entry reader (decode_cache_entry) on arbitrary bytes. Input: 16 bytes of key, then
// the entry. Properties: never crashes or reads out of bounds; whatever it accepts re-encodes
// to exactly the same bytes (so only entries the writer could have made are accepted); and
// every encoding of the input decodes back under its key and under no other key.
#include <cstdint>
#include <cstring>
#include <string>

#include "fuzz_common.hpp"
#include "program_cache.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 16) return 0;
  clforge::detail::cache_key key;
  std::memcpy(&key.high, data, 8);
  std::memcpy(&key.low, data + 8, 8);
  const std::string entry(reinterpret_cast<const char*>(data + 16), size - 16);

  std::string binary;
  if (clforge::detail::decode_cache_entry(key, entry, binary))
    FUZZ_CHECK(clforge::detail::encode_cache_entry(key, binary) == entry);

  const std::string encoded = clforge::detail::encode_cache_entry(key, entry);
  std::string back;
  FUZZ_CHECK(clforge::detail::decode_cache_entry(key, encoded, back) && back == entry);
  clforge::detail::cache_key other = key;
  other.low ^= 1;
  FUZZ_CHECK(!clforge::detail::decode_cache_entry(other, encoded, back));
  return 0;
}
