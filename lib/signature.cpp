// SPDX-License-Identifier: MIT
#include "clforge/detail/signature.hpp"

#include "clforge/detail/codegen.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <sstream>

namespace clforge::detail {

namespace {

std::string trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return std::string(s);
}

[[noreturn]] void bad_parameter(const std::string& declaration, const std::string& why) {
  throw error("argument list: cannot read parameter \"" + declaration + "\": " + why);
}

parameter parse_parameter(const std::string& declaration) {
  parameter p;
  p.declaration = declaration;
  // Split into identifiers and '*'s.
  std::vector<std::string> tokens;
  for (std::size_t i = 0; i < declaration.size();) {
    char c = declaration[i];
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
    } else if (c == '*') {
      tokens.emplace_back("*");
      ++i;
    } else if (is_identifier_char(c)) {
      std::size_t start = i;
      while (i < declaration.size() && is_identifier_char(declaration[i])) ++i;
      tokens.push_back(declaration.substr(start, i - start));
    } else {
      bad_parameter(declaration, std::string("unexpected '") + c + "'");
    }
  }
  if (tokens.size() < 2) bad_parameter(declaration, "expected a type and a name");
  p.name = tokens.back();
  tokens.pop_back();
  if (!is_identifier(p.name)) bad_parameter(declaration, "the last word must be the name");

  std::vector<std::string> type_words;
  int pointers = 0;
  bool has_address_space = false, is_private = false;
  for (std::string& t : tokens) {
    std::string w = t.rfind("__", 0) == 0 ? t.substr(2) : t;  // __global == global
    if (w == "global" || w == "constant" || w == "local" || w == "private") {
      if (has_address_space) bad_parameter(declaration, "two address spaces");
      has_address_space = true;
      is_private = w == "private";
      if (!is_private) p.address_space = w;
    } else if (w == "const") {
      p.is_const = true;
    } else if (w == "restrict" || w == "volatile" || w == "read_only" || w == "write_only") {
      // qualifiers that change nothing for binding
    } else if (t == "*") {
      ++pointers;
    } else {
      type_words.push_back(t);
    }
  }
  if (pointers > 1) bad_parameter(declaration, "pointers to pointers cannot be kernel arguments");
  p.is_pointer = pointers == 1;
  // OpenCL C allows kernel pointer arguments into global, constant or local memory only.
  if (p.is_pointer && is_private)
    bad_parameter(declaration, "a kernel pointer argument cannot point to private memory");
  if (type_words.empty()) bad_parameter(declaration, "no type");
  // "unsigned int" -> "uint" etc.; "unsigned" alone is uint.
  if (type_words[0] == "unsigned") {
    std::string rest = type_words.size() > 1 ? type_words[1] : "int";
    if (type_words.size() > 2) bad_parameter(declaration, "unknown type");
    p.type = "u" + rest;
  } else if (type_words[0] == "signed" && type_words.size() == 2) {
    p.type = type_words[1];
  } else if (type_words.size() == 2 && type_words[0] == "struct") {
    p.type = "struct " + type_words[1];
  } else if (type_words.size() == 1) {
    p.type = type_words[0];
  } else {
    bad_parameter(declaration, "unknown type");
  }
  // A pointer without an address space is global, as in PyOpenCL ("float *y").
  if (p.is_pointer && p.address_space.empty()) {
    p.address_space = "global";
    p.declaration = "global " + trim(declaration);
  }
  if (!p.is_pointer && !p.address_space.empty())
    bad_parameter(declaration, "only pointers can be global, constant or local");
  // scalar_kind follows the order of the one scalar table (clforge/types.hpp).
  const int scalar = scalar_type_index(p.type);
  if (scalar >= 0) p.kind = static_cast<scalar_kind>(scalar);
  return p;
}

std::string expected_text(const parameter& p) {
  if (p.is_pointer)
    return p.address_space == "local"
               ? "local<" + p.type + ">(count)"
               : "array<" + p.type + "> (" + p.address_space + " " + p.type + "*)";
  return "a " + p.type + " value";
}

