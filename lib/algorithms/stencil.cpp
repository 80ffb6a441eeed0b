// SPDX-License-Identifier: MIT
// stencil_kernel (kernels/stencil.cl): the declarations and the accesses of the assignments,
// the iteration slice, the kernels generated from the tuned policy, the launch; the ghost
// layers (kernels/ghosts.cl); the tuner's workload.
#include "clforge/algorithms/stencil.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <set>

#include "clforge/complex.hpp"
#include "clforge/detail/checks.hpp"
#include "clforge/detail/codegen.hpp"
#include "template_engine.hpp"
#include "tuning/candidate.hpp"
#include "tuning/store.hpp"
#include "tuning/workload.hpp"

namespace clforge {

namespace {
std::string bound_text(std::int64_t v) {
  return v == slice_none ? std::string() : std::to_string(v);
}
}  // namespace

iteration_slice::iteration_slice(std::initializer_list<index_range> per_dimension) {
  for (const index_range& r : per_dimension) {
    if (!text_.empty()) text_ += ", ";
    text_ += bound_text(r.start) + ":" + bound_text(r.stop) + ":" + std::to_string(r.step);
  }
  if (text_.empty()) detail::throw_field_error("iteration_slice: no dimension given");
}

launch_grid::launch_grid(std::initializer_list<std::size_t> block,
                         std::initializer_list<std::size_t> blocks) {
  if (block.size() > 3 || blocks.size() > 3 || block.size() == 0 || blocks.size() == 0)
    detail::throw_field_error(
        "launch_grid: block_size and num_blocks take 1 to 3 values (x, y, z)");
  std::copy(block.begin(), block.end(), block_size.begin());
  std::copy(blocks.begin(), blocks.end(), num_blocks.begin());
}

namespace detail {

namespace {

constexpr const char* kWhat = "stencil_kernel";
// Index dimensions are named from the fastest: the counters of a D-dimensional space.
const char* counter_name(std::size_t dims, std::size_t d) {
  static const char* const names[3][3] = {{"x", "", ""}, {"y", "x", ""}, {"z", "y", "x"}};
  return names[dims - 1][d];
}

// ---- declarations ----------------------------------------------------------------------------

struct field_decl {
  std::string name, type;  // type: the OpenCL element type
  std::size_t type_size_hint = 0;
  bool read = false, written = false;
};

struct declarations {
  std::vector<field_decl> fields;
  std::vector<bool> is_field;  // per declaration, in order
  std::string value_list;      // the other declarations, for parse_signature
  std::size_t dims = 0;
};

// Splits `text` at the commas outside parentheses (parameter lists and slices).
std::vector<std::string> split_top(std::string_view text, char separator) {
  std::vector<std::string> parts;
  int depth = 0;
  std::size_t from = 0;
  for (std::size_t j = 0; j <= text.size(); ++j) {
    const char c = j < text.size() ? text[j] : separator;
    if (c == '(' || c == '[') ++depth;
    if ((c == ')' || c == ']') && depth > 0) --depth;
    if (c == separator && depth == 0) {
      parts.emplace_back(text.substr(from, j - from));
      from = j + 1;
    }
  }
  return parts;
}

std::string trimmed(std::string_view s) {
  const auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string_view::npos) return "";
  return std::string(s.substr(b, s.find_last_not_of(" \t\r\n") - b + 1));
}

declarations parse_declarations(const std::string& parameters, const std::string& who) {
  declarations out;
  if (trimmed(parameters).empty())
    throw error(who + ": no parameters; declare the fields as TYPE[ND] NAME (\"float[2D] u\")");
  for (const std::string& raw : split_top(parameters, ',')) {
    const std::string part = trimmed(raw);
    const auto t = source_tokens(part);
    // TYPE... [ ND ] NAME
    std::size_t open = 0;
    while (open < t.size() && t[open] != "[") ++open;
    if (open == t.size()) {
      out.is_field.push_back(false);
      out.value_list += (out.value_list.empty() ? "" : ", ") + part;
      continue;
    }
    const bool shaped = open > 0 && open + 3 < t.size() && t[open + 2] == "]" &&
                        open + 4 == t.size() && is_identifier(t[open + 3]) &&
                        (t[open + 1] == "1D" || t[open + 1] == "2D" || t[open + 1] == "3D");
    if (!shaped)
      throw error(who + ": \"" + part +
                  "\" is no declaration; fields are TYPE[ND] NAME with N 1, 2 or 3 (\"float[2D] "
                  "u\"), other parameters as in C (\"float k\")");
    std::string type;
    for (std::size_t k = 0; k < open; ++k) type += (k ? " " : "") + std::string(t[k]);
    // The element type through the one parameter parser (normalises "unsigned int" to uint).
    const std::vector<parameter> p = parse_signature(type + " " + std::string(t[open + 3]));
    if (p.size() != 1 || p[0].is_pointer || !p[0].address_space.empty())
      throw error(who + ": \"" + part + "\": a field's element type is a plain type name");
    const std::size_t dims = static_cast<std::size_t>(t[open + 1][0] - '0');
    if (out.dims != 0 && dims != out.dims)
      throw error(who + ": \"" + part + "\" is " + std::to_string(dims) +
                  "-D, the fields before it " + std::to_string(out.dims) +
                  "-D: the fields of one stencil have one number of dimensions");
    out.dims = dims;
    field_decl f;
    f.name = p[0].name;
    f.type = p[0].type;
    out.fields.push_back(f);
    out.is_field.push_back(true);
  }
  if (out.fields.empty())
    throw error(who +
                ": no field among the parameters; declare them as TYPE[ND] NAME (\"float[2D] "
                "u\")");
  return out;
}

// ---- accesses ----------------------------------------------------------------------------------

struct access {
  std::size_t field = 0;
  std::array<int, 3> offset{0, 0, 0};  // index order, dims entries used
  bool read = false, write = false;
  std::size_t from = 0, to = 0;  // the text of the access, [from, to) in the assignments
  std::string shown;             // "u(1, 0)", for messages
};

std::string offsets_text(const std::array<int, 3>& o, std::size_t dims) {
  std::string s = "(";
  for (std::size_t d = 0; d < dims; ++d) s += (d ? ", " : "") + std::to_string(o[d]);
  return s + ")";
}

std::vector<access> parse_accesses(const std::string& text, declarations& decl,
                                   const std::string& who) {
  const auto t = source_tokens(text);
  auto at = [&](std::size_t k) { return k < t.size() ? t[k] : std::string_view(); };
  std::vector<access> out;
  for (std::size_t k = 0; k < t.size(); ++k) {
    std::size_t f = 0;
    while (f < decl.fields.size() && decl.fields[f].name != t[k]) ++f;
    // A member of the same name (s.u, p->u) is no access.
    const bool member = k > 0 && (t[k - 1] == "." || (k > 1 && t[k - 1] == ">" && t[k - 2] == "-"));
    if (f == decl.fields.size() || member) continue;
    const std::string& name = decl.fields[f].name;
    const std::string form = name + "(" +
                             (decl.dims == 1   ? "0"
                              : decl.dims == 2 ? "0, 1"
                                               : "0, 0, 1") +
                             ")";
    if (at(k + 1) != "(")
      throw error(who + ": the field " + name + " is used without offsets; an access is " + form);
    access a;
    a.field = f;
    std::size_t j = k + 2;
    for (std::size_t d = 0; d < decl.dims; ++d) {
      int sign = 1;
      if (at(j) == "-" || at(j) == "+") sign = at(j++) == "-" ? -1 : 1;
      const std::string_view number = at(j);
      const bool digits = !number.empty() && number.size() <= 6 &&
                          number.find_first_not_of("0123456789") == std::string_view::npos;
      const std::string_view after = at(j + 1);
      if (!digits || after != (d + 1 == decl.dims ? ")" : ","))
        throw error(who + ": an access to " + name + " takes " + std::to_string(decl.dims) +
                    " integer offsets, as in " + form + " (integer constants up to 999999)");
      a.offset[d] = sign * std::stoi(std::string(number));
      j += 2;
    }
    const std::size_t close = j - 1;
    a.from = static_cast<std::size_t>(t[k].data() - text.data());
    a.to = static_cast<std::size_t>(t[close].data() - text.data()) + 1;
    a.shown = name + offsets_text(a.offset, decl.dims);
    // What follows: an assignment (=), a compound one (op=, <<=, >>=), ++ or --; also through a
    // member (v(0,0).x = ...).
    std::size_t n = close + 1;
    if (at(n) == "." && is_identifier(at(n + 1))) n += 2;
    const std::string_view o = at(n), o2 = at(n + 1), o3 = at(n + 2);
    // Operators of two or three characters are written together: "a + +b" is no increment.
    auto joined = [](std::string_view a, std::string_view b) {
      return !b.empty() && a.data() + a.size() == b.data();
    };
    const bool plain = o == "=" && !(o2 == "=" && joined(o, o2));
    const bool compound =
        (o.size() == 1 && std::string_view("+-*/%&|^").find(o) != std::string_view::npos &&
         o2 == "=" && joined(o, o2)) ||
        ((o == "<" || o == ">") && o2 == o && o3 == "=" && joined(o, o2) && joined(o2, o3)) ||
        ((o == "+" || o == "-") && o2 == o && joined(o, o2)) ||
        (k >= 2 && (t[k - 1] == "+" || t[k - 1] == "-") && t[k - 2] == t[k - 1] &&
         joined(t[k - 2], t[k - 1]));
    a.write = plain || compound;
    a.read = !plain;
    decl.fields[f].read |= a.read;
    decl.fields[f].written |= a.write;
    out.push_back(a);
    k = close;
  }
  return out;
}

// The rules of a race-free kernel: a field written at one offset only, and not read unless in
// place and only at that offset.
void check_races(const declarations& decl, const std::vector<access>& accesses, bool in_place,
                 const std::string& who) {
  bool any_write = false;
  for (std::size_t f = 0; f < decl.fields.size(); ++f) {
    const access* write = nullptr;
    for (const access& a : accesses) {
      if (a.field != f || !a.write) continue;
      if (write && write->offset != a.offset)
        throw error(who + ": " + decl.fields[f].name + " is written at two offsets, " +
                    write->shown + " and " + a.shown +
                    ": neighbouring points would write the same cell");
      if (!write) write = &a;
    }
    if (!write) continue;
    any_write = true;
    // A read elsewhere than the written cell races in any case; one at it, unless in place.
    const access* read = nullptr;
    for (const access& a : accesses)
      if (a.field == f && a.read && (!read || a.offset != write->offset)) read = &a;
    if (!read) continue;
    if (!in_place)
      throw error(who + ": " + decl.fields[f].name + " is read (" + read->shown +
                  ") and written (" + write->shown +
                  ") in one kernel: neighbouring points would race (an in-place update). Write "
                  "another field, or declare clforge::in_place for a point-wise update");
    if (read->offset != write->offset)
      throw error(who + ": clforge::in_place: " + decl.fields[f].name + " is read at " +
                  read->shown + " and written at " + write->shown +
                  ": in place, only point-wise updates (every access at the written offset) "
                  "are free of races");
  }
  if (!any_write)
    throw error(who + ": the assignments write no field (an assignment is NAME(offsets) = ...)");
}

// ---- iteration slices ----------------------------------------------------------------------

// An integer bound: none, a constant, or an expression of the counters of slower dimensions,
// kept in reverse Polish notation (evaluated on the host without recursion) and as OpenCL C.
struct bound {
  enum class kind { none, constant, expression } what = kind::none;
  long long value = 0;
  struct item {
    char op = 0;  // 0: operand; + - * / %; 'n': negation
    long long number = 0;
    int counter = -1;  // operand: index dimension of the counter, or -1 for a number
  };
  std::vector<item> rpn;
  std::string code;  // OpenCL C, counters as clforge_c<d>
};

struct dim_slice {
  bound start, stop;
  long long step = 1;
};

int precedence(char op) {
  return op == 'n' ? 3 : (op == '*' || op == '/' || op == '%') ? 2 : 1;
}

bound parse_bound(const std::vector<std::string_view>& t, std::size_t dims, std::size_t d,
                  const std::string& where) {
  bound b;
  if (t.empty()) return b;
  // A constant: an optional sign and digits.
  const std::size_t first = (t[0] == "-" || t[0] == "+") ? 1 : 0;
  if (t.size() == first + 1 && t[first].find_first_not_of("0123456789") == std::string_view::npos) {
    if (t[first].size() > 12)
      throw error(where + ": the bound " + std::string(t[first]) + " is too large");
    b.what = bound::kind::constant;
    b.value = std::stoll(std::string(t[first])) * (t[0] == "-" ? -1 : 1);
    return b;
  }
  b.what = bound::kind::expression;
  std::vector<char> ops;
  bool operand_expected = true;
  int depth = 0;
  auto pop_to_output = [&] {
    bound::item it;
    it.op = ops.back();
    ops.pop_back();
    b.rpn.push_back(it);
  };
  for (std::string_view w : t) {
    if (operand_expected && (w == "-" || w == "+")) {
      if (w == "-") ops.push_back('n'), b.code += "-";
      continue;
    }
    if (w == "(") {
      if (!operand_expected) throw error(where + ": a '(' where an operator belongs");
      if (++depth > 32) throw error(where + ": more than 32 nested parentheses");
      ops.push_back('(');
      b.code += "(";
      continue;
    }
    if (w == ")") {
      if (operand_expected || depth == 0) throw error(where + ": a ')' out of place");
      while (ops.back() != '(') pop_to_output();
      ops.pop_back();
      --depth;
      b.code += ")";
      continue;
    }
    if (w.size() == 1 && std::string_view("+-*/%").find(w) != std::string_view::npos) {
      if (operand_expected)
        throw error(where + ": an operator '" + std::string(w) + "' out of place");
      const char op = w[0];
      while (!ops.empty() && ops.back() != '(' && precedence(ops.back()) >= precedence(op))
        pop_to_output();
      ops.push_back(op);
      b.code += " " + std::string(w) + " ";
      operand_expected = true;
      continue;
    }
    if (!operand_expected)
      throw error(where + ": \"" + std::string(w) + "\" where an operator belongs");
    bound::item it;
    if (w.find_first_not_of("0123456789") == std::string_view::npos) {
      if (w.size() > 12) throw error(where + ": the number " + std::string(w) + " is too large");
      it.number = std::stoll(std::string(w));
      // long, as the host evaluates (int arithmetic would overflow where the host's does not).
      b.code += "(long)" + std::string(w);
    } else {
      std::size_t c = 0;
      while (c < d && w != counter_name(dims, c)) ++c;
      if (c == d) {
        std::string slower;
        for (std::size_t e = 0; e < d; ++e)
          slower += std::string(e ? ", " : " ") + counter_name(dims, e);
        throw error(where + ": \"" + std::string(w) + "\" in a bound of " + counter_name(dims, d) +
                    "; a bound is an integer expression of the counters of slower dimensions" +
                    (d ? " (here" + slower + ")" : " (none here)"));
      }
      it.counter = static_cast<int>(c);
      b.code += "(long)clforge_c" + std::to_string(c);
    }
    b.rpn.push_back(it);
    operand_expected = false;
  }
  if (operand_expected || depth != 0) throw error(where + ": the expression is incomplete");
  while (!ops.empty()) pop_to_output();
  b.code = "(" + b.code + ")";
  return b;
}

// Evaluates an expression bound for the counters `c`, as OpenCL C's long arithmetic would.
long long evaluate(const bound& b, const std::array<long long, 3>& c, const std::string& where) {
  long long stack[64];
  std::size_t top = 0;
  for (const bound::item& it : b.rpn) {
    if (it.op == 0) {
      if (top == 64) throw error(where + ": the expression is too long");
      stack[top++] = it.counter >= 0 ? c[static_cast<std::size_t>(it.counter)] : it.number;
      continue;
    }
    if (it.op == 'n') {
      if (stack[top - 1] == std::numeric_limits<long long>::min())
        throw error(where + ": the expression overflows");
      stack[top - 1] = -stack[top - 1];
      continue;
    }
    const long long r = stack[--top], l = stack[top - 1];
    long long v = 0;
    bool overflow = false;
    switch (it.op) {
      case '+':
        overflow = __builtin_add_overflow(l, r, &v);
        break;
      case '-':
        overflow = __builtin_sub_overflow(l, r, &v);
        break;
      case '*':
        overflow = __builtin_mul_overflow(l, r, &v);
        break;
      default:
        if (r == 0) throw error(where + ": the expression divides by zero");
        overflow = l == std::numeric_limits<long long>::min() && r == -1;
        if (!overflow) v = it.op == '/' ? l / r : l % r;
    }
    if (overflow) throw error(where + ": the expression overflows");
    stack[top - 1] = v;
  }
  return stack[0];
}

std::vector<dim_slice> parse_slice(const std::string& text, std::size_t dims,
                                   const std::string& who) {
  std::vector<dim_slice> out(dims);
  if (text.empty()) return out;
  const std::vector<std::string> parts = split_top(text, ',');
  const std::string where = who + ": iteration_slice \"" + text + "\"";
  if (parts.size() != dims)
    throw error(where + " has " + std::to_string(parts.size()) + " dimensions, the fields " +
                std::to_string(dims));
  for (std::size_t d = 0; d < dims; ++d) {
    const std::vector<std::string> sections = split_top(parts[d], ':');
    if (sections.size() > 3)
      throw error(where + ": dimension " + std::to_string(d) + " has more than start:stop:step");
    auto tokens = [&](std::size_t s) {
      return s < sections.size() ? source_tokens(sections[s]) : std::vector<std::string_view>();
    };
    const std::string at = where + ", dimension " + std::to_string(d);
    // Keep the section texts alive while their tokens are used.
    dim_slice& ds = out[d];
    ds.start = parse_bound(tokens(0), dims, d, at);
    if (sections.size() == 1) {
      // A single index: start = stop - 1.
      if (ds.start.what == bound::kind::none) throw error(at + ": an empty bound");
      if (ds.start.what == bound::kind::constant) {
        ds.stop = ds.start;
        ds.stop.value = ds.start.value + 1;
        if (ds.start.value == -1) ds.stop.what = bound::kind::none;
      } else {
        ds.stop = ds.start;
        bound::item one, plus;
        one.number = 1;
        plus.op = '+';
        ds.stop.rpn.push_back(one);
        ds.stop.rpn.push_back(plus);
        ds.stop.code = "(" + ds.start.code + " + 1)";
      }
      continue;
    }
    ds.stop = parse_bound(tokens(1), dims, d, at);
    const auto step = tokens(2);
    if (!step.empty()) {
      if (step.size() != 1 || step[0].find_first_not_of("0123456789") != std::string_view::npos ||
          step[0].size() > 9 || std::stoll(std::string(step[0])) == 0)
        throw error(at + ": the step is a positive integer");
      ds.step = std::stoll(std::string(step[0]));
    }
  }
  return out;
}

// ---- the policy as the kernels use it ----------------------------------------------------------

struct variant {
  std::size_t march = 1, run = 1;
  bool window = false, tile = false;
  std::array<std::size_t, 3> group{1, 1, 1};  // x, y, z
};

// ---- state ---------------------------------------------------------------------------------

struct tiled_field {
  std::size_t field = 0;
  std::array<int, 3> halo_low{0, 0, 0}, halo_high{0, 0, 0};  // index order
};

}  // namespace

// template_state::params: the non-field parameters.
struct stencil_state : template_state_of<stencil_options, stencil_kernel> {
  context ctx;
  std::string arguments, assignments;
  declarations decl;
  std::vector<access> accesses;
  std::vector<dim_slice> slice;
  bool dynamic = false;  // a bound depends on a counter
  variant auto_variant;
  std::string policy;
  kernel automatic, grid;      // grid: the manual grid's kernel (the automatic one when alike)
  std::size_t auto_limit = 0;  // the work-items a group of the automatic kernel may have
  std::size_t grid_limit = 0;
  std::array<std::size_t, 3> max_item_sizes{0, 0, 0};
};

namespace {

// ---- code generation ---------------------------------------------------------------------------

struct generator {
  const stencil_state& st;
  std::size_t dims;
  variant v;
  bool grid;  // the manual grid's kernel
  std::vector<tiled_field> tiles;
  // window groups: (field, fast offsets) with their range of slow offsets
  struct window_group {
    std::size_t field;
    std::array<int, 3> fast;
    int low, high;
  };
  std::vector<window_group> windows;

