#include "apps/cuzk-daemon/config.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include <toml++/toml.h>

#include "engine/units.hpp"
#include "server/listen_address.hpp"

namespace cuzk::apps {

using namespace cuzk::engine;  // the engine's options, units and kinds, which this file maps the config to
using server::check_listen_address;

namespace {

// Reads one table, remembering which keys were consumed, so that the rest can be reported.
class Section {
 public:
  Section(const toml::table* t, std::string path, std::string file, std::vector<std::string>& errors)
      : t_(t), path_(std::move(path)), file_(std::move(file)), errors_(errors) {}

  std::string where(const std::string& key) const {
    std::string full = path_.empty() ? key : path_ + "." + key;
    const toml::node* n = t_ ? t_->get(key) : nullptr;
    std::string pos;
    if (n && n->source().begin) {
      pos = ":" + std::to_string(n->source().begin.line);
    }
    return file_ + pos + ": " + full;
  }
  const toml::node* get(const std::string& key) {
    seen_.insert(key);
    return t_ ? t_->get(key) : nullptr;
  }
  void error(const std::string& key, const std::string& msg) { errors_.push_back(where(key) + ": " + msg); }
  bool has(const std::string& key) const { return t_ && t_->get(key); }

  void str(const std::string& key, std::string& out) {
    if (auto* n = get(key)) {
      if (auto v = n->value<std::string>()) out = *v;
      else error(key, "expected a string");
    }
  }
  void boolean(const std::string& key, bool& out) {
    if (auto* n = get(key)) {
      if (auto v = n->value<bool>()) out = *v;
      else error(key, "expected true or false");
    }
  }
  template <class U>
  void uint(const std::string& key, U& out, std::uint64_t lo, std::uint64_t hi) {
    if (auto* n = get(key)) {
      // the type first: toml++'s value<int64_t>() of a float outside int64's range is undefined (a
      // fuzzer's max_results = 1.0e35; regression tests/fuzz/regressions/config)
      if (!n->is_integer()) return error(key, "expected an integer");
      auto v = n->value<std::int64_t>();
      if (!v) return error(key, "expected an integer");
      if (*v < 0 || std::uint64_t(*v) < lo || std::uint64_t(*v) > hi) {
        return error(key, "must be between " + std::to_string(lo) + " and " + std::to_string(hi) + ", got " +
                              std::to_string(*v));
      }
      out = static_cast<U>(*v);
    }
  }
  void real(const std::string& key, double& out, double lo, double hi) {
    if (auto* n = get(key)) {
      std::optional<double> v;
      if (n->is_floating_point()) v = n->value<double>();
      else if (n->is_integer()) v = double(*n->value<std::int64_t>());
      if (!v) return error(key, "expected a number");
      if (*v < lo || *v > hi) return error(key, "must be between " + std::to_string(lo) + " and " + std::to_string(hi));
      out = *v;
    }
  }
  // A size: a string with a unit, or an integer number of bytes.
  void size(const std::string& key, std::uint64_t& out) {
    if (auto* n = get(key)) {
      if (n->is_integer()) {
        auto v = *n->value<std::int64_t>();
        if (v < 0) return error(key, "must not be negative");
        out = std::uint64_t(v);
      } else if (auto s = n->value<std::string>()) {
        auto r = parse_size(*s);
        if (!r) return error(key, r.error());
        out = *r;
      } else {
        error(key, "expected a size such as \"64GiB\" or a number of bytes");
      }
    }
  }
  // "auto" (is_auto set) or a size (is_auto cleared, out set); absent: both kept.
  void size_or_auto(const std::string& key, bool& is_auto, std::uint64_t& out) {
    auto* n = get(key);
    if (!n) return;
    auto str = n->value<std::string>();
    is_auto = str && *str == "auto";
    if (!is_auto) size(key, out);
  }
  void duration(const std::string& key, std::chrono::milliseconds& out) {
    if (auto* n = get(key)) {
      if (n->is_integer()) {
        auto v = *n->value<std::int64_t>();
        if (v < 0) return error(key, "must not be negative");
        // seconds -> milliseconds must not overflow: at most ~100 years
        if (v > std::int64_t(100) * 365 * 24 * 3600) return error(key, "must be at most 100 years");
        out = std::chrono::seconds(v);
      } else if (auto s = n->value<std::string>()) {
        auto r = parse_duration(*s);
        if (!r) return error(key, r.error());
        out = *r;
      } else {
        error(key, "expected a duration such as \"30s\", \"5m\" or \"1h\"");
      }
    }
  }
  void strings(const std::string& key, std::vector<std::string>& out, bool allow_single) {
    if (auto* n = get(key)) {
      if (allow_single && n->is_string()) {
        out = {*n->value<std::string>()};
        return;
      }
      auto* a = n->as_array();
      if (!a)
        return error(key, allow_single ? "expected a string or an array of strings" : "expected an array of strings");
      std::vector<std::string> v;
      for (auto& e : *a) {
        auto s = e.value<std::string>();
        if (!s) return error(key, "expected an array of strings");
        v.push_back(*s);
      }
      out = std::move(v);
    }
  }
  void uints(const std::string& key, std::vector<std::uint32_t>& out) {
    if (auto* n = get(key)) {
      auto* a = n->as_array();
      if (!a) return error(key, "expected an array of integers");
      std::vector<std::uint32_t> v;
      for (auto& e : *a) {
        auto x = e.is_integer() ? e.value<std::int64_t>() : std::nullopt;
        if (!x || *x < 0 || *x > 1024) return error(key, "expected an array of device numbers (0..1024)");
        v.push_back(std::uint32_t(*x));
      }
      out = std::move(v);
    }
  }
  // Keys the Rust daemon parsed but ignored: accepted, with a warning.
  void deprecated(const std::string& key, const std::string& why, std::vector<std::string>& warnings) {
    if (get(key)) warnings.push_back(where(key) + ": " + why);
  }
  void report_unknown(std::vector<std::string>& warnings) const {
    if (!t_) return;
    for (auto&& [k, v] : *t_) {
      std::string key(k.str());
      if (!seen_.count(key)) warnings.push_back(where(key) + ": unknown key, ignored");
    }
  }

