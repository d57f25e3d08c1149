// bench/harness.hpp: the argument, timing and table harness that every bench program uses.
//
// Owns three small pieces, all inline:
//   * Cli: `--name value` options, flags, choices and positional arguments, each with its default,
//     a range check where one is given, a usage line (`--help`), and a one-line error naming the
//     option; every program also gets `--format text|md|csv|json` (`--csv`, `--json` for short).
//   * measure(): a repeat-and-keep-the-best timer (wall and CPU time, best and median, warm-up
//     runs, a stop rule by run count, total time and slow runs) and rate_per_cpu_second() for
//     "operations per CPU-second" figures; speedup() for a ratio against a baseline column.
//   * Table: rows printed as they come (long runs show progress; a forked child can print its own
//     row), as aligned text, a Markdown table, CSV, or JSON lines (one object per row).
//
// Why our own header and not Google Benchmark (installed on the dev VM): the GPU bench programs in
// bench/gpu/ are built by nvcc on the GPU host, which has nothing beyond the CUDA toolkit, and they
// are meant to adopt this header too. So it needs C++17, the standard library and the POSIX clocks
// (clock_gettime) only, and no project header.
//
// Benchmarks are programs, not tests: nothing here asserts, and no bench program runs in ctest.
#pragma once

#include <time.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <initializer_list>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace cuzk::bench {

// ---------------------------------------------------------------------------------------------
// Clocks

using Clock = std::chrono::steady_clock;

class Stopwatch {
 public:
  Stopwatch() : t0_(Clock::now()) {}
  void reset() { t0_ = Clock::now(); }
  double ms() const { return std::chrono::duration<double, std::milli>(Clock::now() - t0_).count(); }
  double s() const { return ms() * 1e-3; }

 private:
  Clock::time_point t0_;
};

// Process CPU time counts every thread (cpu / threads is the wall time a run would take without other
// load); thread CPU time is that of the caller only (for single-threaded work on a shared machine).
enum class CpuClock { kProcess, kThread };

inline double cpu_ms(CpuClock clock = CpuClock::kProcess) {
  timespec ts{};
  clock_gettime(clock == CpuClock::kThread ? CLOCK_THREAD_CPUTIME_ID : CLOCK_PROCESS_CPUTIME_ID, &ts);
  return double(ts.tv_sec) * 1e3 + double(ts.tv_nsec) * 1e-6;
}

// The first three fields of /proc/loadavg ("?" elsewhere): printed at the start of a run, since the
// dev VM is shared and its load explains wall times.
inline std::string load_average() {
  std::ifstream f("/proc/loadavg");
  std::string a, b, c;
  if (!(f >> a >> b >> c)) return "?";
  return a + " " + b + " " + c;
}

// ---------------------------------------------------------------------------------------------
// Timing

struct Repeat {
  int warmup = 0;                                                // untimed runs first
  int min_runs = 1;                                              // timed runs at least ...
  int max_runs = 1;                                              // ... and at most
  double min_total_ms = 0;                                       // repeat while the timed runs total less
  double slow_run_ms = std::numeric_limits<double>::infinity();  // stop after a run slower than this
  CpuClock cpu = CpuClock::kProcess;

  // Exactly n timed runs.
  static Repeat best_of(int n, CpuClock cpu = CpuClock::kProcess) {
    Repeat r;
    r.min_runs = r.max_runs = std::max(1, n);
    r.cpu = cpu;
    return r;
  }
  // At least min_runs, then more (up to max_runs) until the timed runs total `total_ms`.
  static Repeat for_about(double total_ms, int min_runs, int max_runs) {
    Repeat r;
    r.min_runs = min_runs;
    r.max_runs = max_runs;
    r.min_total_ms = total_ms;
    return r;
  }
};

struct Timing {
  double best_ms = 0;         // fastest run, wall
  double median_ms = 0;       // median run, wall
  double cpu_at_best_ms = 0;  // CPU time of the fastest run
  double best_cpu_ms = 0;     // least CPU time of any run
  int runs = 0;
  double per_second(double items) const { return items / best_ms * 1e3; }
};