  std::string counter(std::size_t d) const { return counter_name(dims, d); }
  std::string ocl(std::size_t d) const { return std::to_string(dims - 1 - d); }
  std::string step(std::size_t d) const { return std::to_string(st.slice[d].step); }
  const field_decl& field(std::size_t f) const { return st.decl.fields[f]; }

  // The offset of an access from the point's index in field f: "+ 2 * clforge_s0_u - 1".
  std::string offset_code(std::size_t f, const std::array<int, 3>& o, std::size_t from = 0) const {
    std::string s;
    for (std::size_t d = from; d < dims; ++d) {
      if (o[d] == 0) continue;
      const std::string sign = o[d] < 0 ? " - " : " + ";
      const std::string mag = std::to_string(std::abs(o[d]));
      if (d + 1 == dims)
        s += sign + mag;
      else
        s += sign + (std::abs(o[d]) == 1 ? "" : mag + " * ") + "clforge_s" + std::to_string(d) +
             "_" + field(f).name;
    }
    return s;
  }

  bool windowed(const access& a, std::size_t* group = nullptr, int* slot = nullptr) const {
    for (std::size_t g = 0; g < windows.size(); ++g) {
      const window_group& w = windows[g];
      bool same = w.field == a.field;
      for (std::size_t d = 1; d < dims; ++d) same = same && w.fast[d] == a.offset[d];
      if (!same) continue;
      if (group) *group = g;
      if (slot) *slot = a.offset[0] - w.low;
      return true;
    }
    return false;
  }
  const tiled_field* tiled(const access& a) const {
    if (a.offset[0] != 0 || windowed(a)) return nullptr;
    for (const tiled_field& t : tiles)
      if (t.field == a.field) return &t;
    return nullptr;
  }

