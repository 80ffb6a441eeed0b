// SPDX-License-Identifier: MIT
// Array expressions: arithmetic on clforge::array that becomes one generated kernel per
// assignment (VexCL-style), built on elementwise_kernel and reduction_kernel.
//
//   y = 2.0f * x + cf::sin(y);                    // one kernel on y's home queue
//   cf::assign(q, y, cf::where(x > 0.0f, x, -x)); // on an explicit queue
//   cf::array<double> z = cf::eval(q, cf::cast<double>(x) * x);   // a new array
//   float d = cf::sum(q, x * y);                  // the map fused into the reduction
//   float m = cf::max(q, cf::fabs(x - y));
//
// What an expression may hold: clforge::array<T>, array views (x.view(start, stop, step)),
// scalars of any OpenCL scalar type (char .. ulong, float, double; C++ char, long long map to
// OpenCL char, long) and clforge::complex<float/double> values and arrays.
//   Operators: + - * / (% on integers), unary -, < <= > >= == !=, && || !.
//   Functions: where(c, a, b), cast<T>(e), and the OpenCL math built-ins sin cos tan asin acos
//   atan sinh cosh tanh asinh acosh atanh exp exp2 exp10 expm1 log log2 log10 log1p sqrt rsqrt
//   cbrt fabs floor ceil round trunc rint erf erfc tgamma lgamma sinpi cospi tanpi (one
//   argument), pow fmin fmax hypot atan2 fmod copysign fdim (two), abs (integers, floating,
//   complex), and for complex: exp log sqrt pow abs arg conj real imag.
//
// Types follow C's usual arithmetic conversions, as OpenCL C does for scalars: char and short
// promote to int; int op unsigned is unsigned; any integer op long is long; integer op float
// is float; anything op double is double. So `2.0 * x` with x float is a double expression (it
// needs fp64; write 2.0f), `x / 2` with x int is integer division. Comparisons and && || !
// give int (0 or 1), as OpenCL scalar comparisons do. Math functions of an integer argument
// compute in double (C's <tgmath.h> rule); of float in float. An operation with a complex
// operand is complex: complex<double> if a double is involved, else complex<float>. The value
// is converted to the target's element type on assignment (C conversion rules; a complex
// value cannot be assigned to a real array: a compile-time error, use real/imag/abs).
// Integer division by zero and out-of-range float-to-integer conversions are undefined, as in C.
//
// Evaluation is lazy and fused: operators build a small expression object; assignment (or a
// reduction) generates one kernel for the whole tree, whatever its depth. Scalars are kernel
// arguments, so new values never build a new program. The built kernel is cached per context
// by the expression's type (its shape: operators, functions, element types, which operands are
// arrays, views or scalars), so an assignment run again only sets arguments and launches.
//
// Aliasing: an expression reads each array only at the index being written (element i of every
// operand for element i of the target), so `y = f(y, x)` is safe: each work-item reads y[i]
// before it writes y[i]. There is no operation that reads another index (no shifts, gathers).
// The one way to read other elements of the target is a view of the target's own buffer in
// another order (y = y.view(n - 1, slice_none, -1)); that races and is not detected: evaluate
// into a new array (eval) instead.
//
// Errors (clforge::error): arrays (or views) of different lengths in one expression or
// assignment, arrays of another context than the queue, an array with no home queue assigned
// with `=`, double (or complex<double>) on a device without fp64, an empty expression with no
// array (only scalars) passed to eval, min/max of an empty expression.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <type_traits>
#include <typeinfo>
#include <unordered_map>
#include <utility>

#include "clforge/algorithms/elementwise.hpp"
#include "clforge/algorithms/reduction.hpp"
#include "clforge/array.hpp"
#include "clforge/array_view.hpp"
#include "clforge/complex.hpp"