 private:
  const toml::table* t_;
  std::string path_, file_;
  std::vector<std::string>& errors_;
  std::set<std::string> seen_;
};

}  // namespace

Result<DaemonConfig> parse_config(std::string_view text, const std::string& name) {
  toml::table root;
  try {
    root = toml::parse(text, name);
  } catch (const toml::parse_error& e) {
    const auto& b = e.source().begin;
    return Error{name + ":" + std::to_string(b.line) + ":" + std::to_string(b.column) + ": " +
                 std::string(e.description())};
  }
  DaemonConfig c;
  std::vector<std::string> errors;
  auto table = [&](const char* key) -> const toml::table* {
    const toml::node* n = root.get(key);
    if (!n) return nullptr;
    if (!n->is_table()) {
      errors.push_back(name + ": [" + key + "] must be a table");
      return nullptr;
    }
    return n->as_table();
  };
  static const std::set<std::string> sections{"daemon",    "memory",   "gpus", "backend", "scheduler",
                                              "synthesis", "pipeline", "srs",  "auth",    "logging"};
  for (auto&& [k, v] : root) {
    if (!sections.count(std::string(k.str())))
      c.warnings.push_back(name + ": unknown section [" + std::string(k.str()) + "], ignored");
  }

  {
    Section s(table("daemon"), "daemon", name, errors);
    s.strings("listen", c.listen, true);
    s.str("status_listen", c.status_listen);
    s.size("max_message_size", c.max_message_bytes);
    std::string mode = "drain";
    s.str("shutdown", mode);
    if (mode == "drain") c.shutdown_drain = true;
    else if (mode == "cancel") c.shutdown_drain = false;
    else s.error("shutdown", "expected \"drain\" or \"cancel\", got \"" + mode + "\"");
    s.duration("drain_timeout", c.drain_timeout);
    s.report_unknown(c.warnings);
  }
  {
    Section s(table("memory"), "memory", name, errors);
    s.size_or_auto("total_budget", c.budget_auto, c.total_budget);
    if (!c.budget_auto && c.total_budget == 0 && errors.empty())
      s.error("total_budget", "must be \"auto\" or a size above 0");
    s.size("safety_margin", c.safety_margin);
    s.size_or_auto("request_budget", c.request_budget_auto, c.request_budget);
    s.duration("eviction_min_idle", c.eviction_min_idle);
    s.real("partition_memory_factor", c.partition_memory_factor, 0.1, 100.0);
    s.boolean("measure_partitions", c.measure_partitions);
    s.size_or_auto("urgent_reserve", c.urgent_reserve_auto, c.urgent_reserve);
    s.deprecated("pinned_budget", "deprecated and ignored (everything shares total_budget)", c.warnings);
    s.deprecated("working_memory_budget", "deprecated and ignored (everything shares total_budget)", c.warnings);
    s.report_unknown(c.warnings);
  }
  {
    Section s(table("gpus"), "gpus", name, errors);
    s.uints("devices", c.devices);
    s.uint("gpu_threads", c.gpu_threads, 0, 4096);
    s.uint("gpu_workers_per_device", c.gpu_workers_per_device, 0, 64);
    if (c.gpu_workers_per_device == 0) c.gpu_workers_per_device = 1;  // the Rust daemon's max(1, value)
    s.str("key_residency", c.key_residency);
    if (c.key_residency != "auto" && c.key_residency != "resident" && c.key_residency != "streamed" &&
        c.key_residency != "file") {
      s.error("key_residency",
              "expected \"auto\", \"resident\", \"streamed\" or \"file\", got \"" + c.key_residency + "\"");
    }
    s.size("max_resident_key_bytes", c.max_resident_key_bytes);
    s.size("memory_limit", c.memory_limit);
    s.uint("stream_chunk_bases", c.stream_chunk_bases, 0, std::uint64_t(1) << 30);
    s.uint("h_copies", c.h_copies, 0, 4);
    s.str("urgent_lane", c.urgent_lane);
    if (c.urgent_lane != "auto" && c.urgent_lane != "gpu" && c.urgent_lane != "cpu" && c.urgent_lane != "off") {
      s.error("urgent_lane", "expected \"auto\", \"gpu\", \"cpu\" or \"off\", got \"" + c.urgent_lane + "\"");
    }
    s.uint("urgent_lane_max_domain_log2", c.urgent_lane_max_domain_log2, 1, 30);
    s.real("hang_multiple", c.hang_multiple, 0, 1000);
    if (c.hang_multiple > 0 && c.hang_multiple < 2) s.error("hang_multiple", "must be 0 (off) or at least 2");
    s.duration("hang_min", c.hang_min);
    s.duration("probe_interval", c.probe_interval);
    s.deprecated("affinity", "not implemented, ignored", c.warnings);
    s.report_unknown(c.warnings);
  }
  {
    Section s(table("backend"), "backend", name, errors);
    s.str("kind", c.backend);
    if (c.backend != "auto" && c.backend != "cpu" && c.backend != "cuda") {
      s.error("kind", "expected \"auto\", \"cpu\" or \"cuda\", got \"" + c.backend + "\"");
    }
    s.report_unknown(c.warnings);
  }
  {
    Section s(table("scheduler"), "scheduler", name, errors);
    s.uint("max_batch_size", c.max_batch_size, 0, 64);
    if (c.max_batch_size > 1) {
      c.warnings.push_back(s.where("max_batch_size") +
                           ": cross-sector batching is not implemented; partitions of different jobs already share "
                           "the pipeline (treated as 1)");
    }
    // The Rust daemon's window for filling a batch: checked (a Rust config stays valid), then dropped,
    // since nothing here waits to batch (max_batch_size above).
    std::uint64_t batch_wait_ms = 0;
    s.uint("max_batch_wait_ms", batch_wait_ms, 0, 3600000);
    s.deprecated("sort_by_type", "unused (priority decides the order), ignored", c.warnings);
    s.uint("max_active_jobs", c.max_active_jobs, 1, 1000000);
    s.duration("result_ttl", c.result_ttl);
    s.uint("max_results", c.max_results, 1, 10000000);
    s.str("urgent_priority", c.urgent_priority);
    for (auto& ch : c.urgent_priority) ch = char(std::tolower(static_cast<unsigned char>(ch)));
    if (c.urgent_priority != "high" && c.urgent_priority != "critical" && c.urgent_priority != "off") {
      s.error("urgent_priority", "expected \"high\", \"critical\" or \"off\", got \"" + c.urgent_priority + "\"");
    }
    if (s.has("cancel_abandoned")) {
      c.cancel_abandoned.emplace();
      s.strings("cancel_abandoned", *c.cancel_abandoned, /*allow_single=*/false);
    }
    s.report_unknown(c.warnings);
  }
  {
    Section s(table("synthesis"), "synthesis", name, errors);
    s.uint("threads", c.synthesis_threads, 0, 4096);
    s.deprecated("partition_workers", "deprecated and ignored: the memory budget bounds parallel partitions",
                 c.warnings);
    s.report_unknown(c.warnings);
  }
  {
    Section s(table("pipeline"), "pipeline", name, errors);
    s.boolean("enabled", c.pipeline_enabled);
    if (!c.pipeline_enabled) {
      c.warnings.push_back(s.where("enabled") + ": monolithic mode does not exist here; the pipeline is always used");
    }
    s.deprecated("synthesis_lookahead", "unused (the memory budget decides how far synthesis runs ahead), ignored",
                 c.warnings);
    s.uint("synthesis_concurrency", c.synthesis_concurrency, 0, 256);
    s.uint("max_parallel_synthesis", c.max_parallel_synthesis, 0, 4096);
    s.deprecated("slot_size", "not implemented, ignored", c.warnings);
    s.uint("max_gpu_queue_depth", c.max_gpu_queue_depth, 0, 4096);
    s.uint("finalizer_threads", c.finalizer_threads, 1, 256);
    s.uint("urgent_synthesis_workers", c.urgent_synthesis_workers, 0, 64);
    s.boolean("self_verify", c.self_verify);
    s.boolean("timeline", c.timeline);
    s.report_unknown(c.warnings);
  }
  {
    const toml::table* t = table("srs");
    Section s(t, "srs", name, errors);
    s.str("param_cache", c.param_cache);
    s.strings("preload", c.preload, false);
    s.boolean("allow_witness_paths", c.allow_witness_paths);
    if (auto* n = s.get("circuits")) {
      auto* arr = n->as_array();
      if (!arr) {
        s.error("circuits", "expected an array of tables ([[srs.circuits]] with id and zkey)");
      } else {
        for (std::size_t i = 0; i < arr->size(); ++i) {
          auto* ct = arr->get(i)->as_table();
          std::string p = "srs.circuits[" + std::to_string(i) + "]";
          if (!ct) {
            errors.push_back(name + ": " + p + ": expected a table with id and zkey");
            continue;
          }
          Section cs(ct, p, name, errors);
          CircuitConfig cc;
          cs.str("id", cc.id);
          cs.str("zkey", cc.zkey);
          cs.boolean("preload", cc.preload);
          if (cc.id.empty()) cs.error("id", "missing or empty");
          if (cc.zkey.empty()) cs.error("zkey", "missing or empty");
          for (auto& other : c.circuits)
            if (other.id == cc.id && !cc.id.empty()) cs.error("id", "duplicate circuit id \"" + cc.id + "\"");
          cs.report_unknown(c.warnings);
          c.circuits.push_back(std::move(cc));
        }
      }
    }
    s.report_unknown(c.warnings);
  }
  {
    Section s(table("auth"), "auth", name, errors);
    s.str("token_file", c.token_file);
    s.str("admin_token_file", c.admin_token_file);
    s.str("tls_cert", c.tls_cert);
    s.str("tls_key", c.tls_key);
    if (c.tls_cert.empty() != c.tls_key.empty()) {
      s.error(c.tls_cert.empty() ? "tls_key" : "tls_cert",
              "tls_cert and tls_key go together (PEM certificate and its key)");
    }
    s.boolean("insecure", c.insecure);
    if (auto* n = s.get("unix_socket_mode")) {
      auto v = n->value<std::string>();
      const bool octal = v && !v->empty() && v->size() <= 4 &&
                         std::all_of(v->begin(), v->end(), [](char ch) { return ch >= '0' && ch <= '7'; });
      if (!n->is_string() || !octal)
        s.error("unix_socket_mode", "expected an octal mode as a string, such as \"0660\"");
      else c.unix_socket_mode = std::uint32_t(std::stoul(*v, nullptr, 8));
      if (octal && c.unix_socket_mode > 0777) s.error("unix_socket_mode", "must be at most \"0777\"");
    }
    if (auto* n = s.get("unix_socket_group")) {
      if (n->is_integer() && *n->value<std::int64_t>() >= 0)
        c.unix_socket_group = std::to_string(*n->value<std::int64_t>());
      else if (auto g = n->value<std::string>(); g && n->is_string()) c.unix_socket_group = *g;
      else s.error("unix_socket_group", "expected a group name or number");
    }
    s.uint("max_jobs_per_client", c.max_jobs_per_client, 0, 10000000);
    s.strings("allowed_dirs", c.allowed_dirs, false);
    for (const auto& d : c.allowed_dirs) {
      if (d.empty() || d[0] != '/') s.error("allowed_dirs", "\"" + d + "\" is not an absolute path");
    }
    s.report_unknown(c.warnings);
  }
  {
    Section s(table("logging"), "logging", name, errors);
    s.str("level", c.log_level);
    static const std::set<std::string> levels{"trace", "debug", "info", "warn", "error", "off"};
    if (!levels.count(c.log_level)) s.error("level", "expected trace, debug, info, warn, error or off");
    s.str("format", c.log_format);
    if (c.log_format != "text" && c.log_format != "json") s.error("format", "expected \"text\" or \"json\"");
    s.report_unknown(c.warnings);
  }

  if (c.listen.empty()) errors.push_back(name + ": daemon.listen: at least one address is needed");
  for (auto& a : c.listen) {
    if (auto st = check_listen_address(a); !st) errors.push_back(name + ": daemon.listen: " + st.error());
  }
  if (!c.status_listen.empty() && c.status_listen.rfind("unix:", 0) != 0) {
    if (auto st = check_listen_address(c.status_listen); !st)
      errors.push_back(name + ": daemon.status_listen: " + st.error());
  } else if (!c.status_listen.empty()) {
    errors.push_back(name + ": daemon.status_listen: the HTTP status server listens on TCP only (host:port)");
  }
  if (c.max_message_bytes < (std::uint64_t(256) << 20)) {
    errors.push_back(name + ": daemon.max_message_size: must be at least 256MiB (Curio sends up to ~200 MB)");
  }
  if (c.max_message_bytes > (std::uint64_t(2) << 30) - 1) {
    errors.push_back(name + ": daemon.max_message_size: gRPC limits messages to under 2GiB");
  }
  if (!errors.empty()) {
    std::string all;
    for (auto& e : errors) all += (all.empty() ? "" : "\n") + e;
    return Error{all};
  }
  return c;
}

Result<DaemonConfig> load_config(const std::string& path, bool* missing) {
  if (missing) *missing = false;
  std::ifstream f(path, std::ios::binary);
  if (!f) {
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) {
      if (missing) *missing = true;
      return DaemonConfig{};
    }
    return Error{path + ": cannot be read"};
  }
  std::ostringstream ss;
  ss << f.rdbuf();
  return parse_config(ss.str(), path);
}