  void plan() {
    if (grid) return;
    if (v.window) {
      for (const access& a : st.accesses) {
        if (field(a.field).written) continue;
        if (windowed(a)) continue;
        std::set<int> slow;
        for (const access& b : st.accesses) {
          bool same = b.field == a.field;
          for (std::size_t d = 1; d < dims; ++d) same = same && b.offset[d] == a.offset[d];
          if (same) slow.insert(b.offset[0]);
        }
        if (slow.size() < 2) continue;
        windows.push_back({a.field, a.offset, *slow.begin(), *slow.rbegin()});
      }
    }
    if (v.tile) {
      for (std::size_t f = 0; f < st.decl.fields.size(); ++f) {
        if (field(f).written) continue;
        tiled_field t;
        t.field = f;
        bool neighbours = false;
        for (const access& a : st.accesses) {
          if (a.field != f || a.offset[0] != 0 || windowed(a)) continue;
          for (std::size_t d = 1; d < dims; ++d) {
            neighbours |= a.offset[d] != 0;
            t.halo_low[d] = std::max(t.halo_low[d], -a.offset[d]);
            t.halo_high[d] = std::max(t.halo_high[d], a.offset[d]);
          }
        }
        if (neighbours) tiles.push_back(t);
      }
    }
  }

  std::string name_suffix() const { return grid ? "_grid" : ""; }

  // Tile geometry: TW along x, TH along y (3-D; 1 in 2-D).
  std::size_t tile_width(const tiled_field& t) const {
    return v.group[0] + static_cast<std::size_t>(t.halo_low[dims - 1] + t.halo_high[dims - 1]);
  }
  std::size_t tile_height(const tiled_field& t) const {
    return dims == 3 ? v.group[1] + static_cast<std::size_t>(t.halo_low[1] + t.halo_high[1]) : 1;
  }
  std::size_t tile_slabs() const { return dims == 3 ? v.group[2] : v.group[1]; }
  std::string tile_array(const tiled_field& t) const { return "clforge_t_" + field(t.field).name; }