template <class F>
Timing measure(const Repeat& rep, F&& f) {
  for (int i = 0; i < rep.warmup; ++i) f();
  std::vector<double> walls;
  Timing t;
  t.best_ms = t.best_cpu_ms = std::numeric_limits<double>::infinity();
  double total = 0;
  while (int(walls.size()) < rep.max_runs && (int(walls.size()) < rep.min_runs || total < rep.min_total_ms)) {
    const double c0 = cpu_ms(rep.cpu);
    const Stopwatch sw;
    f();
    const double ms = sw.ms(), cpu = cpu_ms(rep.cpu) - c0;
    if (ms < t.best_ms) {
      t.best_ms = ms;
      t.cpu_at_best_ms = cpu;
    }
    t.best_cpu_ms = std::min(t.best_cpu_ms, cpu);
    walls.push_back(ms);
    total += ms;
    if (ms > rep.slow_run_ms) break;
  }
  std::sort(walls.begin(), walls.end());
  const std::size_t n = walls.size();
  t.median_ms = n % 2 ? walls[n / 2] : 0.5 * (walls[n / 2 - 1] + walls[n / 2]);
  t.runs = int(n);
  return t;
}

// Operations per CPU-second: one untimed call (constants, caches), then calls of f (each performs
// `ops_per_call` operations) until `min_cpu_s` of CPU time have passed.
template <class F>
double rate_per_cpu_second(std::size_t ops_per_call, double min_cpu_s, CpuClock clock, F&& f) {
  f();
  std::size_t ops = 0;
  const double t0 = cpu_ms(clock);
  double elapsed_s = 0;
  do {
    f();
    ops += ops_per_call;
    elapsed_s = (cpu_ms(clock) - t0) * 1e-3;
  } while (elapsed_s < min_cpu_s);
  return double(ops) / elapsed_s;
}

// How many times faster `x` is than `baseline` (both times), or, for rates, pass them swapped.
inline double speedup(double baseline, double x) { return x > 0 ? baseline / x : std::nan(""); }

// ---------------------------------------------------------------------------------------------
// Output formats and tables

enum class Format { kText, kMarkdown, kCsv, kJson };

inline bool parse_format(const std::string& s, Format& out) {
  if (s == "text") out = Format::kText;
  else if (s == "md" || s == "markdown") out = Format::kMarkdown;
  else if (s == "csv") out = Format::kCsv;
  else if (s == "json") out = Format::kJson;
  else return false;
  return true;
}

namespace detail {
inline std::string vformat(const char* fmt, std::va_list ap) {
  std::va_list copy;
  va_copy(copy, ap);
  const int n = std::vsnprintf(nullptr, 0, fmt, copy);
  va_end(copy);
  std::string s(n > 0 ? std::size_t(n) : 0, '\0');
  if (n > 0) std::vsnprintf(s.data(), s.size() + 1, fmt, ap);
  return s;
}

inline std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += char(c);
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += char(c);
    }
  }
  return out + "\"";
}

inline std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}
}  // namespace detail

