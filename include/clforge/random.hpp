// SPDX-License-Identifier: MIT
// Counter-based random numbers: Philox4x32-10 (Salmon et al., SC'11; Random123's generator).
//
//   cf::random::uniform(q, x, seed);                 // float/double in [0, 1); integers: all bits
//   cf::random::uniform(q, x, seed, -1.0f, 1.0f);    // [lo, hi)
//   cf::random::normal(q, x, seed, 0.0f, 2.0f);      // mean 0, standard deviation 2
//   cf::random::uniform(q, x, seed, lo, hi, 1000);   // the same numbers as elements 1000.. of a
//                                                    // longer array (stream offset)
//
// Every number is a pure function of (seed, element index): element j of the stream uses
// block b = j / E (E = 4 for types of 32 bits or less, E = 2 for 64-bit types) and word
// j % E of the block's Philox4x32-10 output with counter (b mod 2^32, b / 2^32, 0, 0) and key
// (seed mod 2^32, seed / 2^32); a 64-bit value takes words (2k, 2k+1) as (high, low). So the
// same seed gives the same numbers on every device, work-group size and split into calls
// (fill elements [k, n) with offset k). Values from a block's words w:
//   float  uniform: fma(hi - lo, u, lo) with u = (w >> 8) * 2^-24 (one rounding, so the same
//          on every device), kept below hi (a rounding up to hi gives the largest float below hi)
//   double uniform: the same with 53 bits: (w_hi:w_lo >> 11) * 2^-53
//   integer uniform: without bounds, the low bits of w (all bits of w_hi:w_lo for 64-bit types);
//          with [lo, hi): lo + floor(w * (hi - lo) / 2^32) (2^64 for 64-bit types), which is
//          biased by at most (hi - lo) / 2^32 (resp. 2^64) relative to exactly uniform
//   normal (float, double): Box-Muller on consecutive pairs of uniforms (u1, u2), u1 in (0, 1]:
//          r = sqrt(-2 log u1), element 2k = mean + sd * r cos(2 pi u2), 2k+1 = mean + sd * r
//          sin(2 pi u2); a float block gives 2 pairs, a double block 1 pair.
// The device's sqrt, log, sin and cos may differ from the host's in the last bits (OpenCL
// allows a few ulp); uniform values are exact.
// uniform and normal with one seed use the same counters: use different seeds for independent
// streams. Periods: 2^64 blocks per seed.
//
// In your own kernels: put philox_header() in the preamble and call
// clforge_philox4x32((uint4)(counter...), (uint2)(key...)), clforge_u01_float(word).
#pragma once

#include <array>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

#include "clforge/array_expr.hpp"