// Converts a captured scalar into the bytes of a `kind` parameter, refusing lossy conversions
// that would silently change the user's value.
std::string convert_scalar(const captured_argument& a, const parameter& p, std::string_view who,
                           std::size_t index) {
  auto fail = [&](const std::string& why) -> std::string {
    throw error(std::string(who) + ": argument " + std::to_string(index + 1) + " (" + p.name +
                ", " + p.type + "): " + why);
  };
  auto bytes_of = [](auto v) { return std::string(reinterpret_cast<const char*>(&v), sizeof v); };
  const scalar_type* s = &scalar_types[static_cast<int>(p.kind)];  // kind is a scalar here
  if (p.kind == scalar_kind::float_ || p.kind == scalar_kind::double_) {
    long double v = a.is_floating ? a.floating
                    : a.is_signed ? static_cast<long double>(a.signed_value)
                                  : static_cast<long double>(a.unsigned_value);
    // The integer rule for floating-point too: a finite value the type cannot hold is refused
    // rather than becoming infinity (infinities and NaN pass through as given).
    const cl_float as_float = static_cast<cl_float>(v);
    const cl_double as_double = static_cast<cl_double>(v);
    const bool fits =
        p.kind == scalar_kind::float_ ? std::isfinite(as_float) : std::isfinite(as_double);
    if (std::isfinite(v) && !fits)
      fail("the value does not fit (a finite value beyond the range of " + p.type + ")");
    return p.kind == scalar_kind::float_ ? bytes_of(as_float) : bytes_of(as_double);
  }
  if (a.is_floating) fail("got a floating-point value for an integer parameter");
  // Range check in 128 bits of sign + magnitude.
  const bool negative = a.is_signed && a.signed_value < 0;
  const std::uint64_t magnitude = negative      ? 0 - static_cast<std::uint64_t>(a.signed_value)
                                  : a.is_signed ? static_cast<std::uint64_t>(a.signed_value)
                                                : a.unsigned_value;
  const bool is_unsigned = p.type[0] == 'u';
  const unsigned bits = static_cast<unsigned>(s->size * 8);
  const std::uint64_t max_positive =
      is_unsigned ? (bits == 64 ? ~0ull : (1ull << bits) - 1) : (1ull << (bits - 1)) - 1;
  const std::uint64_t max_negative = is_unsigned ? 0 : (1ull << (bits - 1));
  if ((negative && magnitude > max_negative) || (!negative && magnitude > max_positive))
    fail("the value does not fit");
  const std::uint64_t raw = negative ? 0 - magnitude : magnitude;    // two's complement
  return std::string(reinterpret_cast<const char*>(&raw), s->size);  // little-endian host
}

}  // namespace

std::string describe(const captured_argument& a) {
  using what = captured_argument::what;
  switch (a.kind) {
    case what::array:
      return std::string(a.is_view ? "array_view<" : "array<") + a.type + "> of " +
             std::to_string(a.length) + " elements";
    case what::buffer:
      return "a cl::Buffer";
    case what::scalar:
      return a.is_floating ? "a floating-point value" : "an integer value";
    case what::bytes:
      return "a " + a.type + " value";
    case what::local_memory:
      return "local<" + a.type + ">(" + std::to_string(a.local_count) + ")";
  }
  return "an argument";
}

std::vector<parameter> parse_signature(std::string_view arguments) {
  std::vector<parameter> out;
  std::string text = trim(arguments);
  if (text.empty() || text == "void") return out;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t comma = text.find(',', start);
    std::string piece = trim(std::string_view(text).substr(
        start, comma == std::string::npos ? std::string::npos : comma - start));
    if (piece.empty()) throw error("argument list \"" + text + "\": an empty parameter");
    out.push_back(parse_parameter(piece));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  for (std::size_t i = 0; i < out.size(); ++i)
    for (std::size_t j = 0; j < i; ++j)
      if (out[i].name == out[j].name)
        throw error("argument list: the name \"" + out[i].name + "\" is used twice");
  return out;
}

argument_list::argument_list(std::string_view who, const std::vector<parameter>& params,
                             std::vector<captured_argument> args)
    : who_(who), params_(&params) {
  if (args.size() != params.size()) {
    std::string list;
    for (const parameter& p : params) list += (list.empty() ? "" : ", ") + p.declaration;
    throw error(std::string(who_) + ": takes " + std::to_string(params.size()) + " argument(s) (" +
                list + "), " + std::to_string(args.size()) + " given");
  }
  values_.reserve(args.size());
  for (std::size_t i = 0; i < args.size(); ++i) {
    const parameter& p = params[i];
    const captured_argument& a = args[i];
    auto mismatch = [&] {
      throw error(std::string(who_) + ": argument " + std::to_string(i + 1) + " (" + p.name +
                  ") expects " + expected_text(p) + ", got " + describe(a));
    };
    value v;
    using what = captured_argument::what;
    if (p.is_pointer && p.address_space == "local") {
      if (a.kind != what::local_memory) mismatch();
      v.kind = value::how::local_bytes;
      v.local_bytes = a.length;
    } else if (p.is_pointer) {
      if (a.kind == what::buffer) {
        v.kind = value::how::memory;
        v.mem = a.mem;
      } else if (a.kind == what::array) {
        if (a.type != p.type) mismatch();
        v.kind = value::how::memory;
        v.mem = a.mem;
        v.context = a.context;
        v.is_array = true;
        v.array_length = a.length;
        v.is_view = a.is_view;
        v.view_first = a.view_first;
        v.view_step = a.view_step;
        has_views_ = has_views_ || a.is_view;
        if (!has_array_) has_array_ = true, first_array_length_ = a.length;
      } else {
        mismatch();
      }
    } else if (a.kind == what::scalar) {
      if (p.kind == scalar_kind::other) mismatch();
      v.kind = value::how::bytes;
      v.bytes = convert_scalar(a, p, who_, i);
    } else if (a.kind == what::bytes) {
      if (a.type != p.type) mismatch();
      v.kind = value::how::bytes;
      v.bytes = a.bytes;
    } else {
      mismatch();
    }
    values_.push_back(std::move(v));
  }
}