  std::string setup() const {
    std::string s;
    const bool guard_all = !grid && v.tile;  // no early return: every work-item reaches barriers
    // OpenCL dimensions beyond the space: only their first work-items work.
    for (std::size_t d = dims; d < 3; ++d)
      s += "  if (clforge_global_id(" + std::to_string(d) + ") != 0) return;\n";
    if (guard_all) s += "  bool clforge_active = true;\n";
    for (const tiled_field& t : tiles)
      s += "  local " + field(t.field).type + " " + tile_array(t) + "[" +
           std::to_string(tile_slabs()) + "][" + std::to_string(tile_height(t)) + "][" +
           std::to_string(tile_width(t)) + "];\n";
    for (std::size_t d = 0; d < dims; ++d) {
      const std::string ds = std::to_string(d);
      const dim_slice& sl = st.slice[d];
      std::size_t units = 1;
      if (!grid && d == 0 && dims > 1) units = v.march;
      if (!grid && d + 1 == dims) units = v.run;
      const std::string n = "clforge_n" + ds;
      auto bound_code = [&](const bound& b, const char* fixed) {
        if (b.what != bound::kind::expression) return std::string(fixed) + ds;
        return "(int)clforge_clamp(" + b.code + ", 0L, (long)" + n + ")";
      };
      s += "  const int clforge_lo" + ds + " = " + bound_code(sl.start, "clforge_b") + ";\n";
      s += "  const int clforge_hi" + ds + " = " + bound_code(sl.stop, "clforge_e") + ";\n";
      s += "  const long clforge_k" + ds + " = (long)clforge_global_id(" + ocl(d) + ")" +
           (units > 1 ? " * " + std::to_string(units) : "") + ";\n";
      s += "  const long clforge_first" + ds + " = clforge_lo" + ds + " + clforge_k" + ds + " * " +
           step(d) + ";\n";
      if (guard_all)
        s += "  clforge_active = clforge_active && clforge_first" + ds + " < clforge_hi" + ds +
             ";\n";
      else
        s += "  if (clforge_first" + ds + " >= clforge_hi" + ds + ") return;\n";
      s += std::string("  ") + (d == 0 ? "" : "const ") + "int clforge_c" + ds +
           " = (int)clforge_first" + ds + ";\n";
    }
    // Each field's index of the work-item's first point.
    for (const field_decl& f : st.decl.fields) {
      s += "  long clforge_i_" + f.name + " = clforge_o_" + f.name;
      for (std::size_t d = 0; d + 1 < dims; ++d)
        s += " + (long)clforge_c" + std::to_string(d) + " * clforge_s" + std::to_string(d) + "_" +
             f.name;
      s += " + clforge_c" + std::to_string(dims - 1) + ";\n";
    }
    const std::string last = std::to_string(dims - 1);
    if (!grid && v.run > 1)
      s += "  const int clforge_run_count = clforge_min(CLFORGE_RUN, (clforge_hi" + last +
           " - clforge_c" + last + " + " + step(dims - 1) + " - 1) / " + step(dims - 1) + ");\n";
    else
      s += "  const int clforge_run_count = 1;\n";
    // The window's registers of the first point, but the newest (loaded at every step).
    for (std::size_t g = 0; g < windows.size(); ++g) {
      const window_group& w = windows[g];
      for (int o = w.low; o < w.high; ++o) {
        std::array<int, 3> off = w.fast;
        off[0] = o;
        const std::string reg = window_register(g, o - w.low);
        const std::string load = field(w.field).name + "[clforge_i_" + field(w.field).name +
                                 offset_code(w.field, off) + "]";
        s += "  " + field(w.field).type + " " + reg + ";\n";
        s += std::string("  ") + (guard_all ? "if (clforge_active) " : "") + reg + " = " + load +
             ";\n";
      }
    }
    if (guard_all && !tiles.empty()) {
      // The group's first point (steps of 1 in the tiled dimensions).
      s += "  const int clforge_gx = clforge_lo" + last + " + (int)(clforge_group_id(0) * " +
           std::to_string(v.group[0]) + ");\n";
      if (dims == 3)
        s += "  const int clforge_gy = clforge_lo1 + (int)(clforge_group_id(1) * " +
             std::to_string(v.group[1]) + ");\n";
    }
    return s;
  }

  std::string window_register(std::size_t g, int slot) const {
    return "clforge_w" + std::to_string(g) + "_" + std::to_string(slot);
  }

  std::string step_begin() const {
    std::string s;
    if (grid) return s;
    const bool guard_all = v.tile;
    if (guard_all)
      s += "    const bool clforge_here = clforge_active && clforge_c0 < clforge_hi0;\n";
    else
      s += "    if (clforge_c0 >= clforge_hi0) break;\n";
    if (!tiles.empty()) {
      const std::string last = std::to_string(dims - 1);
      const std::string slab = dims == 3 ? "clforge_local_id(2)" : "clforge_local_id(1)";
      const std::string threads = std::to_string(dims == 3 ? v.group[0] * v.group[1] : v.group[0]);
      const std::string lid = dims == 3 ? "(int)(clforge_local_id(0) + clforge_local_id(1) * " +
                                              std::to_string(v.group[0]) + ")"
                                        : "(int)clforge_local_id(0)";
      s += "    clforge_local_barrier();  // the previous step's reads are done\n";
      for (const tiled_field& t : tiles) {
        const std::string f = field(t.field).name;
        const std::string tw = std::to_string(tile_width(t)), th = std::to_string(tile_height(t));
        const std::string hxl = std::to_string(t.halo_low[dims - 1]),
                          hxh = std::to_string(t.halo_high[dims - 1]);
        s += "    for (int clforge_q = " + lid + "; clforge_q < " + th + " * " + tw +
             "; clforge_q += " + threads + ") {\n";
        s += "      const int clforge_tx = clforge_q % " + tw + ", clforge_ty = clforge_q / " + tw +
             ";\n";
        s += "      const int clforge_px = clforge_gx - " + hxl + " + clforge_tx;\n";
        std::string inside = "clforge_c0 < clforge_hi0 && clforge_px >= clforge_lo" + last + " - " +
                             hxl + " && clforge_px < clforge_hi" + last + " + " + hxh;
        std::string index = "clforge_o_" + f + " + (long)clforge_c0 * clforge_s0_" + f;
        if (dims == 3) {
          const std::string hyl = std::to_string(t.halo_low[1]),
                            hyh = std::to_string(t.halo_high[1]);
          s += "      const int clforge_py = clforge_gy - " + hyl + " + clforge_ty;\n";
          inside +=
              " && clforge_py >= clforge_lo1 - " + hyl + " && clforge_py < clforge_hi1 + " + hyh;
          index += " + (long)clforge_py * clforge_s1_" + f;
        }
        index += " + clforge_px";
        s += "      if (" + inside + ")\n";
        s += "        " + tile_array(t) + "[" + slab + "][clforge_ty][clforge_tx] = " + f + "[" +
             index + "];\n";
        s += "    }\n";
      }
      s += "    clforge_local_barrier();\n";
    }
    for (std::size_t g = 0; g < windows.size(); ++g) {
      const window_group& w = windows[g];
      std::array<int, 3> off = w.fast;
      off[0] = w.high;
      const std::string reg = window_register(g, w.high - w.low);
      const std::string load = field(w.field).name + "[clforge_i_" + field(w.field).name +
                               offset_code(w.field, off) + "]";
      if (guard_all)
        s += "    " + field(w.field).type + " " + reg + ";\n    if (clforge_here) " + reg + " = " +
             load + ";\n";
      else
        s += "    const " + field(w.field).type + " " + reg + " = " + load + ";\n";
    }
    s += std::string("    const int clforge_points = ") +
         (guard_all ? "clforge_here ? clforge_run_count : 0" : "clforge_run_count") + ";\n";
    return s;
  }

  std::string step_end() const {
    std::string s;
    if (grid) return s;
    for (std::size_t g = 0; g < windows.size(); ++g) {
      const window_group& w = windows[g];
      for (int o = 0; o < w.high - w.low; ++o)
        s += "    " + window_register(g, o) + " = " + window_register(g, o + 1) + ";\n";
    }
    if (dims > 1 && v.march > 1) {
      s += "    clforge_c0 += " + step(0) + ";\n";
      for (const field_decl& f : st.decl.fields)
        s += "    clforge_i_" + f.name + " += " + step(0) + " * clforge_s0_" + f.name + ";\n";
    }
    return s;
  }