namespace clforge {

namespace detail {

// ---- element types ------------------------------------------------------------------------
template <class T>
struct is_complex : std::false_type {};
template <class T>
struct is_complex<std::complex<T>> : std::true_type {};
template <class T>
constexpr bool is_complex_v = is_complex<T>::value;

template <class T>
struct real_of {
  using type = T;
};
template <class T>
struct real_of<std::complex<T>> {
  using type = T;
};
template <class T>
using real_of_t = typename real_of<T>::type;

/// The element type a C++ scalar becomes in a kernel: char -> cl_char, long long -> cl_long.
template <class S>
struct kernel_scalar {
  using type = S;
};
template <>
struct kernel_scalar<char> {
  using type = cl_char;
};
template <>
struct kernel_scalar<long long> {
  using type = std::conditional_t<sizeof(long long) == 8, cl_long, void>;
};
template <>
struct kernel_scalar<unsigned long long> {
  using type = std::conditional_t<sizeof(long long) == 8, cl_ulong, void>;
};
template <class S>
using kernel_scalar_t = typename kernel_scalar<S>::type;

template <class S, class = void>
struct is_scalar_value : std::false_type {};
template <class S>
struct is_scalar_value<S, std::enable_if_t<std::is_arithmetic_v<S> && !std::is_same_v<S, bool>>>
    : std::bool_constant<scalar_index<kernel_scalar_t<S>>() >= 0> {};
template <class F>
struct is_scalar_value<std::complex<F>>
    : std::bool_constant<std::is_same_v<F, float> || std::is_same_v<F, double>> {};

/// The type of a op b under C's usual arithmetic conversions, complex if either side is.
template <class A, class B>
struct arithmetic_result {
  using real = decltype(std::declval<real_of_t<A>>() + std::declval<real_of_t<B>>());
  using type = std::conditional_t<
      is_complex_v<A> || is_complex_v<B>,
      std::complex<std::conditional_t<std::is_same_v<real, double>, double, float>>, real>;
};
template <class A, class B>
using arithmetic_result_t = typename arithmetic_result<A, B>::type;

/// The floating type a math function of T computes in: float for float, double otherwise
/// (integers, as C's <tgmath.h>); complex stays complex.
template <class T>
using math_type_t = std::conditional_t<is_complex_v<T>, T,
                                       std::conditional_t<std::is_same_v<T, float>, float, double>>;

template <class T>
constexpr bool needs_fp64_v = std::is_same_v<real_of_t<T>, double>;

/// OpenCL C code converting `code` of type From to To.
template <class From, class To>
std::string convert_code(const std::string& code) {
  if constexpr (std::is_same_v<From, To>) {
    return code;
  } else if constexpr (!is_complex_v<To>) {
    static_assert(!is_complex_v<From>,
                  "clforge: a complex value cannot become a real one implicitly: use real(), "
                  "imag() or abs()");
    return "((" + type_name<To>() + ")(" + code + "))";
  } else if constexpr (!is_complex_v<From>) {
    using R = real_of_t<To>;
    const std::string p = std::is_same_v<R, float> ? "cfloat" : "cdouble";
    return p + "_fromreal((" + type_name<R>() + ")(" + code + "))";
  } else if constexpr (std::is_same_v<To, std::complex<double>>) {
    return "cdouble_fromcfloat(" + code + ")";
  } else {
    return "cfloat_fromcdouble(" + code + ")";
  }
}
template <class T>
std::string complex_prefix() {
  return std::is_same_v<real_of_t<T>, float> ? "cfloat" : "cdouble";
}

/// The generated parameter list and what the source needs, filled while the tree is printed.
struct expression_source {
  std::string parameters;  // "global const float* p0, float p1, ..."
  std::size_t count = 0;
  bool fp64 = false, complex = false;

