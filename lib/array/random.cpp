// SPDX-License-Identifier: MIT
// The generator kernels of clforge::random (see clforge/random.hpp for the mapping from Philox
// words to values; tests/test_random.cpp checks it against a host loop).
#include <algorithm>
#include <string>

#include "clforge/random.hpp"

#include "tuning/resolve.hpp"

namespace clforge::random::detail {

[[noreturn]] void throw_random_error(const std::string& what) {
  throw error("clforge::random::" + what);
}

namespace {
void detail_check_barrier(cl_int code) {
  clforge::detail::check(code, "clEnqueueBarrierWithWaitList");
}
}  // namespace

namespace {
// `T v0 .. v{per_block-1}` from the words r.x r.y r.z r.w of one Philox block.
std::string block_values(const std::string& type, bool is_floating, std::size_t size,
                         distribution d) {
  const bool wide = size == 8;
  const int per_block = wide ? 2 : 4;
  std::string values;  // T v0 .. v{per_block-1} from the words r.x r.y r.z r.w
  if (d == distribution::normal) {
    if (type == "float") {
      values =
          "  float rad0 = sqrt(-2.0f * log(clforge_u01_float_open0(r.x)));\n"
          "  float th0 = 6.283185307179586f * clforge_u01_float(r.y);\n"
          "  float rad1 = sqrt(-2.0f * log(clforge_u01_float_open0(r.z)));\n"
          "  float th1 = 6.283185307179586f * clforge_u01_float(r.w);\n"
          "  const float v0 = p0 + p1 * (rad0 * cos(th0)), v1 = p0 + p1 * (rad0 * sin(th0));\n"
          "  const float v2 = p0 + p1 * (rad1 * cos(th1)), v3 = p0 + p1 * (rad1 * sin(th1));\n";
    } else {
      values =
          "  double rad = sqrt(-2.0 * log(clforge_u01_double_open0(r.x, r.y)));\n"
          "  double th = 6.283185307179586 * clforge_u01_double(r.z, r.w);\n"
          "  const double v0 = p0 + p1 * (rad * cos(th)), v1 = p0 + p1 * (rad * sin(th));\n";
    }
  } else if (is_floating && d == distribution::unit_uniform) {
    const std::string u01 = type == "float" ? "clforge_u01_float" : "clforge_u01_double";
    auto one = [&](int k, const std::string& words) {
      return "  const " + type + " v" + std::to_string(k) + " = " + u01 + "(" + words + ");\n";
    };
    if (!wide)
      values = one(0, "r.x") + one(1, "r.y") + one(2, "r.z") + one(3, "r.w");
    else
      values = one(0, "r.x, r.y") + one(1, "r.z, r.w");
  } else if (is_floating) {
    // lo + (hi - lo) * u as fma(hi - lo, u, lo), kept below hi
    const std::string u01 = type == "float" ? "clforge_u01_float" : "clforge_u01_double";
    // One fma: correctly rounded everywhere (a contracted a * b + c would differ by device).
    // The value is at most hi; fmin with the float below hi turns hi into it and keeps every
    // other value (a select on v < hi vectorized worse on PoCL).
    auto one = [&](int k, const std::string& words) {
      return "  const " + type + " v" + std::to_string(k) + " = fmin(fma(p1 - p0, " + u01 + "(" +
             words + "), p0), below);\n";
    };
    values = "  const " + type + " below = nextafter(p1, p0);\n";
    if (!wide)
      values += one(0, "r.x") + one(1, "r.y") + one(2, "r.z") + one(3, "r.w");
    else
      values += one(0, "r.x, r.y") + one(1, "r.z, r.w");
  } else {
    const char* words[] = {"r.x", "r.y", "r.z", "r.w"};
    for (int k = 0; k < per_block; ++k) {
      std::string w =
          wide ? "(((ulong)" + std::string(words[2 * k]) + " << 32) | " + words[2 * k + 1] + ")"
               : std::string(words[k]);
      std::string bits;
      if (d == distribution::bits)
        bits = w;
      else if (wide)
        bits = "(p0 + mul_hi(" + w + ", p1))";  // lo + floor(w * width / 2^64)
      else
        bits = "(p0 + (ulong)mul_hi(" + w + ", (uint)p1))";  // lo + floor(w * width / 2^32)
      values += "  const " + type + " v" + std::to_string(k) + " = (" + type + ")" + bits + ";\n";
    }
  }
  return values;
}
}  // namespace

std::string generator_operation(const std::string& type, bool is_floating, std::size_t size,
                                distribution d) {
  const int per_block = size == 8 ? 2 : 4;
  // Block `block0` (i = 0) or `block1` (i = 1), elements outside [first, end) skipped.
  std::string op =
      "  const ulong b = i == 0 ? block0 : block1;\n"
      "  const uint4 r = clforge_philox4x32((uint4)((uint)b, (uint)(b >> 32), 0u, 0u), "
      "(uint2)(k0, k1));\n" +
      block_values(type, is_floating, size, d) + "  const ulong j = b * " +
      std::to_string(per_block) + ";\n";
  for (int k = 0; k < per_block; ++k) {
    const std::string jk = "j + " + std::to_string(k);
    op += "  if (" + jk + " >= first && " + jk + " < end) a[" + jk + " - first] = v" +
          std::to_string(k) + ";\n";
  }
  return op;
}

std::string block_kernel_source(const std::string& type, const std::string& param_type,
                                bool is_floating, std::size_t size, distribution d) {
  const int per_block = size == 8 ? 2 : 4;
  const std::string vector = type + std::to_string(per_block);
  const std::string stored = size == 8 ? "v0, v1" : "v0, v1, v2, v3";
  // Work-item i makes block (hi0:lo0) + i: the low counter word wraps in 32-bit arithmetic and
  // carries into the high one (exact for fewer than 2^32 work-items per launch). No bounds
  // check: the launches cover whole groups. Where the blocks start at a multiple of the vector
  // size in the array, one aligned vector store (what GPUs coalesce and CPU vectorizers turn
  // into wide stores; vstoreN and scalar stores vectorized worse on PoCL); elsewhere, scalar
  // stores.
  auto kernel_text = [&](const std::string& name, const std::string& store) {
    return "kernel void " + name + "(global " + type + "* a, ulong start, uint lo0, uint hi0, " +
           "uint k0, uint k1, " + param_type + " p0, " + param_type + " p1) {\n" +
           "  const uint i = get_global_id(0);\n"
           "  const uint lo = lo0 + i;\n"
           "  const uint hi = hi0 + (lo < lo0 ? 1u : 0u);\n"
           "  const uint4 r = clforge_philox4x32((uint4)(lo, hi, 0u, 0u), (uint2)(k0, k1));\n" +
           block_values(type, is_floating, size, d) + store + "}\n";
  };
  std::string scalar_stores;
  for (int k = 0; k < per_block; ++k)
    scalar_stores += "  a[start + (ulong)i * " + std::to_string(per_block) + " + " +
                     std::to_string(k) + "] = v" + std::to_string(k) + ";\n";
  // CPUs: eight blocks per work-item, their ten rounds on uint8 vectors (PoCL left the scalar
  // rounds unvectorized), then each block's values and aligned store as above.
  std::string blocks8 =
      "#define CLFORGE_PHILOX_ROUND8(c0, c1, c2, c3, k0, k1)                  \\\n"
      "  {                                                                  \\\n"
      "    const ulong8 clforge_p0 = convert_ulong8(c0) * (ulong)0xD2511F53u; \\\n"
      "    const ulong8 clforge_p1 = convert_ulong8(c2) * (ulong)0xCD9E8D57u; \\\n"
      "    const uint8 clforge_n0 = convert_uint8(clforge_p1 >> 32) ^ (c1) ^ (k0); \\\n"
      "    const uint8 clforge_n2 = convert_uint8(clforge_p0 >> 32) ^ (c3) ^ (k1); \\\n"
      "    (c1) = convert_uint8(clforge_p1);                                \\\n"
      "    (c3) = convert_uint8(clforge_p0);                                \\\n"
      "    (c0) = clforge_n0;                                               \\\n"
      "    (c2) = clforge_n2;                                               \\\n"
      "  }\n"
      "kernel void clforge_random_blocks8(global " +
      type + "* a, ulong start, uint lo0, uint hi0, uint k0, uint k1, " + param_type + " p0, " +
      param_type +
      " p1) {\n"
      "  const uint i = get_global_id(0);\n"
      "  const uint8 lo = (uint8)(lo0 + i * 8u) + (uint8)(0u, 1u, 2u, 3u, 4u, 5u, 6u, 7u);\n"
      "  const uint8 hi = (uint8)hi0 - as_uint8(lo < (uint8)lo0);  /* + 1 where lo wrapped */\n"
      "  uint8 c0 = lo, c1 = hi, c2 = (uint8)0u, c3 = (uint8)0u;\n"
      "  uint ka = k0, kb = k1;\n";
  for (int round = 0; round < 10; ++round) {
    blocks8 += "  CLFORGE_PHILOX_ROUND8(c0, c1, c2, c3, ka, kb)\n";
    if (round < 9) blocks8 += "  CLFORGE_PHILOX_BUMP(ka, kb)\n";
  }
  for (int b = 0; b < 8; ++b) {
    const std::string lane = ".s" + std::to_string(b);
    blocks8 += "  {\n    const uint4 r = (uint4)(c0" + lane + ", c1" + lane + ", c2" + lane +
               ", c3" + lane + ");\n" + block_values(type, is_floating, size, d) + "  ((global " +
               vector + "*)(a + start))[(ulong)i * 8 + " + std::to_string(b) + "] = (" + vector +
               ")(" + stored + ");\n  }\n";
  }
  blocks8 += "}\n";
  return kernel_text("clforge_random_blocks", "  ((global " + vector + "*)(a + start))[i] = (" +
                                                  vector + ")(" + stored + ");\n") +
         kernel_text("clforge_random_blocks_unaligned", scalar_stores) + blocks8;
}

std::size_t block_group_size(const queue& q, const kernel& k) {
  const std::size_t wanted =
      clforge::detail::tuned<clforge::detail::elementwise_policy>(q.ctx()).group;
  return std::max<std::size_t>(1, std::min(wanted, k.work_group_size()));
}

void order_point(const queue& q) {
  // in-order queues keep the order by themselves
  if (q.out_of_order())
    detail_check_barrier(clEnqueueBarrierWithWaitList(q.get(), 0, nullptr, nullptr));
}

}  // namespace clforge::random::detail