  // The point's counters, and the registers its reads load.
  std::string point(std::vector<std::string>& replacement) const {
    std::string s;
    const std::string pad = grid ? "    " : "      ";
    for (std::size_t d = 0; d < dims; ++d) {
      const std::string c = "clforge_c" + std::to_string(d);
      s += pad + "const int " + counter(d) + " = " + c +
           (d + 1 == dims ? " + clforge_r * " + step(d) : std::string()) + ";\n";
    }
    for (const field_decl& f : st.decl.fields)
      s += pad + "const long clforge_j_" + f.name + " = clforge_i_" + f.name +
           " + (long)clforge_r * " + step(dims - 1) + ";\n";
    std::map<std::string, std::string> loaded;  // access text -> register
    replacement.assign(st.accesses.size(), "");
    for (std::size_t k = 0; k < st.accesses.size(); ++k) {
      const access& a = st.accesses[k];
      const field_decl& f = field(a.field);
      const std::string memory =
          f.name + "[clforge_j_" + f.name + offset_code(a.field, a.offset) + "]";
      if (f.written) {
        replacement[k] = memory;
        continue;
      }
      std::size_t group = 0;
      int slot = 0;
      if (!grid && windowed(a, &group, &slot)) {
        replacement[k] = window_register(group, slot);
        continue;
      }
      auto found = loaded.find(a.shown);
      if (found != loaded.end()) {
        replacement[k] = found->second;
        continue;
      }
      const std::string reg = "clforge_a" + std::to_string(loaded.size());
      std::string value = memory;
      if (const tiled_field* t = grid ? nullptr : tiled(a)) {
        const std::string slab = dims == 3 ? "clforge_local_id(2)" : "clforge_local_id(1)";
        std::string ty = "0";
        if (dims == 3) ty = "clforge_local_id(1) + " + std::to_string(t->halo_low[1] + a.offset[1]);
        value = tile_array(*t) + "[" + slab + "][" + ty + "][clforge_local_id(0) + " +
                std::to_string(t->halo_low[dims - 1] + a.offset[dims - 1]) + "]";
      }
      s += pad + "const " + f.type + " " + reg + " = " + value + ";\n";
      loaded[a.shown] = reg;
      replacement[k] = reg;
    }
    return s;
  }

  std::string body(const std::vector<std::string>& replacement) const {
    std::string out;
    std::size_t copied = 0;
    const std::string& text = st.assignments;
    for (std::size_t k = 0; k < st.accesses.size(); ++k) {
      const access& a = st.accesses[k];
      out.append(text, copied, a.from - copied);
      out += replacement[k];
      copied = a.to;
    }
    out.append(text, copied, std::string::npos);
    return snippet(out) + ";";
  }
};

std::string kernel_parameters(const stencil_state& st) {
  std::string s;
  const std::size_t dims = st.decl.dims;
  for (const field_decl& f : st.decl.fields) {
    s += std::string(s.empty() ? "" : ", ") + "global " + (f.written ? "" : "const ") + f.type +
         "* restrict " + f.name + ", long clforge_o_" + f.name;
    for (std::size_t d = 0; d + 1 < dims; ++d)
      s += ", long clforge_s" + std::to_string(d) + "_" + f.name;
  }
  if (!st.params.empty()) s += ", " + parameter_list(st.params);
  for (std::size_t d = 0; d < dims; ++d) {
    const std::string ds = std::to_string(d);
    s += ", int clforge_n" + ds + ", int clforge_b" + ds + ", int clforge_e" + ds;
  }
  return s;
}

// Halves a work-group (z, then y, then x) until it has at most `limit` work-items.
void shrink_group(std::array<std::size_t, 3>& group, std::size_t limit) {
  while (group[0] * group[1] * group[2] > std::max<std::size_t>(1, limit)) {
    std::size_t& d = group[2] > 1 ? group[2] : group[1] > 1 ? group[1] : group[0];
    d = (d + 1) / 2;
  }
}

// The policy as this stencil can use it: no march in 1-D or with dependent bounds, no window
// without a march of step 1, no tile for a run or strided fast dimensions.
variant variant_of(const stencil_policy& p, const stencil_state& st, const device_info& info) {
  variant v;
  const std::size_t dims = st.decl.dims;
  v.group = {p.group_x, dims >= 2 ? p.group_y : 1, dims == 3 ? p.group_z : 1};
  shrink_group(v.group, info.max_work_group_size);
  v.run = p.run;
  v.march = dims > 1 && !st.dynamic ? p.march : 1;
  v.window = p.window && v.march > 1 && v.run == 1 && st.slice[0].step == 1;
  bool fast_steps_one = true;
  for (std::size_t d = 1; d < dims; ++d) fast_steps_one = fast_steps_one && st.slice[d].step == 1;
  v.tile = p.tile && dims > 1 && v.run == 1 && !st.dynamic && fast_steps_one;
  return v;
}

std::size_t local_bytes(const generator& g) {
  std::size_t bytes = 0;
  for (const tiled_field& t : g.tiles) {
    const std::string& type = g.field(t.field).type;
    const int scalar = scalar_type_index(type);
    std::size_t size =
        scalar >= 0 ? scalar_types[scalar].size : 16;  // vectors, complex: at most 16
    if (type == "cfloat_t") size = 8;
    bytes += g.tile_slabs() * g.tile_height(t) * g.tile_width(t) * size;
  }
  return bytes;
}

void build(stencil_state& st, const stencil_policy& policy, const template_header& header) {
  const device_info& info = st.ctx.info();
  st.policy = policy_text(policy);
  variant v = variant_of(policy, st, info);
  for (int attempt = 0;; ++attempt) {
    generator automatic{st, st.decl.dims, v, false, {}, {}};
    automatic.plan();
    if (v.tile &&
        (automatic.tiles.empty() || local_bytes(automatic) + 256 > info.local_mem_bytes)) {
      v.tile = false;  // nothing to tile, or no room: the loads go to the caches
      continue;
    }
    const bool simple = v.march == 1 && v.run == 1 && !v.tile;
    generator manual{st, st.decl.dims, v, true, {}, {}};
    std::vector<std::string> auto_loads, grid_loads;
    const std::string auto_point = automatic.point(auto_loads);
    const std::string grid_point = manual.point(grid_loads);
    std::string extensions = header.fp64_pragma;
    bool complex_fields = false;
    for (const field_decl& f : st.decl.fields)
      complex_fields |= f.type == "cfloat_t" || f.type == "cdouble_t";
    if (complex_fields) extensions += "\n" + complex_header();
    const std::string attributes =
        v.tile ? "__attribute__((reqd_work_group_size(" + std::to_string(v.group[0]) + ", " +
                     std::to_string(v.group[1]) + ", " + std::to_string(v.group[2]) + ")))"
               : "";
    template_values values{
        {"name", st.name},
        {"grid_name", st.name + "_grid"},
        {"policy", st.policy + " (in use: march=" + std::to_string(v.march) +
                       ", run=" + std::to_string(v.run) + ", window=" + (v.window ? "1" : "0") +
                       ", tile=" + (v.tile ? "1" : "0") + ", group=" + std::to_string(v.group[0]) +
                       "x" + std::to_string(v.group[1]) + "x" + std::to_string(v.group[2]) + ")"},
        {"extensions", extensions},
        {"preamble", snippet(st.options.preamble)},
        {"march", std::to_string(v.march)},
        {"run", std::to_string(v.run)},
        {"attributes", attributes},
        {"parameters", kernel_parameters(st)},
        {"setup", automatic.setup()},
        {"step_begin", automatic.step_begin()},
        {"point", auto_point},
        {"body", automatic.body(auto_loads)},
        {"step_end", automatic.step_end()},
        {"separate_grid_kernel", simple ? "0" : "1"},
        {"grid_setup", manual.setup()},
        {"grid_point", grid_point},
        {"grid_body", manual.body(grid_loads)},
    };
    st.prog = build_template(st.ctx, header, "stencil", values, st.options.build_options);
    st.automatic = st.prog.kernel(st.name);
    st.grid = simple ? st.automatic : st.prog.kernel(st.name + "_grid");
    const std::size_t wanted = v.group[0] * v.group[1] * v.group[2];
    const std::size_t fits = fitted_group(wanted, {&st.automatic});
    if (v.tile && fits < wanted && attempt < 12) {
      // The tile's group is fixed in the source: build again for a group the kernel can run.
      shrink_group(v.group, fits);
      continue;
    }
    shrink_group(v.group, fits);
    st.auto_variant = v;
    st.grid_limit = fitted_group(info.max_work_group_size, {&st.grid});
    return;
  }
}

}  // namespace
}  // namespace detail