  std::string add(const std::string& declaration_type, const std::string& suffix = "") {
    std::string name = "p" + std::to_string(count++) + suffix;
    if (!parameters.empty()) parameters += ", ";
    parameters += declaration_type + " " + name;
    return name;
  }
  template <class T>
  void uses() {
    fp64 = fp64 || needs_fp64_v<T>;
    complex = complex || is_complex_v<T>;
  }
};

/// What the operands say about lengths and contexts, checked before a launch.
struct expression_check {
  bool has_length = false;
  std::size_t length = 0;
  const void* context_id = nullptr;
  std::size_t operands = 0;
  CLFORGE_API void operand(std::size_t n, const context& ctx);
};

// ---- the kernel cache of a context --------------------------------------------------------
/// Built kernels of array expressions, one per shape, kept by the context (see
/// context::attachment). Building happens outside the lock; a second thread that built the
/// same shape meanwhile gets the first one's kernel.
struct expression_cache {
  std::mutex mutex;
  std::unordered_map<std::string, std::shared_ptr<void>> kernels;
};
CLFORGE_API expression_cache& expression_cache_of(const context& ctx);

template <class K, class Make>
const K& cached_kernel(const context& ctx, const std::string& key, Make&& make) {
  expression_cache& cache = expression_cache_of(ctx);
  {
    std::lock_guard<std::mutex> lock(cache.mutex);
    auto found = cache.kernels.find(key);
    if (found != cache.kernels.end()) return *static_cast<const K*>(found->second.get());
  }
  std::shared_ptr<void> made = std::make_shared<K>(make(weak_context(ctx)));
  std::lock_guard<std::mutex> lock(cache.mutex);
  auto inserted = cache.kernels.emplace(key, std::move(made)).first;
  return *static_cast<const K*>(inserted->second.get());
}

/// The preamble an expression kernel needs: the fp64 pragma (after checking the device) and
/// the complex header.
CLFORGE_API std::string expression_preamble(const context& ctx, const expression_source& s);
[[noreturn]] CLFORGE_API void throw_expression_error(const std::string& what);

}  // namespace detail

// ---- operands ----------------------------------------------------------------------------
// The expression node types below are what the operators and functions return; user code
// holds them through `auto` and never names them, so they stay out of the API reference.
/// @cond INTERNAL
/// An array in an expression (read at index i).
template <class T>
struct array_operand : detail::expression_base {
  using value_type = T;
  const array<T>* a;
  std::string emit(detail::expression_source& s) const {
    s.uses<T>();
    return s.add("global const " + type_name<T>() + "*") + "[i]";
  }
  auto args() const { return std::tuple<const array<T>&>(*a); }
  void check(detail::expression_check& c) const { c.operand(a->size(), a->ctx()); }
};

/// A view in an expression: element first + i * step of its buffer.
template <class T>
struct view_operand : detail::expression_base {
  using value_type = T;
  array_view<T> v;
  std::string emit(detail::expression_source& s) const {
    s.uses<T>();
    std::string p = s.add("global const " + type_name<T>() + "*");
    std::string first = s.add("long"), step = s.add("long");
    return p + "[" + first + " + (long)i * " + step + "]";
  }
  auto args() const {
    return std::make_tuple(v.buffer(), static_cast<cl_long>(v.first()),
                           static_cast<cl_long>(v.step()));
  }
  void check(detail::expression_check& c) const { c.operand(v.size(), v.ctx()); }
};

/// A scalar: a kernel argument, so its value is not part of the kernel.
template <class S>
struct scalar_operand : detail::expression_base {
  using value_type = S;
  S value;
  std::string emit(detail::expression_source& s) const {
    s.uses<S>();
    return s.add(type_name<S>());
  }
  auto args() const { return std::make_tuple(value); }
  void check(detail::expression_check&) const {}
};

namespace detail {
template <class X>
struct is_node : std::is_base_of<expression_base, X> {};
template <class T>
struct is_node<array_view<T>> : std::false_type {};

template <class X, class = void>
struct operand_of {};
template <class T>
struct operand_of<array<T>> {
  using type = array_operand<T>;
  static type make(const array<T>& a) { return type{{}, &a}; }
};
template <class T>
struct operand_of<array_view<T>> {
  using type = view_operand<T>;
  static type make(const array_view<T>& v) { return type{{}, v}; }
};
template <class X>
struct operand_of<X, std::enable_if_t<is_node<X>::value>> {
  using type = X;
  static const X& make(const X& x) { return x; }
};
template <class S>
struct operand_of<S, std::enable_if_t<is_scalar_value<S>::value>> {
  using type = scalar_operand<kernel_scalar_t<S>>;
  static type make(const S& s) { return type{{}, static_cast<kernel_scalar_t<S>>(s)}; }
};
template <class X>
using operand_t = typename operand_of<std::decay_t<X>>::type;
template <class X>
operand_t<X> as_operand(const X& x) {
  return operand_of<std::decay_t<X>>::make(x);
}

/// Arrays, views and expression nodes (not plain scalars).
template <class X, class = void>
struct is_array_like : std::false_type {};
template <class X>
struct is_array_like<X, std::void_t<operand_t<X>>>
    : std::bool_constant<!is_scalar_value<std::decay_t<X>>::value> {};
template <class X, class = void>
struct is_operand : std::false_type {};
template <class X>
struct is_operand<X, std::void_t<operand_t<X>>> : std::true_type {};

template <class A, class B>
constexpr bool binary_operands_v = is_operand<A>::value&& is_operand<B>::value &&
                                   (is_array_like<A>::value || is_array_like<B>::value);
template <class X>
constexpr bool array_like_v = is_array_like<X>::value;
template <class X>
struct is_array_type : std::false_type {};
template <class T>
struct is_array_type<array<T>> : std::true_type {};
/// An expression that is not a whole array (those have the built-in reductions).
template <class X>
constexpr bool expression_argument_v =
    is_array_like<X>::value && !is_array_type<std::decay_t<X>>::value;

// ---- operations ----------------------------------------------------------------------------
enum class op_kind { arithmetic, integer, comparison, logical };
#define CLFORGE_BINARY_OP(NAME, SYMBOL, KIND, COMPLEX_FN) \
  struct NAME {                                           \
    static constexpr const char* symbol = SYMBOL;         \
    static constexpr op_kind kind = op_kind::KIND;        \
    static constexpr const char* complex_fn = COMPLEX_FN; \
  };
CLFORGE_BINARY_OP(op_add, "+", arithmetic, "add")
CLFORGE_BINARY_OP(op_sub, "-", arithmetic, "sub")
CLFORGE_BINARY_OP(op_mul, "*", arithmetic, "mul")
CLFORGE_BINARY_OP(op_div, "/", arithmetic, "div")
CLFORGE_BINARY_OP(op_mod, "%", integer, "")
CLFORGE_BINARY_OP(op_lt, "<", comparison, "")
CLFORGE_BINARY_OP(op_le, "<=", comparison, "")
CLFORGE_BINARY_OP(op_gt, ">", comparison, "")
CLFORGE_BINARY_OP(op_ge, ">=", comparison, "")
CLFORGE_BINARY_OP(op_eq, "==", comparison, "")
CLFORGE_BINARY_OP(op_ne, "!=", comparison, "")
CLFORGE_BINARY_OP(op_and, "&&", logical, "")
CLFORGE_BINARY_OP(op_or, "||", logical, "")
#undef CLFORGE_BINARY_OP

template <class Op, class A, class B>
struct binary_type {
  static_assert(Op::kind == op_kind::arithmetic || (!is_complex_v<A> && !is_complex_v<B>),
                "clforge: % comparisons && || need real operands");
  static_assert(Op::kind != op_kind::integer || (std::is_integral_v<A> && std::is_integral_v<B>),
                "clforge: % needs integer operands");
  using type = std::conditional_t<Op::kind == op_kind::arithmetic || Op::kind == op_kind::integer,
                                  arithmetic_result_t<A, B>, cl_int>;
};
}  // namespace detail

template <class Op, class L, class R>
struct binary_expression : detail::expression_base {
  using value_type =
      typename detail::binary_type<Op, typename L::value_type, typename R::value_type>::type;
  L l;
  R r;
  std::string emit(detail::expression_source& s) const {
    std::string a = l.emit(s), b = r.emit(s);
    if constexpr (detail::is_complex_v<value_type>) {
      s.uses<value_type>();
      using left = typename L::value_type;
      using right = typename R::value_type;
      using real = detail::real_of_t<value_type>;
      const std::string p = detail::complex_prefix<value_type>() + "_";
      // A real operand works on the parts, as std::complex's operators do (complex_header()).
      if constexpr (!detail::is_complex_v<right>) {
        return p + Op::complex_fn + "_real(" + detail::convert_code<left, value_type>(a) + ", " +
               detail::convert_code<right, real>(b) + ")";
      } else if constexpr (!detail::is_complex_v<left> && !std::is_same_v<Op, detail::op_div>) {
        const std::string x = detail::convert_code<left, real>(a);
        const std::string z = detail::convert_code<right, value_type>(b);
        if constexpr (std::is_same_v<Op, detail::op_sub>)
          return p + "real_sub(" + x + ", " + z + ")";
        return p + Op::complex_fn + "_real(" + z + ", " + x + ")";  // + and * commute
      } else {
        return p + Op::complex_fn + "(" + detail::convert_code<left, value_type>(a) + ", " +
               detail::convert_code<right, value_type>(b) + ")";
      }
    } else {
      return "(" + a + " " + Op::symbol + " " + b + ")";
    }
  }
  auto args() const { return std::tuple_cat(l.args(), r.args()); }
  void check(detail::expression_check& c) const {
    l.check(c);
    r.check(c);
  }
};

namespace detail {
struct op_neg {};
struct op_not {};
}  // namespace detail

template <class Op, class E>
struct unary_expression : detail::expression_base {
  using value_type = std::conditional_t<std::is_same_v<Op, detail::op_not>, cl_int,
                                        decltype(+std::declval<typename E::value_type>())>;
  E e;
  std::string emit(detail::expression_source& s) const {
    std::string a = e.emit(s);
    if constexpr (std::is_same_v<Op, detail::op_not>) {
      static_assert(!detail::is_complex_v<typename E::value_type>,
                    "clforge: ! needs a real operand");
      return "(!" + a + ")";
    } else if constexpr (detail::is_complex_v<value_type>) {
      return detail::complex_prefix<value_type>() + "_neg(" + a + ")";
    } else {
      return "(-" + a + ")";
    }
  }
  auto args() const { return e.args(); }
  void check(detail::expression_check& c) const { e.check(c); }
};

/// cast<T>(e): the value of e converted to T (C conversion; real to complex adds a zero
/// imaginary part; complex<float> <-> complex<double>).
template <class T, class E>
struct cast_expression : detail::expression_base {
  using value_type = T;
  E e;
  std::string emit(detail::expression_source& s) const {
    s.uses<T>();
    return detail::convert_code<typename E::value_type, T>(e.emit(s));
  }
  auto args() const { return e.args(); }
  void check(detail::expression_check& c) const { e.check(c); }
};

/// where(c, a, b): a where c is non-zero, else b; both converted to their common type.
template <class C, class A, class B>
struct where_expression : detail::expression_base {
  using value_type = detail::arithmetic_result_t<typename A::value_type, typename B::value_type>;
  C c;
  A a;
  B b;
  std::string emit(detail::expression_source& s) const {
    static_assert(!detail::is_complex_v<typename C::value_type>,
                  "clforge::where: the condition must be real");
    std::string cc = c.emit(s), x = a.emit(s), y = b.emit(s);
    s.uses<value_type>();
    return "(" + cc + " ? " + detail::convert_code<typename A::value_type, value_type>(x) + " : " +
           detail::convert_code<typename B::value_type, value_type>(y) + ")";
  }
  auto args() const { return std::tuple_cat(c.args(), a.args(), b.args()); }
  void check(detail::expression_check& ch) const {
    c.check(ch);
    a.check(ch);
    b.check(ch);
  }
};

namespace detail {
/// Math functions. `real` is the OpenCL built-in for real arguments ("" when there is none),
/// `complex` the complex header's function suffix ("" when there is none). A complex function
/// with a real result (abs, arg, real, imag) says so with real_result.
enum class fn_result { math, same, real_part };
template <class... T>
struct common_of;
template <class A>
struct common_of<A> {
  using type = A;
};
template <class A, class B>
struct common_of<A, B> {
  using type = arithmetic_result_t<A, B>;
};
}  // namespace detail

/// A math function of one or two operands.
template <class Fn, class... E>
struct function_expression : detail::expression_base {
  using common_type = typename detail::common_of<typename E::value_type...>::type;
  using math_type = std::conditional_t<Fn::result == detail::fn_result::same, common_type,
                                       detail::math_type_t<common_type>>;
  using value_type = std::conditional_t<detail::is_complex_v<math_type> &&
                                            Fn::result == detail::fn_result::real_part,
                                        detail::real_of_t<math_type>, math_type>;
  std::tuple<E...> operands;