// printf-style text, for cells and notes.
inline std::string strf(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
inline std::string strf(const char* fmt, ...) {
  std::va_list ap;
  va_start(ap, fmt);
  std::string s = detail::vformat(fmt, ap);
  va_end(ap);
  return s;
}

// A line of context ("# threads=2, load 0.5 ..."): on stdout, except in JSON mode, where it goes to
// stderr so that stdout stays one JSON object per line.
// A step a benchmark cannot go on without (a Result or Status): on failure, "<what> failed: <error>"
// on stderr and exit 1.
template <class R>
void must(const R& r, const char* what) {
  if (!r.ok()) {
    std::fprintf(stderr, "%s failed: %s\n", what, r.error().c_str());
    std::exit(1);
  }
}

inline void note(Format f, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
inline void note(Format f, const char* fmt, ...) {
  std::va_list ap;
  va_start(ap, fmt);
  const std::string s = detail::vformat(fmt, ap);
  va_end(ap);
  std::FILE* out = f == Format::kJson ? stderr : stdout;
  std::fprintf(out, "# %s\n", s.c_str());
  std::fflush(out);
}

struct Column {
  std::string name;
  int precision = 1;  // digits after the point ('f') or significant digits ('g') of a double cell
  char style = 'f';   // 'f' or 'g'
  int width = 0;      // minimum width in text and Markdown (0: 9 for numbers; never below the name's length)
  bool left = false;  // left-aligned (text labels)
};

// A cell: text, an integer, a double (formatted by its column), or empty ("-", JSON null).
class Cell {
 public:
  Cell() = default;
  Cell(const char* s) : kind_(Kind::kText), text_(s) {}
  Cell(std::string s) : kind_(Kind::kText), text_(std::move(s)) {}
  template <class T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, int> = 0>
  Cell(T x) : kind_(Kind::kInteger), text_(std::to_string(x)) {}
  Cell(double x) : kind_(Kind::kDouble), number_(x) {}

  std::string text(const Column& c) const {
    switch (kind_) {
      case Kind::kText:
      case Kind::kInteger: return text_;
      case Kind::kDouble:
        if (!std::isfinite(number_)) return "-";
        return c.style == 'g' ? strf("%.*g", c.precision, number_) : strf("%.*f", c.precision, number_);
      case Kind::kEmpty: break;
    }
    return "-";
  }
  // Numbers as JSON numbers (doubles as printed, so JSON and text agree), text as JSON strings.
  std::string json(const Column& c) const {
    if (kind_ == Kind::kEmpty || (kind_ == Kind::kDouble && !std::isfinite(number_))) return "null";
    return kind_ == Kind::kText ? detail::json_string(text_) : text(c);
  }

 private:
  enum class Kind { kEmpty, kText, kInteger, kDouble };
  Kind kind_ = Kind::kEmpty;
  std::string text_;
  double number_ = 0;
};

class Table {
 public:
  Table(Format format, std::string title, std::vector<Column> columns)
      : format_(format), title_(std::move(title)), cols_(std::move(columns)) {
    for (auto& c : cols_) c.width = std::max<int>(c.width ? c.width : (c.left ? 0 : 9), int(c.name.size()));
  }

  // Printed by the first row() if not called before (call it before forking workers that print rows).
  void header() {
    if (printed_header_) return;
    printed_header_ = true;
    switch (format_) {
      case Format::kText:
      case Format::kMarkdown:
        if (!title_.empty()) std::printf("\n%s\n", title_.c_str());
        if (format_ == Format::kMarkdown) std::printf("\n");
        print_aligned([&](std::size_t i) { return cols_[i].name; });
        if (format_ == Format::kMarkdown) {
          std::string line = "|";
          for (const auto& c : cols_)
            line += (c.left ? ":" : "-") + std::string(std::size_t(c.width), '-') + (c.left ? "-|" : ":|");
          std::printf("%s\n", line.c_str());
        }
        break;
      case Format::kCsv: {
        if (!title_.empty()) std::printf("# %s\n", title_.c_str());
        std::string line;
        for (std::size_t i = 0; i < cols_.size(); ++i) line += (i ? "," : "") + detail::csv_field(cols_[i].name);
        std::printf("%s\n", line.c_str());
        break;
      }
      case Format::kJson: break;
    }
    std::fflush(stdout);
  }

  void row(const std::vector<Cell>& cells) {
    header();
    auto cell = [&](std::size_t i) { return i < cells.size() ? cells[i] : Cell(); };
    switch (format_) {
      case Format::kText:
      case Format::kMarkdown: print_aligned([&](std::size_t i) { return cell(i).text(cols_[i]); }); break;
      case Format::kCsv: {
        std::string line;
        for (std::size_t i = 0; i < cols_.size(); ++i)
          line += (i ? "," : "") + detail::csv_field(cell(i).text(cols_[i]));
        std::printf("%s\n", line.c_str());
        break;
      }
      case Format::kJson: {
        std::string line = "{";
        if (!title_.empty()) line += "\"table\":" + detail::json_string(title_) + ",";
        for (std::size_t i = 0; i < cols_.size(); ++i)
          line += (i ? "," : "") + detail::json_string(cols_[i].name) + ":" + cell(i).json(cols_[i]);
        std::printf("%s}\n", line.c_str());
        break;
      }
    }
    std::fflush(stdout);
  }
  void row(std::initializer_list<Cell> cells) { row(std::vector<Cell>(cells)); }
  Format format() const { return format_; }

 private:
  template <class Text>
  void print_aligned(Text&& text) {
    const bool md = format_ == Format::kMarkdown;
    std::string line = md ? "|" : "";
    for (std::size_t i = 0; i < cols_.size(); ++i) {
      const std::string s = text(i);
      const std::size_t w = std::size_t(cols_[i].width), pad = s.size() < w ? w - s.size() : 0;
      if (md) line += " ";
      else if (i) line += "  ";
      if (cols_[i].left) line += s + std::string(pad, ' ');
      else line += std::string(pad, ' ') + s;
      if (md) line += " |";
    }
    while (!md && !line.empty() && line.back() == ' ') line.pop_back();
    std::printf("%s\n", line.c_str());
  }

  Format format_;
  std::string title_;
  std::vector<Column> cols_;
  bool printed_header_ = false;
};

// ---------------------------------------------------------------------------------------------
// Command line

class Cli {
 public:
  Cli(std::string program, std::string summary, Format default_format = Format::kText)
      : program_(std::move(program)), summary_(std::move(summary)), format_(default_format) {}

  // `--name VALUE` into an integer, a double or a string; [lo, hi] checked when given.
  template <class T>
  Cli& option(const char* name, T& target, const char* metavar, const char* help) {
    return add_value(name, target, metavar, help, false, 0, 0);
  }
  template <class T>
  Cli& option(const char* name, T& target, const char* metavar, const char* help, double lo, double hi) {
    return add_value(name, target, metavar, help, true, lo, hi);
  }
  // `--name` alone sets target to `value` (true for --sweep, false for --no-g2).
  Cli& flag(const char* name, bool& target, const char* help, bool value = true) {
    Opt o{name, "", help + default_note(target ? "on" : "off", !value)};
    o.apply = [&target, value](const char*) -> std::string {
      target = value;
      return {};
    };
    opts_.push_back(std::move(o));
    return *this;
  }
  // `--name VALUE` with VALUE one of `allowed`.
  Cli& choice(const char* name, std::string& target, std::vector<std::string> allowed, const char* help) {
    std::string meta;
    for (const auto& a : allowed) meta += (meta.empty() ? "" : "|") + a;
    Opt o{name, meta, help + default_note(target, false)};
    o.takes_value = true;
    o.apply = [&target, allowed](const char* v) -> std::string {
      if (std::find(allowed.begin(), allowed.end(), v) == allowed.end())
        return strf("'%s' is not one of the choices", v);
      target = v;
      return {};
    };
    opts_.push_back(std::move(o));
    return *this;
  }
  // Arguments that are not options, in order.
  Cli& positional(const char* metavar, std::vector<std::string>& target, const char* help, bool required) {
    positional_ = &target;
    positional_meta_ = metavar;
    positional_help_ = help;
    positional_required_ = required;
    return *this;
  }

  // False on an error (a one-line message on stderr, exit_code() 2) or on --help (usage on stdout,
  // exit_code() 0): `if (!cli.parse(argc, argv)) return cli.exit_code();`
  bool parse(int argc, char** argv) {
    for (int i = 1; i < argc; ++i) {
      const std::string a = argv[i];
      if (a == "--help" || a == "-h") {
        usage(stdout);
        exit_code_ = 0;
        return false;
      }
      if (a == "--csv" || a == "--json") {
        format_ = a == "--csv" ? Format::kCsv : Format::kJson;
        continue;
      }
      if (a == "--format") {
        if (i + 1 >= argc || !parse_format(argv[i + 1], format_)) return fail("--format needs text, md, csv or json");
        ++i;
        continue;
      }
      const Opt* o = find(a);
      if (!o) {
        if (a.size() > 1 && a[0] == '-') return fail(strf("unknown option %s", a.c_str()));
        if (!positional_) return fail(strf("unexpected argument '%s'", a.c_str()));
        positional_->push_back(a);
        continue;
      }
      const char* value = nullptr;
      if (o->takes_value) {
        if (i + 1 >= argc) return fail(strf("%s needs a value (%s)", a.c_str(), o->metavar.c_str()));
        value = argv[++i];
      }
      if (std::string err = o->apply(value); !err.empty()) return fail(a + ": " + err);
    }
    if (positional_ && positional_required_ && positional_->empty())
      return fail(strf("needs at least one %s", positional_meta_.c_str()));
    return true;
  }

  int exit_code() const { return exit_code_; }
  Format format() const { return format_; }

  void usage(std::FILE* out) const {
    std::string line = "usage: " + program_;
    for (const auto& o : opts_) line += " [" + o.name + (o.takes_value ? " " + o.metavar : "") + "]";
    line += " [--format text|md|csv|json]";
    if (positional_) line += positional_required_ ? " " + positional_meta_ : " [" + positional_meta_ + "]";
    std::fprintf(out, "%s\n%s\n", line.c_str(), summary_.c_str());
    for (const auto& o : opts_) {
      const std::string left = o.name + (o.takes_value ? " " + o.metavar : "");
      std::fprintf(out, "  %-26s %s\n", left.c_str(), o.help.c_str());
    }
    std::fprintf(out, "  %-26s %s\n", "--format F, --csv, --json",
                 "output as aligned text, Markdown, CSV or JSON lines");
    if (positional_) std::fprintf(out, "  %-26s %s\n", positional_meta_.c_str(), positional_help_.c_str());
  }

 private:
  struct Opt {
    std::string name, metavar, help;
    bool takes_value = false;
    std::function<std::string(const char*)> apply{};
  };

  static std::string default_note(const std::string& d, bool hide) {
    return hide || d.empty() ? "" : " (default " + d + ")";
  }
  template <class T>
  static std::string show(const T& v) {
    if constexpr (std::is_same_v<T, std::string>) return v;
    else if constexpr (std::is_floating_point_v<T>) return strf("%g", double(v));
    else return std::to_string(v);
  }

  template <class T>
  Cli& add_value(const char* name, T& target, const char* metavar, const char* help, bool ranged, double lo,
                 double hi) {
    static_assert(std::is_arithmetic_v<T> || std::is_same_v<T, std::string>, "option of an unsupported type");
    std::string h = help;
    if (ranged) h += strf(" [%g, %g]", lo, hi);
    Opt o{name, metavar, h + default_note(show(target), false)};
    o.takes_value = true;
    o.apply = [&target, ranged, lo, hi](const char* v) -> std::string {
      T x{};
      if constexpr (std::is_same_v<T, std::string>) {
        x = v;
      } else if constexpr (std::is_integral_v<T>) {
        const char* end = v + std::strlen(v);
        if (std::is_unsigned_v<T> && *v == '-') return strf("'%s' is not a non-negative integer", v);
        auto [p, ec] = std::from_chars(v, end, x);
        if (ec != std::errc() || p != end) return strf("'%s' is not an integer", v);
      } else {
        char* end = nullptr;
        const double d = std::strtod(v, &end);
        if (end == v || *end) return strf("'%s' is not a number", v);
        x = T(d);
      }
      if constexpr (std::is_arithmetic_v<T>) {
        if (ranged && (double(x) < lo || double(x) > hi)) return strf("%s is outside [%g, %g]", v, lo, hi);
      }
      target = x;
      return {};
    };
    opts_.push_back(std::move(o));
    return *this;
  }

  const Opt* find(const std::string& name) const {
    for (const auto& o : opts_)
      if (o.name == name) return &o;
    return nullptr;
  }
  bool fail(const std::string& msg) {
    std::fprintf(stderr, "%s: %s (--help lists the options)\n", program_.c_str(), msg.c_str());
    exit_code_ = 2;
    return false;
  }

  std::string program_, summary_;
  Format format_;
  std::vector<Opt> opts_;
  std::vector<std::string>* positional_ = nullptr;
  std::string positional_meta_, positional_help_;
  bool positional_required_ = false;
  int exit_code_ = 2;
};

}  // namespace cuzk::bench