// ---- the kernel object ---------------------------------------------------------------------

stencil_kernel::stencil_kernel(const context& ctx, const std::string& parameters,
                               const std::string& assignments, in_place_t, stencil_options options)
    : stencil_kernel(ctx, parameters, assignments, [&] {
        options.in_place = true;
        return options;
      }()) {}

stencil_kernel::stencil_kernel(const context& ctx, const std::string& parameters,
                               const std::string& assignments, const stencil_options& options) {
  using namespace detail;
  auto st = std::make_shared<stencil_state>();
  if (!ctx) throw error("stencil_kernel: the context is empty");
  st->ctx = ctx;
  st->arguments = parameters;
  st->assignments = assignments;
  const std::string who = stencil_state::who_of(kWhat, options, "stencil");
  st->decl = parse_declarations(parameters, who);
  const std::size_t dims = st->decl.dims;
  std::string reserved;
  for (std::size_t d = 0; d < dims; ++d)
    reserved += std::string(d ? ", " : "") + counter_name(dims, d);
  // The one header check of every template, on the non-field parameters; then the fields' names.
  template_header header = st->start(ctx, kWhat, options, "stencil", st->decl.value_list, reserved);
  std::set<std::string> names;
  for (const parameter& p : st->params) names.insert(p.name);
  for (const field_decl& f : st->decl.fields) {
    bool is_reserved = f.name.rfind("clforge_", 0) == 0;
    for (std::size_t d = 0; d < dims; ++d) is_reserved |= f.name == counter_name(dims, d);
    if (is_reserved)
      throw error(st->who + ": the field name \"" + f.name + "\" is reserved (" + reserved +
                  " and names starting with clforge_)");
    if (!names.insert(f.name).second)
      throw error(st->who + ": the name \"" + f.name + "\" is declared twice");
    // fp64: double fields (and complex<double>) only on a device with it.
    const bool doubles = require_type_support(ctx.info(), f.type, st->who) || f.type == "cdouble_t";
    if (f.type == "cdouble_t")
      require_type_support(ctx.info(), "double", st->who + " (field " + f.name + ")");
    if (doubles) header.fp64_pragma = "#pragma OPENCL EXTENSION cl_khr_fp64 : enable";
  }
  if (trimmed(assignments).empty()) throw error(st->who + ": no assignments");
  st->accesses = parse_accesses(assignments, st->decl, st->who);
  check_races(st->decl, st->accesses, options.in_place, st->who);
  st->slice = parse_slice(options.slice.text(), dims, st->who);
  for (const dim_slice& s : st->slice)
    st->dynamic |=
        s.start.what == bound::kind::expression || s.stop.what == bound::kind::expression;
  st->max_item_sizes = translate_cl_errors([&] {
    const auto sizes = ctx.device().getInfo<CL_DEVICE_MAX_WORK_ITEM_SIZES>();
    std::array<std::size_t, 3> out{1, 1, 1};
    for (std::size_t d = 0; d < 3 && d < sizes.size(); ++d) out[d] = sizes[d];
    return out;
  });
  st->stamp = tuning_stamp(ctx);
  build(*st, tuned<stencil_policy>(ctx), header);
  state_ = std::move(st);
}

namespace {
// The state behind a stencil_kernel; a default-constructed one has none.
const detail::stencil_state& state_of(const std::shared_ptr<const detail::stencil_state>& p) {
  if (!p) throw error("stencil_kernel: an empty stencil_kernel (default-constructed)");
  return *p;
}
}  // namespace

const std::string& stencil_kernel::source() const {
  return state_of(state_).prog.source();
}
const std::string& stencil_kernel::name() const {
  return state_of(state_).name;
}
const std::string& stencil_kernel::policy() const {
  return state_of(state_).policy;
}
const std::string& stencil_kernel::who() const {
  return state_of(state_).who;
}
const std::vector<detail::parameter>& stencil_kernel::value_parameters() const {
  return state_of(state_).params;
}

void stencil_kernel::check_kinds(const detail::stencil_call& call) const {
  const detail::stencil_state& st = state_of(state_);
  const std::vector<bool>& declared = st.decl.is_field;
  if (call.is_field.size() != declared.size())
    throw error(st.who + ": " + std::to_string(call.is_field.size()) + " arguments for " +
                std::to_string(declared.size()) + " parameters");
  std::size_t f = 0;
  for (std::size_t k = 0; k < declared.size(); ++k) {
    if (call.is_field[k] == declared[k]) {
      f += declared[k];
      continue;
    }
    if (declared[k])
      throw error(st.who + ": argument " + std::to_string(k + 1) + " is no field; the parameter " +
                  st.decl.fields[f].name + " is a " + st.decl.fields[f].type + "[" +
                  std::to_string(st.decl.dims) + "D] field");
    throw error(st.who + ": argument " + std::to_string(k + 1) +
                " is a field where the parameters have a value");
  }
}