  std::string emit(detail::expression_source& s) const {
    s.uses<math_type>();
    std::string list;
    std::apply(
        [&](const auto&... o) {
          ((list += (list.empty() ? "" : ", ") +
                    detail::convert_code<typename std::decay_t<decltype(o)>::value_type, math_type>(
                        o.emit(s))),
           ...);
        },
        operands);
    if constexpr (detail::is_complex_v<math_type>) {
      static_assert(Fn::complex[0] != '\0', "clforge: this function takes no complex argument");
      return detail::complex_prefix<math_type>() + "_" + Fn::complex + "(" + list + ")";
    } else {
      static_assert(Fn::real[0] != '\0', "clforge: this function takes complex arguments only");
      return std::string(Fn::real) + "(" + list + ")";
    }
  }
  auto args() const {
    return std::apply([](const auto&... o) { return std::tuple_cat(o.args()...); }, operands);
  }
  void check(detail::expression_check& c) const {
    std::apply([&](const auto&... o) { (o.check(c), ...); }, operands);
  }
};

/// @endcond

// ---- operators and functions ----------------------------------------------------------------
#define CLFORGE_EXPRESSION_OPERATOR(SYMBOL, OP)                                           \
  template <class A, class B, std::enable_if_t<detail::binary_operands_v<A, B>, int> = 0> \
  auto operator SYMBOL(const A& a, const B& b) {                                          \
    return binary_expression<detail::OP, detail::operand_t<A>, detail::operand_t<B>>{     \
        {}, detail::as_operand(a), detail::as_operand(b)};                                \
  }
CLFORGE_EXPRESSION_OPERATOR(+, op_add)
CLFORGE_EXPRESSION_OPERATOR(-, op_sub)
CLFORGE_EXPRESSION_OPERATOR(*, op_mul)
CLFORGE_EXPRESSION_OPERATOR(/, op_div)
CLFORGE_EXPRESSION_OPERATOR(%, op_mod)
CLFORGE_EXPRESSION_OPERATOR(<, op_lt)
CLFORGE_EXPRESSION_OPERATOR(<=, op_le)
CLFORGE_EXPRESSION_OPERATOR(>, op_gt)
CLFORGE_EXPRESSION_OPERATOR(>=, op_ge)
CLFORGE_EXPRESSION_OPERATOR(==, op_eq)
CLFORGE_EXPRESSION_OPERATOR(!=, op_ne)
CLFORGE_EXPRESSION_OPERATOR(&&, op_and)
CLFORGE_EXPRESSION_OPERATOR(||, op_or)
#undef CLFORGE_EXPRESSION_OPERATOR

template <class A, std::enable_if_t<detail::array_like_v<A>, int> = 0>
auto operator-(const A& a) {
  return unary_expression<detail::op_neg, detail::operand_t<A>>{{}, detail::as_operand(a)};
}
template <class A, std::enable_if_t<detail::array_like_v<A>, int> = 0>
auto operator!(const A& a) {
  return unary_expression<detail::op_not, detail::operand_t<A>>{{}, detail::as_operand(a)};
}

/// e converted to T (see cast_expression).
template <class T, class E, std::enable_if_t<detail::array_like_v<E>, int> = 0>
auto cast(const E& e) {
  static_assert(detail::is_scalar_value<T>::value,
                "clforge::cast<T>: T must be an OpenCL scalar or complex type");
  return cast_expression<detail::kernel_scalar_t<T>, detail::operand_t<E>>{{},
                                                                           detail::as_operand(e)};
}

/// a where c is non-zero, else b, elementwise. At least one of c, a, b is an array expression.
template <class C, class A, class B,
          std::enable_if_t<detail::is_operand<C>::value && detail::is_operand<A>::value &&
                               detail::is_operand<B>::value &&
                               (detail::array_like_v<C> || detail::array_like_v<A> ||
                                detail::array_like_v<B>),
                           int> = 0>
auto where(const C& c, const A& a, const B& b) {
  return where_expression<detail::operand_t<C>, detail::operand_t<A>, detail::operand_t<B>>{
      {}, detail::as_operand(c), detail::as_operand(a), detail::as_operand(b)};
}

#define CLFORGE_UNARY_FUNCTION(NAME, REAL, COMPLEX, RESULT)                                       \
  namespace detail {                                                                              \
  struct fn_##NAME {                                                                              \
    static constexpr const char* real = REAL;                                                     \
    static constexpr const char* complex = COMPLEX;                                               \
    static constexpr fn_result result = fn_result::RESULT;                                        \
  };                                                                                              \
  }                                                                                               \
  template <class A, std::enable_if_t<detail::array_like_v<A>, int> = 0>                          \
  auto NAME(const A& a) {                                                                         \
    return function_expression<detail::fn_##NAME, detail::operand_t<A>>{{},                       \
                                                                        {detail::as_operand(a)}}; \
  }