Result<BackendKind> resolve_backend(const std::string& kind, const BackendAvailability& avail) {
  if (kind == "cpu") return BackendKind::kCpu;
  if (kind == "auto") return avail.cuda_built && avail.cuda_devices > 0 ? BackendKind::kCuda : BackendKind::kCpu;
  if (kind != "cuda") return Error{"backend.kind: expected \"auto\", \"cpu\" or \"cuda\", got \"" + kind + "\""};
  if (!avail.cuda_built)
    return Error{"backend.kind = \"cuda\": this build has no CUDA backend; use \"cpu\" or \"auto\""};
  if (avail.cuda_devices == 0) return Error{"backend.kind = \"cuda\": no CUDA device found; use \"cpu\" or \"auto\""};
  return BackendKind::kCuda;
}

Result<EngineOptions> engine_options_from(const DaemonConfig& c, unsigned hardware_threads,
                                          const BackendAvailability& avail) {
  EngineOptions o;
  if (hardware_threads == 0) hardware_threads = 1;
  if (c.budget_auto) {
    std::uint64_t mem = system_memory_bytes();
    if (mem == 0) mem = std::uint64_t(256) << 30;  // the Rust daemon's assumption
    if (mem <= c.safety_margin) {
      return Error{"memory.total_budget = \"auto\": this machine has " + format_bytes(mem) +
                   ", not more than memory.safety_margin (" + format_bytes(c.safety_margin) + "); set total_budget"};
    }
    o.memory_budget_bytes = mem - c.safety_margin;
  } else {
    o.memory_budget_bytes = c.total_budget;
  }
  o.request_budget_bytes = c.request_budget_auto
                               ? std::min<std::uint64_t>(o.memory_budget_bytes / 8, std::uint64_t(4) << 30)
                               : c.request_budget;
  if (o.request_budget_bytes > o.memory_budget_bytes / 2) {
    return Error{"memory.request_budget (" + format_bytes(o.request_budget_bytes) + ") is more than half the budget (" +
                 format_bytes(o.memory_budget_bytes) + ")"};
  }
  o.srs_min_idle = c.eviction_min_idle;
  o.param_cache = c.param_cache;
  o.prepare_workers = std::max<std::uint32_t>(2, c.synthesis_concurrency);
  std::uint32_t synth = c.max_parallel_synthesis ? c.max_parallel_synthesis : 18;
  o.synthesis_workers = std::max<std::uint32_t>(1, std::min<std::uint32_t>(synth, hardware_threads));
  o.devices = c.devices;
  o.workers_per_device = std::max<std::uint32_t>(1, c.gpu_workers_per_device);
  o.backend_queue_depth = c.max_gpu_queue_depth;
  o.finalizer_threads = c.finalizer_threads;
  o.max_active_jobs = c.max_active_jobs;
  o.self_verify = c.self_verify;
  o.partition_memory_factor = c.partition_memory_factor;
  o.measure_partition_memory = c.measure_partitions;
  o.result_ttl = c.result_ttl;
  o.max_results = c.max_results;
  o.allow_witness_paths = c.allow_witness_paths;
  auto backend = resolve_backend(c.backend, avail);
  if (!backend) return Error{backend.error()};
  o.backend = *backend;
  const bool cuda = o.backend == BackendKind::kCuda;
  if (o.devices.empty()) {
    if (cuda && !avail.usable_devices.empty()) {
      o.devices = avail.usable_devices;
    } else if (cuda) {
      for (std::uint32_t d = 0; d < avail.cuda_devices; ++d) o.devices.push_back(d);
    } else {
      o.devices = {0};  // the CPU backend's one device slot
    }
  }
  // Preparers for N devices (docs/daemon.md, "Several GPUs"): a 32 GiB PoRep's prepare (C1 parse and
  // vanilla checks, one core, ~2.7 s on the H200 host) is a quarter of one device's time per proof
  // (10.7 s), so N devices keep N/4 preparers busy; N/2 leaves them twice that (device_scaling_bench).
  o.prepare_workers = std::max<std::uint32_t>(o.prepare_workers, (std::uint32_t(o.devices.size()) + 1) / 2);
  // Urgent work and its lane (docs/daemon.md, "Deadlines under load").
  if (c.urgent_priority == "off") o.urgent_priority.reset();
  else o.urgent_priority = c.urgent_priority == "critical" ? Priority::kCritical : Priority::kHigh;
  o.urgent_synthesis_workers = c.urgent_synthesis_workers;
  if (!c.urgent_reserve_auto) {
    if (c.urgent_reserve >= o.memory_budget_bytes) {
      return Error{"memory.urgent_reserve: " + format_bytes(c.urgent_reserve) + " is not below the memory budget (" +
                   format_bytes(o.memory_budget_bytes) + ")"};
    }
    o.urgent_memory_reserve = c.urgent_reserve;
  }
  // gpus.urgent_lane was checked at parse: auto, gpu, cpu or off
  LaneKind lane = c.urgent_lane == "gpu"   ? LaneKind::kGpu
                  : c.urgent_lane == "cpu" ? LaneKind::kCpu
                  : c.urgent_lane == "off" ? LaneKind::kOff
                                           : (cuda ? LaneKind::kGpu : LaneKind::kCpu);
  if (lane == LaneKind::kGpu && !cuda) {
    return Error{std::string("gpus.urgent_lane = \"gpu\" needs the CUDA backend (backend.kind resolved to \"") +
                 backend_name(o.backend) + "\"); use \"cpu\", \"off\" or \"auto\""};
  }
  if (!o.urgent_priority) lane = LaneKind::kOff;  // nothing is urgent, so nothing takes the lane
  o.lane_max_domain_log2 = c.urgent_lane_max_domain_log2;
  o.lane = lane;
  if (lane == LaneKind::kGpu) o.lane_devices = o.devices;  // one lane per device, beside its main backend
  if (lane == LaneKind::kCpu) o.lane_devices = {0};
  o.lane_only_when_devices_busy = lane == LaneKind::kCpu && cuda;
  // Hung devices: GPUs only (the CPU backend's one slot has nothing to fail over to).
  if (cuda) {
    o.hang_multiple = c.hang_multiple;
    o.hang_min = c.hang_min;
    o.probe_after = c.probe_interval;
  } else {
    o.hang_multiple = 0;
    o.probe_after = std::chrono::milliseconds(0);
  }
  if (cuda) {
    for (std::uint32_t d : o.devices) {
      if (d >= avail.cuda_devices) {
        return Error{"gpus.devices: device " + std::to_string(d) + " does not exist (" +
                     std::to_string(avail.cuda_devices) + " CUDA device(s) present)"};
      }
    }
  }
  return o;
}

}  // namespace cuzk::apps
