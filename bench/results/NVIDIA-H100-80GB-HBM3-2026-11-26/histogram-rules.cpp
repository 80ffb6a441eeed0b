// Bin rules of histogram(q, x, 256, -1, 1) as histogram_kernel snippets, timed alone: the
// measurement behind histogram-margin.md. Usage: histogram-rules DEVICE LOG2N
#include <algorithm>
#include <chrono>
#include <clforge/clforge.hpp>
#include <cstdio>
#include <random>
namespace cf = clforge;
int main(int argc, char** argv) {
  cf::context ctx = cf::context::create(argc > 1 ? argv[1] : "pocl");
  cf::queue q(ctx);
  const std::size_t n = std::size_t(1) << (argc > 2 ? std::atoi(argv[2]) : 24);
  std::vector<float> h(n);
  std::mt19937 r(1);
  std::uniform_real_distribution<float> u(-1, 1);
  for (auto& v : h) v = u(r);
  auto x = cf::array<float>::from_host(q, h);
  std::vector<float> he(257);
  for (int k = 0; k <= 256; ++k) he[k] = float(k * (2.0 / 256) - 1.0);
  auto edges = cf::array<float>::from_host(q, he);
  const std::string pre = R"(
static inline long v_pre(float x, float lo, float hi, float scale) {
  if (!(x >= lo && x <= hi)) return -1;
  const long b = (long)((x - lo) * scale);
  return b < 256 ? b : 255;
}
static inline long v_old(float x, float lo, float hi, float scale, global const float* edges) {
  if (!(x >= lo && x <= hi)) return -1;
  long b = clamp((long)((x - lo) * scale), 0L, 255L);
  if (x < edges[b]) return b - 1;
  if (b != 255 && x >= edges[b + 1]) return b + 1;
  return b;
}
static inline long v_new(float x, float lo, float hi, float scale, float margin, global const float* edges) {
  if (!(x >= lo && x <= hi)) return -1;
  const float t = (x - lo) * scale;
  const long b = clamp((long)t, 0L, 255L);
  const float f = t - (float)b;
  if (f >= margin && f <= 1 - margin) return b;
  if (x < edges[b]) return b - 1;
  if (b != 255 && x >= edges[b + 1]) return b + 1;
  return b;
}
static inline int v_int(float x, float lo, float hi, float scale, float margin, global const float* edges) {
  if (!(x >= lo && x <= hi)) return -1;
  const float t = (x - lo) * scale;
  const int b = min((int)t, 255);
  const float f = t - (float)b;
  if (f >= margin && f <= 1 - margin) return b;
  if (x < edges[b]) return b - 1;
  if (b != 255 && x >= edges[b + 1]) return b + 1;
  return b;
}
static inline int v_noload(float x, float lo, float hi, float scale, float margin, global const float* edges) {
  if (!(x >= lo && x <= hi)) return -1;
  const float t = (x - lo) * scale;
  const int b = min((int)t, 255);
  const float f = t - (float)b;
  if (f >= margin && f <= 1 - margin) return b;
  return b + 1;
}
static inline int v_float(float x, float lo, float hi, float scale, float margin, global const float* edges) {
  const float t = (x >= lo && x <= hi) ? (x - lo) * scale : -1.0f;
  const float fb = floor(t);
  const float f = t - fb;
  const int b = min((int)fb, 255);
  if (t < 0 || (f >= margin && f <= 1 - margin && fb < 256.0f)) return b;
  return b - (x < edges[b]) + (b != 255 && x >= edges[b + 1]);
}
static inline int v_f2(float x, float lo, float hi, float scale, float margin, global const float* edges) {
  const float t = (x >= lo && x <= hi) ? (x - lo) * scale : -1.0f;
  const int b = min((int)t, 255);
  const float f = t - (float)b;
  if (t < 0 || (f >= margin && f <= 1 - margin)) return b;
  return b - (x < edges[b]) + (b != 255 && x >= edges[b + 1]);
}
static inline long v_f3(float x, float lo, float hi, float scale, float margin, global const float* edges) {
  if (!(x >= lo && x <= hi)) return -1;
  const float t = (x - lo) * scale;
  const long b = min((long)t, 255L);
  const float f = t - (float)b;
  if (f >= margin && f <= 1 - margin) return b;
  return b - (x < edges[b]) + (b != 255 && x >= edges[b + 1]);
}
)";
  const char* exprs[] = {"v_pre(x[i], lo, hi, scale)",
                         "v_old(x[i], lo, hi, scale, edges)",
                         "v_new(x[i], lo, hi, scale, margin, edges)",
                         "v_int(x[i], lo, hi, scale, margin, edges)",
                         "v_noload(x[i], lo, hi, scale, margin, edges)",
                         "v_float(x[i], lo, hi, scale, margin, edges)",
                         "v_f2(x[i], lo, hi, scale, margin, edges)",
                         "v_f3(x[i], lo, hi, scale, margin, edges)"};
  std::vector<cl_uint> want;
  for (int round = 0; round < 2; ++round)
    for (auto e : exprs) {
      cf::histogram_options o;
      o.name = "hx";
      o.preamble = pre;
      o.check_array_lengths = false;
      cf::histogram_kernel k(ctx,
                             "global const float* x, float lo, float hi, float scale, float "
                             "margin, global const float* edges",
                             e, 256, o);
      double best = 1e9;
      std::vector<cl_uint> got;
      for (int rep = 0; rep < 20; ++rep) {
        auto t0 = std::chrono::steady_clock::now();
        auto c = k(q, x, -1.0f, 1.0f, 128.0f, 0.001f, edges);
        q.finish();
        best = std::min(
            best, std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0)
                      .count());
        if (rep == 0) got = c.to_host(q);
      }
      if (want.empty()) want = got;
      std::printf("%9.2f us %s %s\n", best, got == want ? "same" : "DIFF", e);
    }
}