#define CLFORGE_BINARY_FUNCTION(NAME, REAL, COMPLEX)                                           \
  namespace detail {                                                                           \
  struct fn_##NAME {                                                                           \
    static constexpr const char* real = REAL;                                                  \
    static constexpr const char* complex = COMPLEX;                                            \
    static constexpr fn_result result = fn_result::math;                                       \
  };                                                                                           \
  }                                                                                            \
  template <class A, class B, std::enable_if_t<detail::binary_operands_v<A, B>, int> = 0>      \
  auto NAME(const A& a, const B& b) {                                                          \
    return function_expression<detail::fn_##NAME, detail::operand_t<A>, detail::operand_t<B>>{ \
        {}, {detail::as_operand(a), detail::as_operand(b)}};                                   \
  }

CLFORGE_UNARY_FUNCTION(sin, "sin", "", math)
CLFORGE_UNARY_FUNCTION(cos, "cos", "", math)
CLFORGE_UNARY_FUNCTION(tan, "tan", "", math)
CLFORGE_UNARY_FUNCTION(asin, "asin", "", math)
CLFORGE_UNARY_FUNCTION(acos, "acos", "", math)
CLFORGE_UNARY_FUNCTION(atan, "atan", "", math)
CLFORGE_UNARY_FUNCTION(sinh, "sinh", "", math)
CLFORGE_UNARY_FUNCTION(cosh, "cosh", "", math)
CLFORGE_UNARY_FUNCTION(tanh, "tanh", "", math)
CLFORGE_UNARY_FUNCTION(asinh, "asinh", "", math)
CLFORGE_UNARY_FUNCTION(acosh, "acosh", "", math)
CLFORGE_UNARY_FUNCTION(atanh, "atanh", "", math)
CLFORGE_UNARY_FUNCTION(exp, "exp", "exp", math)
CLFORGE_UNARY_FUNCTION(exp2, "exp2", "", math)
CLFORGE_UNARY_FUNCTION(exp10, "exp10", "", math)
CLFORGE_UNARY_FUNCTION(expm1, "expm1", "", math)
CLFORGE_UNARY_FUNCTION(log, "log", "log", math)
CLFORGE_UNARY_FUNCTION(log2, "log2", "", math)
CLFORGE_UNARY_FUNCTION(log10, "log10", "", math)
CLFORGE_UNARY_FUNCTION(log1p, "log1p", "", math)
CLFORGE_UNARY_FUNCTION(sqrt, "sqrt", "sqrt", math)
CLFORGE_UNARY_FUNCTION(rsqrt, "rsqrt", "", math)
CLFORGE_UNARY_FUNCTION(cbrt, "cbrt", "", math)
CLFORGE_UNARY_FUNCTION(fabs, "fabs", "", math)
CLFORGE_UNARY_FUNCTION(floor, "floor", "", math)
CLFORGE_UNARY_FUNCTION(ceil, "ceil", "", math)
CLFORGE_UNARY_FUNCTION(round, "round", "", math)
CLFORGE_UNARY_FUNCTION(trunc, "trunc", "", math)
CLFORGE_UNARY_FUNCTION(rint, "rint", "", math)
CLFORGE_UNARY_FUNCTION(erf, "erf", "", math)
CLFORGE_UNARY_FUNCTION(erfc, "erfc", "", math)
CLFORGE_UNARY_FUNCTION(tgamma, "tgamma", "", math)
CLFORGE_UNARY_FUNCTION(lgamma, "lgamma", "", math)
CLFORGE_UNARY_FUNCTION(sinpi, "sinpi", "", math)
CLFORGE_UNARY_FUNCTION(cospi, "cospi", "", math)
CLFORGE_UNARY_FUNCTION(tanpi, "tanpi", "", math)
CLFORGE_UNARY_FUNCTION(conj, "", "conj", same)
CLFORGE_UNARY_FUNCTION(real, "", "real", real_part)
CLFORGE_UNARY_FUNCTION(imag, "", "imag", real_part)
CLFORGE_UNARY_FUNCTION(arg, "", "arg", real_part)
CLFORGE_BINARY_FUNCTION(pow, "pow", "pow")
CLFORGE_BINARY_FUNCTION(fmin, "fmin", "")
CLFORGE_BINARY_FUNCTION(fmax, "fmax", "")
CLFORGE_BINARY_FUNCTION(hypot, "hypot", "")
CLFORGE_BINARY_FUNCTION(atan2, "atan2", "")
CLFORGE_BINARY_FUNCTION(fmod, "fmod", "")
CLFORGE_BINARY_FUNCTION(copysign, "copysign", "")
CLFORGE_BINARY_FUNCTION(fdim, "fdim", "")
#undef CLFORGE_UNARY_FUNCTION
#undef CLFORGE_BINARY_FUNCTION