void require_same_context(cl_mem mem, cl_context known, cl_context context, std::string_view who,
                          const std::string& argument) {
  if (!context || (!mem && !known)) return;
  cl_context owner = known;
  if (!owner)
    check(clGetMemObjectInfo(mem, CL_MEM_CONTEXT, sizeof owner, &owner, nullptr),
          "clGetMemObjectInfo");
  if (owner != context)
    throw error(std::string(who) + ": " + argument +
                " belongs to another OpenCL context than the queue (create it with a queue or "
                "context of the same clforge::context)");
}

void argument_list::require_context(cl_context context) const {
  for (std::size_t i = 0; i < values_.size(); ++i) {
    const value& v = values_[i];
    if (v.kind != value::how::memory || (!v.mem && !v.context)) continue;
    require_same_context(v.mem, v.context, context, who_,
                         "argument " + std::to_string(i + 1) + " (" + (*params_)[i].name + ")");
  }
}

void argument_list::set_on(cl_kernel k, cl_uint first_index) const {
  // Every memory argument must live in the kernel's context; checked before any is set.
  const bool any_memory = std::any_of(values_.begin(), values_.end(), [](const value& v) {
    return v.kind == value::how::memory && v.mem;
  });
  if (any_memory) {
    cl_context kernel_context = nullptr;
    check(clGetKernelInfo(k, CL_KERNEL_CONTEXT, sizeof kernel_context, &kernel_context, nullptr),
          "clGetKernelInfo");
    require_context(kernel_context);
  }
  if (has_views_ && !views_expanded_)
    for (std::size_t i = 0; i < values_.size(); ++i)
      if (values_[i].is_view)
        throw error(std::string(who_) + ": argument " + std::to_string(i + 1) + " (" +
                    (*params_)[i].name +
                    ") is an array_view; this kernel takes whole arrays only (copy the view "
                    "into an array first)");
  cl_uint index = first_index;
  for (std::size_t i = 0; i < values_.size(); ++i, ++index) {
    const value& v = values_[i];
    cl_int code = CL_SUCCESS;
    switch (v.kind) {
      case value::how::memory:
        code = clSetKernelArg(k, index, sizeof(cl_mem), &v.mem);
        if (code == CL_SUCCESS && v.is_view && views_expanded_) {
          const cl_long first = v.view_first, step = v.view_step;
          code = clSetKernelArg(k, ++index, sizeof first, &first);
          if (code == CL_SUCCESS && step != 1)
            code = clSetKernelArg(k, ++index, sizeof step, &step);
        }
        break;
      case value::how::bytes:
        code = clSetKernelArg(k, index, v.bytes.size(), v.bytes.data());
        break;
      case value::how::local_bytes:
        code = clSetKernelArg(k, index, v.local_bytes, nullptr);
        break;
    }
    if (code != CL_SUCCESS)
      throw_cl_error("clSetKernelArg", code,
                     std::string(who_) + ": argument " + std::to_string(i + 1) + " (" +
                         (*params_)[i].name +
                         ") was refused by the driver (does the struct's size match?)");
  }
}

std::string argument_list::view_pattern() const {
  std::string out;
  for (const value& v : values_) out += !v.is_view ? '-' : v.view_step == 1 ? 'u' : 's';
  return out;
}

void argument_list::require_array_lengths(std::size_t n, std::string_view what) const {
  for (std::size_t i = 0; i < values_.size(); ++i) {
    const value& v = values_[i];
    if (v.is_array && v.array_length < n)
      throw error(std::string(who_) + ": array argument " + std::to_string(i + 1) + " (" +
                  (*params_)[i].name + ") has " + std::to_string(v.array_length) + " elements, " +
                  std::string(what) + " needs " + std::to_string(n));
  }
}

std::string parameter_list(const std::vector<parameter>& params) {
  std::string out;
  for (const parameter& p : params) out += (out.empty() ? "" : ", ") + p.declaration;
  return out;
}

std::string argument_names(const std::vector<parameter>& params) {
  std::string out;
  for (const parameter& p : params) out += (out.empty() ? "" : ", ") + p.name;
  return out;
}

}  // namespace clforge::detail