namespace clforge::random {

/// OpenCL C source of clforge_philox4x32 and the u01 conversions (kernels/philox.cl).
CLFORGE_API const std::string& philox_header();

/// Philox4x32-10 on the host: the same function as the OpenCL header's.
inline std::array<std::uint32_t, 4> philox4x32(std::array<std::uint32_t, 4> c,
                                               std::array<std::uint32_t, 2> k) {
  for (int round = 0; round < 10; ++round) {
    if (round > 0) {
      k[0] += 0x9E3779B9u;
      k[1] += 0xBB67AE85u;
    }
    const std::uint64_t p0 = std::uint64_t{0xD2511F53u} * c[0];
    const std::uint64_t p1 = std::uint64_t{0xCD9E8D57u} * c[2];
    c = {static_cast<std::uint32_t>(p1 >> 32) ^ c[1] ^ k[0], static_cast<std::uint32_t>(p1),
         static_cast<std::uint32_t>(p0 >> 32) ^ c[3] ^ k[1], static_cast<std::uint32_t>(p0)};
  }
  return c;
}

namespace detail {
template <class T>
struct same_type {
  using type = T;
};
template <class T>
using same_t = typename same_type<T>::type;

// unit_uniform: floating uniform on [0, 1), the same numbers as uniform with lo = 0, hi = 1
// (fma(1, u, 0) is u and u is below nextafter(1, 0)) without that arithmetic.
enum class distribution { bits, uniform, normal, unit_uniform };

/// kernels/random.cl for elements of `type` (`size` bytes) and parameters of `param_type`
/// after `preamble` (the fp64 pragma where needed): the kernels clforge_random_blocks (one
/// vector store per work-item, for arrays whose first whole block starts a vector),
/// clforge_random_blocks_unaligned, clforge_random_blocks8 (eight blocks per work-item, CPUs)
/// and clforge_random_edges (the partial blocks at the ends of a range).
CLFORGE_API program build_generator(const context& ctx, const std::string& preamble,
                                    const std::string& type, const std::string& param_type,
                                    bool is_floating, std::size_t size, distribution d);
/// The work-group size of the whole-block launches (the device's elementwise policy).
CLFORGE_API std::size_t block_group_size(const queue& q, const kernel& k);
[[noreturn]] CLFORGE_API void throw_random_error(const std::string& what);
CLFORGE_API void order_point(const queue& q);

template <class T, class P>
std::string generator_key(distribution d) {
  return std::string("random|") + std::to_string(static_cast<int>(d)) + "|" + type_name<T>() + "|" +
         type_name<P>();
}

template <class T, class P>
const program& generator(const queue& q, distribution d) {
  return clforge::detail::cached_kernel<program>(
      q.ctx(), generator_key<T, P>(d), [&](const context& ctx) {
        clforge::detail::expression_source s;
        s.uses<T>();
        s.uses<P>();
        return build_generator(ctx, clforge::detail::expression_preamble(ctx, s), type_name<T>(),
                               type_name<P>(), std::is_floating_point_v<T>, sizeof(T), d);
      });
}

// `who` names the public function in messages ("clforge::random::uniform").
template <class T, class P>
event generate(const char* who, const queue& q, array<T>& a, std::uint64_t seed, P p0, P p1,
               std::uint64_t offset, distribution d) {
  static_assert(clforge::detail::scalar_index<T>() >= 0,
                "clforge::random: arrays of OpenCL scalar types (char .. ulong, float, double)");
  clforge::detail::require_array_context(a.ctx(), q, who);
  constexpr std::uint64_t per_block = sizeof(T) == 8 ? 2 : 4;
  const std::uint64_t n = a.size();
  if (n > std::numeric_limits<std::uint64_t>::max() - offset)
    throw_random_error("offset + size passes 2^64");
  if (n == 0) return {};
  const std::uint64_t first = offset, end = offset + n;
  // whole blocks [full0, full1); partial blocks at either end go to the edge kernel
  const std::uint64_t full0 = (first + per_block - 1) / per_block, full1 = end / per_block;
  std::uint64_t edge[2], edges = 0;
  if (first % per_block != 0) edge[edges++] = first / per_block;
  if (end % per_block != 0 && (edges == 0 || edge[0] != (end - 1) / per_block))
    edge[edges++] = (end - 1) / per_block;
  const cl_uint k0 = static_cast<cl_uint>(seed), k1 = static_cast<cl_uint>(seed >> 32);
  const program& kernels = generator<T, P>(q, d);
  event last;
  if (edges > 0)
    last = q.launch(kernels.kernel("clforge_random_edges"), ndrange(edges), a, cl_ulong(first),
                    cl_ulong(end), cl_ulong(edge[0]), cl_ulong(edge[edges - 1]), k0, k1, p0, p1);
  if (full1 == full0) return last;
  // Whole groups of blocks, then the rest as one smaller group; launches of fewer than 2^31
  // blocks keep the kernel's 32-bit counter arithmetic exact.
  // The vector store needs the array's element `full0 * per_block - first` (the first of the
  // whole blocks) at a multiple of per_block elements: true where `first` is. CPUs take eight
  // blocks per work-item there (clforge_random_blocks8, kernels/random.cl says why).
  const bool aligned = first % per_block == 0;
  const kernel k =
      kernels.kernel(aligned ? "clforge_random_blocks" : "clforge_random_blocks_unaligned");
  const bool by_eight = aligned && q.ctx().info().is_cpu();
  std::uint64_t block = full0;
  auto launch = [&](const kernel& each, std::uint64_t items, std::uint64_t blocks_per_item) {
    const std::uint64_t group = block_group_size(q, each);
    const std::uint64_t whole = items / group * group;
    for (const std::uint64_t count : {whole, items - whole}) {
      if (count == 0) continue;
      if (last) order_point(q);  // the returned event then covers every launch
      last = q.launch(each, ndrange(count).with_local(count == whole ? group : count), a,
                      cl_ulong(block * per_block - first), cl_uint(block), cl_uint(block >> 32), k0,
                      k1, p0, p1);
      block += count * blocks_per_item;
    }
  };
  while (block < full1) {
    const std::uint64_t left = std::min<std::uint64_t>(full1 - block, std::uint64_t{1} << 31);
    if (by_eight && left >= 8)
      launch(kernels.kernel("clforge_random_blocks8"), left / 8, 8);
    else
      launch(k, left, 1);
  }
  return last;
}
}  // namespace detail

/// Uniform numbers: float/double in [0, 1); integer types: uniformly random bits.
template <class T>
event uniform(const queue& q, array<T>& a, std::uint64_t seed) {
  if constexpr (std::is_floating_point_v<T>)
    return detail::generate<T, T>("clforge::random::uniform", q, a, seed, T(0), T(1), 0,
                                  detail::distribution::unit_uniform);
  else
    return detail::generate<T, cl_ulong>("clforge::random::uniform", q, a, seed, 0, 0, 0,
                                         detail::distribution::bits);
}
/// Uniform numbers in [lo, hi) (lo < hi), from element `offset` of the stream of `seed`.
template <class T>
event uniform(const queue& q, array<T>& a, std::uint64_t seed, detail::same_t<T> lo,
              detail::same_t<T> hi, std::uint64_t offset = 0) {
  if (!(lo < hi)) detail::throw_random_error("uniform: needs lo < hi");
  if constexpr (std::is_floating_point_v<T>) {
    if (!(hi - lo <= std::numeric_limits<T>::max()))
      detail::throw_random_error("uniform: hi - lo overflows");
    return detail::generate<T, T>(
        "clforge::random::uniform", q, a, seed, lo, hi, offset,
        lo == 0 && hi == 1 ? detail::distribution::unit_uniform : detail::distribution::uniform);
  } else {
    // lo and the width hi - lo, as 64-bit two's complement values
    const cl_ulong width = static_cast<cl_ulong>(hi) - static_cast<cl_ulong>(lo);
    return detail::generate<T, cl_ulong>("clforge::random::uniform", q, a, seed,
                                         static_cast<cl_ulong>(lo), width, offset,
                                         detail::distribution::uniform);
  }
}
/// Normally distributed float/double numbers (Box-Muller; sd >= 0).
template <class T>
event normal(const queue& q, array<T>& a, std::uint64_t seed, detail::same_t<T> mean = 0,
             detail::same_t<T> sd = 1, std::uint64_t offset = 0) {
  static_assert(std::is_floating_point_v<T>, "clforge::random::normal: float or double arrays");
  if (!(sd >= 0)) detail::throw_random_error("normal: needs sd >= 0");
  return detail::generate<T, T>("clforge::random::normal", q, a, seed, mean, sd, offset,
                                detail::distribution::normal);
}

}  // namespace clforge::random