namespace detail {
namespace {

// The iteration space of one call, resolved against the fields.
struct space {
  std::array<long long, 3> n{1, 1, 1}, start{0, 0, 0}, stop{1, 1, 1};
  std::array<long long, 3> low{0, 0, 0}, high{0, 0, 0};  // counters visited: min, max
  std::array<std::size_t, 3> count{1, 1, 1};             // points per dimension (bounding)
  bool empty = false;
};

long long resolved(const bound& b, long long n, bool is_stop, const std::array<long long, 3>& c,
                   const std::string& where) {
  long long v = 0;
  switch (b.what) {
    case bound::kind::none:
      return is_stop ? n : 0;
    case bound::kind::constant:
      v = b.value < 0 ? b.value + n : b.value;
      break;
    case bound::kind::expression:
      v = evaluate(b, c, where);
      break;
  }
  return std::clamp(v, 0LL, n);
}

std::size_t points_of(long long start, long long stop, long long step) {
  return stop > start ? static_cast<std::size_t>((stop - start + step - 1) / step) : 0;
}

std::string field_range(const field_layout& l, std::size_t at) {
  return std::to_string(-static_cast<long long>(l.low[at])) + " to " +
         std::to_string(static_cast<long long>(l.shape[at] + l.high[at]) - 1);
}

space resolve_space(const stencil_state& st, const stencil_call& call) {
  const std::size_t dims = st.decl.dims;
  const field_layout& first = call.fields[0].layout;
  space s;
  for (std::size_t d = 0; d < dims; ++d) s.n[d] = static_cast<long long>(first.shape[3 - dims + d]);
  // The reach of every field's accesses per dimension.
  const std::size_t nf = st.decl.fields.size();
  std::vector<std::array<int, 3>> lo(nf, {0, 0, 0}), hi(nf, {0, 0, 0});
  std::vector<std::array<const access*, 3>> lo_at(nf, {nullptr, nullptr, nullptr}),
      hi_at(nf, {nullptr, nullptr, nullptr});
  for (const access& a : st.accesses)
    for (std::size_t d = 0; d < dims; ++d) {
      if (!lo_at[a.field][d] || a.offset[d] < lo[a.field][d])
        lo[a.field][d] = a.offset[d], lo_at[a.field][d] = &a;
      if (!hi_at[a.field][d] || a.offset[d] > hi[a.field][d])
        hi[a.field][d] = a.offset[d], hi_at[a.field][d] = &a;
    }
  if (st.options.slice.is_default()) {
    // The interior points whose accesses stay inside every field's allocation.
    for (std::size_t d = 0; d < dims; ++d) {
      long long start = 0, stop = s.n[d];
      for (std::size_t f = 0; f < nf; ++f) {
        if (!lo_at[f][d]) continue;
        const field_layout& l = call.fields[f].layout;
        const std::size_t at = 3 - dims + d;
        start = std::max(start, -static_cast<long long>(l.low[at]) - lo[f][d]);
        stop = std::min(stop, s.n[d] + static_cast<long long>(l.high[at]) - hi[f][d]);
      }
      s.start[d] = start;
      s.stop[d] = std::max(start, stop);
      s.count[d] = points_of(start, stop, 1);
      s.low[d] = start;
      s.high[d] = stop - 1;
      s.empty |= s.count[d] == 0;
    }
    return s;
  }
  const std::string where = st.who + ": iteration_slice \"" + st.options.slice.text() + "\"";
  // Constant bounds resolve once (the kernel takes them as arguments); bounds that depend on
  // counters are evaluated for every visited value of the counters they depend on (up to 2^26
  // evaluations), for the points' extremes and the largest count of each dimension.
  std::size_t last_dynamic = 0;
  for (std::size_t d = 0; d < dims; ++d) {
    const dim_slice& sl = st.slice[d];
    const bool dynamic =
        sl.start.what == bound::kind::expression || sl.stop.what == bound::kind::expression;
    if (dynamic) last_dynamic = d;
    s.start[d] = dynamic ? 0 : resolved(sl.start, s.n[d], false, {0, 0, 0}, where);
    s.stop[d] = dynamic ? s.n[d] : resolved(sl.stop, s.n[d], true, {0, 0, 0}, where);
    s.count[d] = 0;
  }
  std::array<bool, 3> seen{false, false, false};
  std::size_t evaluations = 0;
  std::array<long long, 3> c{0, 0, 0};
  // Dimension d at the counters c[0 .. d - 1]; then, up to the last dependent dimension, every
  // one of its points (three levels at most).
  struct walker {
    const stencil_state& st;
    space& s;
    std::array<bool, 3>& seen;
    std::array<long long, 3>& c;
    std::size_t& evaluations;
    std::size_t last_dynamic;
    const std::string& where;
    void visit(std::size_t d) {
      const dim_slice& sl = st.slice[d];
      const long long a = resolved(sl.start, s.n[d], false, c, where);
      const long long b = resolved(sl.stop, s.n[d], true, c, where);
      if (++evaluations > (std::size_t(1) << 26))
        throw error(where + ": bounds that depend on counters over more than 2^26 points");
      const std::size_t k = points_of(a, b, sl.step);
      s.count[d] = std::max(s.count[d], k);
      if (k == 0) return;
      const long long last = a + sl.step * static_cast<long long>(k - 1);
      s.low[d] = seen[d] ? std::min(s.low[d], a) : a;
      s.high[d] = seen[d] ? std::max(s.high[d], last) : last;
      seen[d] = true;
      if (d >= last_dynamic) return;
      for (long long v = a; v < b; v += sl.step) {
        c[d] = v;
        visit(d + 1);
      }
    }
  } walk{st, s, seen, c, evaluations, last_dynamic, where};
  walk.visit(0);
  for (std::size_t d = last_dynamic + 1; d < dims; ++d) walk.visit(d);
  for (std::size_t d = 0; d < dims; ++d) s.empty |= s.count[d] == 0 || !seen[d];
  if (s.empty) return s;
  // Every access from every visited point inside its field's allocation.
  for (std::size_t f = 0; f < nf; ++f)
    for (std::size_t d = 0; d < dims; ++d) {
      if (!lo_at[f][d]) continue;
      const field_layout& l = call.fields[f].layout;
      const std::size_t at = 3 - dims + d;
      const long long floor = -static_cast<long long>(l.low[at]);
      const long long ceiling = s.n[d] + static_cast<long long>(l.high[at]) - 1;
      const std::string& fname = st.decl.fields[f].name;
      const char* cn = counter_name(dims, d);
      if (s.low[d] + lo[f][d] < floor)
        throw error(st.who + ": " + lo_at[f][d]->shown + " at " + cn + " = " +
                    std::to_string(s.low[d]) + " reaches " + cn + " = " +
                    std::to_string(s.low[d] + lo[f][d]) + ", beyond the ghost layers of " + fname +
                    " (" + cn + " from " + field_range(l, at) + ")");
      if (s.high[d] + hi[f][d] > ceiling)
        throw error(st.who + ": " + hi_at[f][d]->shown + " at " + cn + " = " +
                    std::to_string(s.high[d]) + " reaches " + cn + " = " +
                    std::to_string(s.high[d] + hi[f][d]) + ", beyond the ghost layers of " + fname +
                    " (" + cn + " from " + field_range(l, at) + ")");
    }
  return s;
}

// Checks the fields of a call against the declaration and each other.
void check_fields(const stencil_state& st, const stencil_call& call) {
  const std::size_t dims = st.decl.dims;
  for (std::size_t f = 0; f < call.fields.size(); ++f) {
    const stencil_field_argument& a = call.fields[f];
    const field_decl& d = st.decl.fields[f];
    if (!a.mem) throw error(st.who + ": the field given for " + d.name + " is empty");
    if (a.layout.dims != dims || a.type != d.type)
      throw error(st.who + ": " + d.name + " is a " + d.type + "[" + std::to_string(dims) +
                  "D] field; the argument is a " + a.type + "[" + std::to_string(a.layout.dims) +
                  "D] field");
    if (a.context != st.ctx.get())
      throw error(st.who + ": the field " + d.name + " belongs to another context than the kernel");
    if (a.layout.shape != call.fields[0].layout.shape) {
      auto shown = [&](const field_layout& l) {
        std::string s;
        for (std::size_t e = 0; e < dims; ++e)
          s += (e ? " x " : "") + std::to_string(l.shape[3 - dims + e]);
        return s;
      };
      throw error(st.who + ": the fields have different shapes: " + st.decl.fields[0].name +
                  " is " + shown(call.fields[0].layout) + ", " + d.name + " " + shown(a.layout) +
                  " (a stencil's fields share one interior shape)");
    }
    for (std::size_t g = 0; g < f; ++g)
      if (call.fields[g].mem == a.mem && (d.written || st.decl.fields[g].written))
        throw error(st.who + ": " + st.decl.fields[g].name + " and " + d.name +
                    " are one field: a field written by a stencil is passed once (neighbouring "
                    "points would race; clforge::in_place covers point-wise updates of one field)");
  }
}

// Kernel arguments set from a list of raw values (the fields, the space).
struct raw_arguments {
  std::vector<std::string> values;
  template <class T>
  void add(const T& v) {
    values.emplace_back(reinterpret_cast<const char*>(&v), sizeof(T));
  }
};

raw_arguments field_arguments(const stencil_state& st, const stencil_call& call) {
  raw_arguments out;
  const std::size_t dims = st.decl.dims;
  for (const stencil_field_argument& f : call.fields) {
    out.add(f.mem);
    out.add(static_cast<cl_long>(f.layout.origin));
    for (std::size_t d = 0; d + 1 < dims; ++d)
      out.add(static_cast<cl_long>(f.layout.strides[3 - dims + d]));
  }
  return out;
}

raw_arguments space_arguments(const stencil_state& st, const space& s) {
  raw_arguments out;
  for (std::size_t d = 0; d < st.decl.dims; ++d) {
    out.add(static_cast<cl_int>(s.n[d]));
    out.add(static_cast<cl_int>(s.start[d]));
    out.add(static_cast<cl_int>(s.stop[d]));
  }
  return out;
}

}  // namespace

template <>
struct launch_argument<raw_arguments> {
  static std::size_t count(const raw_arguments& a) { return a.values.size(); }
  static cl_int set(cl_kernel k, cl_uint& index, const raw_arguments& a) {
    for (const std::string& v : a.values)
      if (cl_int code = clSetKernelArg(k, index++, v.size(), v.data()); code != CL_SUCCESS)
        return code;
    return CL_SUCCESS;
  }
};

}  // namespace detail

std::array<std::size_t, 3> stencil_kernel::threads_of(const detail::stencil_call& call) const {
  const detail::stencil_state& st = state_of(state_);
  detail::check_fields(st, call);
  const detail::space s = detail::resolve_space(st, call);
  const std::size_t dims = st.decl.dims;
  std::array<std::size_t, 3> out{1, 1, 1};
  for (std::size_t d = 0; d < dims; ++d) out[dims - 1 - d] = s.empty ? 0 : s.count[d];
  return out;
}