/// @cond INTERNAL
/// |e|: fabs for floating types, abs for integers (same type; the most negative value stays
/// itself, as two's complement wraps), the modulus for complex values (a real result).
template <class E>
struct abs_expression : detail::expression_base {
  using arg_type = typename E::value_type;
  using value_type = detail::real_of_t<arg_type>;
  E e;
  std::string emit(detail::expression_source& s) const {
    std::string a = e.emit(s);
    if constexpr (detail::is_complex_v<arg_type>)
      return detail::complex_prefix<arg_type>() + "_abs(" + a + ")";
    else if constexpr (std::is_floating_point_v<arg_type>)
      return "fabs(" + a + ")";
    else if constexpr (std::is_signed_v<arg_type>)
      return "((" + type_name<arg_type>() + ")abs(" + a + "))";
    else
      return a;
  }
  auto args() const { return e.args(); }
  void check(detail::expression_check& c) const { e.check(c); }
};
/// @endcond
template <class A, std::enable_if_t<detail::array_like_v<A>, int> = 0>
auto abs(const A& a) {
  return abs_expression<detail::operand_t<A>>{{}, detail::as_operand(a)};
}

// ---- evaluation ---------------------------------------------------------------------------
namespace detail {

template <class Target>
struct target_traits;
template <class T>
struct target_traits<array<T>> {
  using value_type = T;
  static constexpr bool is_view = false;
  static std::string emit(expression_source& s) {
    s.uses<T>();
    return s.add("global " + type_name<T>() + "*") + "[i]";
  }
  static auto args(const array<T>& a) { return std::tuple<const array<T>&>(a); }
};
template <class T>
struct target_traits<array_view<T>> {
  using value_type = T;
  static constexpr bool is_view = true;
  static std::string emit(expression_source& s) {
    s.uses<T>();
    std::string p = s.add("global " + type_name<T>() + "*");
    std::string first = s.add("long"), step = s.add("long");
    return p + "[" + first + " + (long)i * " + step + "]";
  }
  static auto args(const array_view<T>& v) {
    return std::make_tuple(v.buffer(), static_cast<cl_long>(v.first()),
                           static_cast<cl_long>(v.step()));
  }
};

template <class Target, class E>
struct assignment_shape {};

/// Runs target = e on q: one cached elementwise kernel.
template <class Target, class X>
event run_assignment(const queue& q, const Target& target, const X& expression) {
  using E = operand_t<X>;
  using T = typename target_traits<Target>::value_type;
  const E e = as_operand(expression);
  expression_check check;
  check.operand(target.size(), target.ctx());
  e.check(check);
  if (q.ctx().identity() != check.context_id)
    throw_expression_error("the queue belongs to another context than the arrays");
  // A pointer, not a reference: g++ 13's -Wdangling-reference (in -Wall) takes a reference
  // returned by a call with temporary arguments for a dangling one.
  const elementwise_kernel* kernel = &cached_kernel<elementwise_kernel>(
      q.ctx(), typeid(assignment_shape<Target, E>).name(), [&](const context& ctx) {
        expression_source s;
        std::string out = target_traits<Target>::emit(s);
        std::string value = e.emit(s);
        kernel_options options;
        options.name = "clforge_expression";
        options.preamble = expression_preamble(ctx, s);
        options.check_array_lengths = false;  // checked above: views index their own way
        return elementwise_kernel(ctx, s.parameters,
                                  out + " = " + convert_code<typename E::value_type, T>(value),
                                  options);
      });
  if (target.size() == 0) return {};
  return std::apply(
      [&](const auto&... a) {
        return (*kernel)(q, clforge::range(static_cast<std::int64_t>(target.size())), a...);
      },
      std::tuple_cat(target_traits<Target>::args(target), e.args()));
}

template <class R, class E>
struct reduction_shape {};

template <class R, class X>
R run_reduction(const queue& q, const X& expression, const std::string& reduce,
                const std::string& neutral, const char* who) {
  using E = operand_t<X>;
  const E e = as_operand(expression);
  expression_check check;
  e.check(check);
  if (!check.has_length) throw_expression_error(std::string(who) + ": the expression has no array");
  if (q.ctx().identity() != check.context_id)
    throw_expression_error(std::string(who) +
                           ": the queue belongs to another context than the arrays");
  const std::string key =
      std::string(typeid(reduction_shape<R, E>).name()) + "|" + reduce + "|" + neutral;
  const reduction_kernel<R>& kernel =
      cached_kernel<reduction_kernel<R>>(q.ctx(), key, [&](const context& ctx) {
        expression_source s;
        s.uses<R>();
        std::string value = e.emit(s);
        reduction_options options;
        options.name = "clforge_expression_reduction";
        options.preamble = expression_preamble(ctx, s);
        options.check_array_lengths = false;
        return reduction_kernel<R>(ctx, s.parameters,
                                   convert_code<typename E::value_type, R>(value), reduce, neutral,
                                   options);
      });
  return std::apply(
      [&](const auto&... a) {
        return kernel(q, clforge::range(static_cast<std::int64_t>(check.length)), a...);
      },
      e.args());
}

/// The OpenCL C spelling of T's largest and smallest values and of zero.
template <class T>
std::string limit_literal(bool largest) {
  const std::string n = type_name<T>();
  if constexpr (std::is_floating_point_v<T>) {
    return largest ? "INFINITY" : "-INFINITY";
  } else {
    static const char* const names[][2] = {{"SCHAR_MAX", "SCHAR_MIN"}, {"UCHAR_MAX", "0"},
                                           {"SHRT_MAX", "SHRT_MIN"},   {"USHRT_MAX", "0"},
                                           {"INT_MAX", "INT_MIN"},     {"UINT_MAX", "0"},
                                           {"LONG_MAX", "LONG_MIN"},   {"ULONG_MAX", "0"}};
    return "((" + n + ")" + names[scalar_index<T>()][largest ? 0 : 1] + ")";
  }
}
template <class T>
std::string zero_literal() {
  if constexpr (is_complex_v<T>)
    return "((" + type_name<T>() + ")(0, 0))";
  else
    return "((" + type_name<T>() + ")0)";
}

}  // namespace detail

