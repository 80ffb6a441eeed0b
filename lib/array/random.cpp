// SPDX-License-Identifier: MIT
// The generator kernels of clforge::random (see clforge/random.hpp for the mapping from Philox
// words to values; tests/test_random.cpp checks it against a host loop).
#include <string>

#include "clforge/random.hpp"

namespace clforge::random::detail {

[[noreturn]] void throw_random_error(const std::string& what) {
  throw error("clforge::random::" + what);
}

namespace {
void detail_check_barrier(cl_int code) {
  clforge::detail::check(code, "clEnqueueBarrierWithWaitList");
}
}  // namespace

std::string generator_operation(const std::string& type, bool is_floating, std::size_t size,
                                distribution d, bool edges) {
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
  // edges: block `edge0` (i = 0) or `edge1` (i = 1), elements outside [first, end) skipped.
  // Otherwise whole blocks block0 + i, stored without guards (what a vectorizer wants).
  std::string op =
      std::string(edges ? "  const ulong b = i == 0 ? block0 : block1;\n"
                        : "  const ulong b = block0 + i;\n") +
      "  const uint4 r = clforge_philox4x32((uint4)((uint)b, (uint)(b >> 32), 0u, 0u), "
      "(uint2)(k0, k1));\n" +
      values + "  const ulong j = b * " + std::to_string(per_block) + ";\n";
  for (int k = 0; k < per_block; ++k) {
    const std::string jk = "j + " + std::to_string(k);
    if (edges)
      op += "  if (" + jk + " >= first && " + jk + " < end) a[" + jk + " - first] = v" +
            std::to_string(k) + ";\n";
    else
      op += "  a[" + jk + " - first] = v" + std::to_string(k) + ";\n";
  }
  return op;
}

void order_point(const queue& q) {
  // in-order queues keep the order by themselves
  if (q.out_of_order())
    detail_check_barrier(clEnqueueBarrierWithWaitList(q.get(), 0, nullptr, nullptr));
}

}  // namespace clforge::random::detail