event stencil_kernel::run(const queue& q, const launch_grid* grid,
                          const detail::stencil_call& call) const {
  using namespace detail;
  const stencil_state& st = state_of(state_);
  if (auto retuned = st.retuned.get(st.stamp, st.ctx, [&] {
        return std::make_shared<const stencil_kernel>(st.ctx, st.arguments, st.assignments,
                                                      st.options);
      }))
    return retuned->run(q, grid, call);
  if (q.ctx().identity() != st.ctx.identity())
    throw error(st.who + ": the queue belongs to another context than the kernel");
  check_fields(st, call);
  const std::size_t dims = st.decl.dims;
  const space s = resolve_space(st, call);
  std::array<std::size_t, 3> global{1, 1, 1}, local{1, 1, 1};
  const kernel* k = &st.automatic;
  if (grid) {
    std::size_t items = 1;
    for (std::size_t d = 0; d < 3; ++d) {
      const std::size_t b = grid->block_size[d], n = grid->num_blocks[d];
      if (b == 0 || n == 0)
        throw error(st.who + ": launch_grid: block_size and num_blocks must be at least 1 (" +
                    std::string(d == 0   ? "x"
                                : d == 1 ? "y"
                                         : "z") +
                    " has " + std::to_string(b) + " x " + std::to_string(n) + ")");
      if (b > st.max_item_sizes[d])
        throw error(st.who + ": launch_grid: block_size " + std::to_string(b) + " along " +
                    (d == 0   ? "x"
                     : d == 1 ? "y"
                              : "z") +
                    " is over the device's limit of " + std::to_string(st.max_item_sizes[d]));
      if (n > std::numeric_limits<std::size_t>::max() / b)
        throw error(st.who + ": launch_grid: the grid does not fit in size_t");
      local[d] = b;
      global[d] = b * n;
      items *= b;
    }
    const std::size_t limit = std::min(st.grid_limit, q.ctx().info().max_work_group_size);
    if (items > limit)
      throw error(st.who + ": launch_grid: a block of " + std::to_string(items) +
                  " work-items is over the limit of " + std::to_string(limit) +
                  " for this kernel on " + q.ctx().info().name);
    k = &st.grid;
  } else {
    if (s.empty) return {};
    const variant& v = st.auto_variant;
    for (std::size_t d = 0; d < dims; ++d) {
      const std::size_t o = dims - 1 - d;  // OpenCL dimension
      std::size_t units = 1;
      if (d == 0 && dims > 1) units = v.march;
      if (d + 1 == dims) units = v.run;
      const std::size_t items = (s.count[d] + units - 1) / units;
      local[o] = v.group[o];
      global[o] = (items + local[o] - 1) / local[o] * local[o];
    }
  }
  if (s.empty && !grid) return {};
  order_point(q);
  const raw_arguments fields = field_arguments(st, call);
  const raw_arguments space_args = space_arguments(st, s);
  ndrange range(global[0], global[1], global[2]);
  range.with_local(local[0], local[1], local[2]);
  const event e = q.launch(*k, range, fields, *call.values, space_args);
  order_point(q);
  return e;
}

// ---- ghost layers ----------------------------------------------------------------------------

namespace detail {

event fill_ghost_layers(const queue& q, const cl::Buffer& buffer, const std::string& type,
                        std::size_t type_size, const field_layout& layout,
                        const std::array<ghost_side, 3>& low,
                        const std::array<ghost_side, 3>& high) {
  const char* who = "clforge::apply_boundaries";
  if (!buffer()) throw error(std::string(who) + ": the field is empty");
  const std::size_t first = 3 - layout.dims;
  for (std::size_t at = first; at < 3; ++at)
    if ((low[at].kind == boundary_kind::periodic) != (high[at].kind == boundary_kind::periodic))
      throw error(std::string(who) + ": periodic on one side of dimension " +
                  std::to_string(at - first) +
                  " only (a periodic dimension is periodic on both sides)");
  const context& ctx = q.ctx();
  const auto made = per_context_as<kernel>(ctx, "clforge.ghosts", type, [&] {
    std::string extensions;
    bool fp64 = require_type_support(ctx.info(), type, who);
    if (type == "cdouble_t") fp64 = require_type_support(ctx.info(), "double", who);
    if (fp64) extensions += "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n";
    if (type == "cfloat_t" || type == "cdouble_t") extensions += complex_header();
    const program p =
        build_template(weak_context(ctx), std::string(who) + " (" + type + ")",
                       {{"CLFORGE_T", type}}, {{"ghosts", {{"extensions", extensions}}}});
    return std::make_shared<kernel>(p.kernel("clforge_ghosts"));
  });
  auto kind_of = [](boundary_kind k) {
    return static_cast<cl_int>(k == boundary_kind::periodic   ? 0
                               : k == boundary_kind::constant ? 1
                                                              : 2);
  };
  event last;
  for (std::size_t at = first; at < 3; ++at) {
    const std::size_t ghosts = layout.low[at] + layout.high[at];
    if (ghosts == 0) continue;
    std::size_t cells = ghosts;
    for (std::size_t e = 0; e < 3; ++e)
      if (e != at) cells *= layout.allocation[e];
    order_point(q);
    last =
        q.launch(*made, ndrange::padded(cells).with_local(std::min<std::size_t>(cells, 64)), buffer,
                 static_cast<cl_int>(at), static_cast<cl_long>(layout.allocation[0]),
                 static_cast<cl_long>(layout.allocation[1]),
                 static_cast<cl_long>(layout.allocation[2]), static_cast<cl_long>(layout.shape[at]),
                 static_cast<cl_long>(layout.low[at]), kind_of(low[at].kind),
                 kind_of(high[at].kind), argument_bytes{low[at].value.data(), type_size},
                 argument_bytes{high[at].value.data(), type_size}, static_cast<cl_long>(cells));
  }
  order_point(q);
  return last;
}

}  // namespace detail
}  // namespace clforge

// ---- the tuner's workload: a 7-point Jacobi sweep of a float32 cube ---------------------------

namespace clforge::detail {

namespace {

struct jacobi_data {
  std::size_t side = 0;
  field<float, 3> u, out;
  std::vector<float> reference;  // the baseline's output
};

const char* const kJacobi =
    "out(0,0,0) = (u(-1,0,0) + u(1,0,0) + u(0,-1,0) + u(0,1,0) + u(0,0,-1) + u(0,0,1)) * "
    "(1.0f / 6.0f)";

class jacobi_trial final : public tuning_trial {
 public:
  jacobi_trial(std::shared_ptr<jacobi_data> data, stencil_kernel k)
      : data_(std::move(data)), kernel_(std::move(k)) {}
  commands run(const queue& q) override {
    const event e = kernel_(q, data_->u, data_->out);
    return {e, e};
  }
  std::string check(const queue& q) override {
    data_->out.fill(q, 0.0f);
    run(q);
    const std::vector<float> got = data_->out.to_host(q);
    if (data_->reference.empty()) {
      data_->reference = got;
      return "";
    }
    for (std::size_t i = 0; i < got.size(); ++i)
      if (!(std::fabs(got[i] - data_->reference[i]) <= 1e-6f))
        return "out[" + std::to_string(i) + "] = " + std::to_string(got[i]) +
               ", the baseline gave " + std::to_string(data_->reference[i]);
    return "";
  }

 private:
  std::shared_ptr<jacobi_data> data_;
  stencil_kernel kernel_;
};

class jacobi_workload final : public tuning_workload {
 public:
  jacobi_workload(const queue& q, std::size_t size)
      : tuning_workload("float32/" + size_bucket(size), sizeof(float)),
        ctx_(q.ctx()),
        data_(std::make_shared<jacobi_data>()) {
    const std::size_t side =
        std::max<std::size_t>(4, static_cast<std::size_t>(std::cbrt(static_cast<double>(size))));
    data_->side = side;
    data_->u = field<float, 3>::from_host(q, {side, side, side},
                                          tuning_floats(side * side * side, 7), ghost(1));
    data_->out = field<float, 3>(q, {side, side, side}, ghost(1));
  }
  std::unique_ptr<tuning_trial> make(const std::string& settings, const queue&) const override {
    candidate_scope scope("stencil", settings);
    stencil_options o;
    o.name = "tune_jacobi";
    return std::make_unique<jacobi_trial>(
        data_, stencil_kernel(ctx_, "float[3D] u, float[3D] out", kJacobi, o));
  }

 private:
  context ctx_;
  std::shared_ptr<jacobi_data> data_;
};

}  // namespace

std::unique_ptr<tuning_workload> stencil_policy::workload(const queue& q, std::size_t size) {
  return std::make_unique<jacobi_workload>(q, size);
}

}  // namespace clforge::detail