/// y = e on queue q (one kernel; see the top of this file). y is an array or a view.
template <class T, class E, std::enable_if_t<detail::array_like_v<E>, int> = 0>
event assign(const queue& q, array<T>& y, const E& e) {
  return detail::run_assignment(q, y, e);
}
template <class T, class E, std::enable_if_t<detail::array_like_v<E>, int> = 0>
event assign(const queue& q, const array_view<T>& y, const E& e) {
  return detail::run_assignment(q, y, e);
}
/// A new array on q holding e (element type: e's type, or R when given).
template <class R = void, class E, std::enable_if_t<detail::array_like_v<E>, int> = 0>
auto eval(const queue& q, const E& e) {
  using V = std::conditional_t<std::is_void_v<R>, typename detail::operand_t<E>::value_type, R>;
  detail::expression_check check;
  detail::as_operand(e).check(check);
  if (!check.has_length) detail::throw_expression_error("eval: the expression has no array");
  array<V> out(q, check.length);
  detail::run_assignment(q, out, e);
  return out;
}

/// reduce(q, e, "a + b", "0"): e's values combined with an associative operation (an OpenCL C
/// expression of a and b) whose identity is `neutral` (an OpenCL C expression of type R).
/// One reduction kernel with e fused into its map. R defaults to e's type.
template <class R = void, class E, std::enable_if_t<detail::array_like_v<E>, int> = 0>
auto reduce(const queue& q, const E& e, const std::string& operation, const std::string& neutral) {
  using V = std::conditional_t<std::is_void_v<R>, typename detail::operand_t<E>::value_type, R>;
  return detail::run_reduction<V>(q, e, operation, neutral, "reduce");
}
/// Sum of an expression (not a whole array: clforge::sum(q, array) is the built-in), in R
/// (default: the expression's type). 0 for an empty expression.
template <class R = void, class E, std::enable_if_t<detail::expression_argument_v<E>, int> = 0>
auto sum(const queue& q, const E& e) {
  using V = std::conditional_t<std::is_void_v<R>, typename detail::operand_t<E>::value_type, R>;
  return detail::run_reduction<V>(q, e, "a + b", detail::zero_literal<V>(), "sum");
}
/// Sum of a complex array.
template <class F>
std::complex<F> sum(const queue& q, const array<std::complex<F>>& x) {
  return detail::run_reduction<std::complex<F>>(q, x, "a + b",
                                                detail::zero_literal<std::complex<F>>(), "sum");
}
/// Sum of x[i] * y[i] for complex arrays (no conjugation).
template <class F>
std::complex<F> dot(const queue& q, const array<std::complex<F>>& x,
                    const array<std::complex<F>>& y) {
  return detail::run_reduction<std::complex<F>>(q, x * y, "a + b",
                                                detail::zero_literal<std::complex<F>>(), "dot");
}
/// Sum of a * b (no conjugation for complex operands).
template <class A, class B,
          std::enable_if_t<detail::binary_operands_v<A, B> && (detail::expression_argument_v<A> ||
                                                               detail::expression_argument_v<B>),
                           int> = 0>
auto dot(const queue& q, const A& a, const B& b) {
  return sum(q, a * b);
}
/// Smallest / largest value of a real expression. For float and double NaN values are
/// ignored (fmin/fmax); the result is NaN only if every value is NaN. Throws when empty.
template <class E, std::enable_if_t<detail::expression_argument_v<E>, int> = 0>
auto min(const queue& q, const E& e) {
  using V = typename detail::operand_t<E>::value_type;
  static_assert(!detail::is_complex_v<V>, "clforge::min: complex values have no order");
  detail::expression_check check;
  detail::as_operand(e).check(check);
  if (check.length == 0) detail::throw_expression_error("min: the expression is empty");
  if constexpr (std::is_floating_point_v<V>)
    return detail::run_reduction<V>(q, e, "fmin(a, b)", "NAN", "min");
  else
    return detail::run_reduction<V>(q, e, "min(a, b)", detail::limit_literal<V>(true), "min");
}
template <class E, std::enable_if_t<detail::expression_argument_v<E>, int> = 0>
auto max(const queue& q, const E& e) {
  using V = typename detail::operand_t<E>::value_type;
  static_assert(!detail::is_complex_v<V>, "clforge::max: complex values have no order");
  detail::expression_check check;
  detail::as_operand(e).check(check);
  if (check.length == 0) detail::throw_expression_error("max: the expression is empty");
  if constexpr (std::is_floating_point_v<V>)
    return detail::run_reduction<V>(q, e, "fmax(a, b)", "NAN", "max");
  else
    return detail::run_reduction<V>(q, e, "max(a, b)", detail::limit_literal<V>(false), "max");
}

namespace detail {
template <class T, class E>
void assign_expression(array<T>& target, const E& e) {
  run_assignment(target.home_queue(), target, e);
}
template <class T, class E>
void assign_expression(const array_view<T>& target, const E& e) {
  run_assignment(target.home_queue(), target, e);
}
}  // namespace detail

}  // namespace clforge
