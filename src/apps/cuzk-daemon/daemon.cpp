// The proving daemon (apps/cuzk-daemon/daemon.hpp) as small named steps: the command line, the config
// (file, then flags), logging, access control, the math tuning, the devices' probe and the plan
// (plan.hpp: backend, devices, lane, kinds; pure and unit-tested), the backends, the engine, proving
// keys from the config, gRPC on every listen address, HTTP status, then READY (stdout line and
// sd_notify). SIGTERM / SIGINT: stop accepting jobs, drain (or cancel, per daemon.shutdown) within
// daemon.drain_timeout, then stop the servers and exit 0. A second signal cancels what is left.
#include "apps/cuzk-daemon/daemon.hpp"

#include <signal.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <optional>
#include <sstream>
#include <thread>
#include <tuple>

#include <spdlog/spdlog.h>

#include "apps/common/cli_parse.hpp"
#include "apps/common/cpu_tuning.hpp"
#include "apps/common/device_backends.hpp"
#include "apps/common/filecoin_env.hpp"
#include "apps/common/gpu_tuning.hpp"
#include "apps/common/input_file.hpp"
#include "apps/common/logging.hpp"
#include "apps/cuzk-daemon/config.hpp"
#include "apps/cuzk-daemon/plan.hpp"
#include "engine/engine.hpp"
#include "engine/units.hpp"
#include "server/grpc_server.hpp"
#include "server/http_status.hpp"
#include "server/listen_address.hpp"
#include "server/status_render.hpp"

#if CUZK_HAVE_SYSTEMD
#include <systemd/sd-daemon.h>
#endif

namespace {

using namespace cuzk;

std::string g_prog = "cuzk-daemon";

int fail(const std::string& msg) {
  std::fprintf(stderr, "%s: %s\n", g_prog.c_str(), msg.c_str());
  return 2;
}

// systemd's notification socket (Type=notify): READY=1 after the keys are loaded and the servers
// listen, STATUS= lines while starting and draining, STOPPING=1 at the first signal. A no-op when
// the daemon is not run by systemd (no $NOTIFY_SOCKET) or the build has no libsystemd.
void notify(const std::string& state) {
#if CUZK_HAVE_SYSTEMD
  sd_notify(0, state.c_str());
#else
  (void)state;
#endif
}

// Takes SIGTERM / SIGINT while the daemon starts (its thread polls sigtimedwait every 100 ms): the
// first one logs what was under way and ends the process with exit 0. stop() (or the destructor,
// on a start-up error) hands the signals back before the serving loop waits for them.
class StartupSignals {
 public:
  explicit StartupSignals(const sigset_t& sigs) : sigs_(sigs), thread_([this] { run(); }) {}
  ~StartupSignals() { stop(); }
  void stop() {
    running_ = false;
    if (thread_.joinable()) thread_.join();
  }

 private:
  void run() {
    const timespec tick{0, 100'000'000};
    while (running_.load()) {
      const int s = sigtimedwait(&sigs_, nullptr, &tick);
      if (s != SIGTERM && s != SIGINT) continue;
      spdlog::warn("received {} while starting (before serving): stopping now; nothing was accepted",
                   s == SIGTERM ? "SIGTERM" : "SIGINT");
      notify("STOPPING=1");
      spdlog::shutdown();  // flushes the log
      std::fflush(nullptr);
      std::_Exit(0);
    }
  }
  sigset_t sigs_;
  std::atomic<bool> running_{true};
  std::thread thread_;
};

Result<std::string> read_pem(const std::string& key, const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return Error{"auth." + key + ": " + path + ": cannot be read"};
  std::ostringstream ss;
  ss << f.rdbuf();
  if (ss.str().find("-----BEGIN ") == std::string::npos) return Error{"auth." + key + ": " + path + ": not a PEM file"};
  return ss.str();
}

// [auth] into the server's options: the token files and TLS files are read here, once, at start.
cuzk::Status auth_options(const apps::DaemonConfig& cfg, server::ServerOptions& o) {
  for (auto [key, path, out] : {std::tuple{"token_file", &cfg.token_file, &o.auth.client_token},
                                std::tuple{"admin_token_file", &cfg.admin_token_file, &o.auth.admin_token}}) {
    if (path->empty()) continue;
    std::string warning;
    auto t = server::read_token_file(*path, &warning);
    if (!t) return Error{std::string("auth.") + key + ": " + t.error()};
    if (!warning.empty()) spdlog::warn("auth.{}: {}", key, warning);
    *out = std::move(*t);
  }
  o.auth.insecure = cfg.insecure;
  o.auth.allowed_dirs = cfg.allowed_dirs;
  if (!cfg.tls_cert.empty()) {
    auto cert = read_pem("tls_cert", cfg.tls_cert);
    if (!cert) return Error{cert.error()};
    auto key = read_pem("tls_key", cfg.tls_key);
    if (!key) return Error{key.error()};
    o.tls_cert_pem = std::move(*cert);
    o.tls_key_pem = std::move(*key);
  }
  o.unix_socket_mode = cfg.unix_socket_mode;
  o.unix_socket_group = cfg.unix_socket_group;
  o.max_jobs_per_client = cfg.max_jobs_per_client;
  return cuzk::ok_status();
}

}  // namespace

namespace cuzk::apps {
namespace {

// The daemon's own flags; each overrides its config key.
struct Flags {
  std::string config_path = "/data/zk/cuzk.toml";
  std::vector<std::string> listen;
  std::string status_listen, log_level;
  bool check_only = false;
};

// The command line, or the exit status CLI11 asks for (--help, --version, a usage error).
std::optional<int> parse_flags(int argc, char** argv, const std::string& prog, Flags& f) {
  CLI::App app{prog + ": Groth16 proving daemon for Filecoin (cuzk.v1.ProvingEngine over gRPC)", prog};
  app.add_option("-c,--config", f.config_path, "TOML config file (defaults are used if it does not exist)")
      ->capture_default_str()
      ->check(CLI::Validator(
          [](std::string& p) {
            struct stat st {};
            return ::stat(p.c_str(), &st) != 0 && errno == ENOENT ? std::string() : apps::input_file_problem(p);
          },
          "FILE"));
  app.add_option("-l,--listen", f.listen,
                 "gRPC address, repeatable: unix:///path or host:port (overrides daemon.listen)");
  app.add_option("--status-listen", f.status_listen,
                 "HTTP /status and /metrics address host:port (overrides daemon.status_listen)");
  app.add_option("--log-level", f.log_level, "trace, debug, info, warn, error or off (overrides logging.level)");
  app.add_flag("--check-config", f.check_only, "validate the config, print the effective settings and exit");
  app.set_version_flag("--version", prog + " " CUZK_VERSION_STRING);
  return parse_command_line(app, argc, argv, prog);
}

// The config file (the defaults when it does not exist: *missing), then the flags over it.
Result<DaemonConfig> effective_config(const Flags& f, bool* missing) {
  auto cfg = load_config(f.config_path, missing);
  if (!cfg) return cfg;
  if (!f.listen.empty()) {
    for (const auto& l : f.listen) {
      if (auto st = server::check_listen_address(l); !st) return Error{"--listen: " + st.error()};
    }
    cfg->listen = f.listen;
  }
  if (!f.status_listen.empty()) cfg->status_listen = f.status_listen;
  if (!f.log_level.empty()) {
    static const char* levels[] = {"trace", "debug", "info", "warn", "error", "off"};
    if (std::find(std::begin(levels), std::end(levels), f.log_level) == std::end(levels)) {
      return Error{"--log-level: expected trace, debug, info, warn, error or off"};
    }
    cfg->log_level = f.log_level;
  }
  return cfg;
}

// RUST_LOG (CUZK_LOG its synonym) wins over --log-level and logging.level (apps/common/logging.hpp).
Status start_logging(const DaemonConfig& cfg, const std::string& prog, const Flags& f, bool missing) {
  const char* rust_log = std::getenv("RUST_LOG");
  const char* cuzk_log = std::getenv("CUZK_LOG");
  const std::string log_filter = rust_log && *rust_log ? rust_log : cuzk_log ? cuzk_log : "";
  if (auto st = apps::setup_logging({cfg.log_level, cfg.log_format, log_filter, "daemon"}); !st)
    return Error{(rust_log && *rust_log ? "RUST_LOG: " : !log_filter.empty() ? "CUZK_LOG: " : "") + st.error()};
  if (prog == "cuzk") {
    spdlog::info(
        "cuzk: running the proving daemon (the Rust cuzk's command line; `cuzk --help` lists the tool's subcommands)");
  }
  server::route_grpc_logs_to_spdlog();
  if (missing) spdlog::warn("config file {} not found; using the defaults", f.config_path);
  else spdlog::info("config: {}", f.config_path);
  for (const auto& w : cfg.warnings) spdlog::warn("{}", w);
  return ok_status();
}

// Access control before anything slow: token and TLS files read, and every listener checked (a TCP
// listener without a token refuses to start unless auth.insecure).
Result<server::ServerOptions> server_options(const DaemonConfig& cfg) {
  server::ServerOptions o;
  o.listen = cfg.listen;
  o.max_message_bytes = cfg.max_message_bytes;
  if (auto st = auth_options(cfg, o); !st) return st.failure();
  if (auto st = server::check_listeners(o); !st) return st.failure();
  return o;
}

// The math layers' tuning: the environment first, then the config's thread count (synthesis.threads,
// else gpus.gpu_threads, the Rust daemon's name for the prover's host pool) where it sets one.
Status apply_cpu_tuning(const DaemonConfig& cfg) {
  auto tuning = apps::cpu_tuning_from_env([](const char* n) { return std::getenv(n); });
  if (!tuning) return tuning.failure();
  const std::uint32_t cfg_threads = cfg.synthesis_threads ? cfg.synthesis_threads : cfg.gpu_threads;
  if (cfg_threads > 0) tuning->threads = cfg_threads;
  apps::apply(*tuning);
  for (const auto& v : tuning->non_default) spdlog::info("tuning: {} (from the environment)", v);
  if (cfg_threads > 0) spdlog::info("tuning: {} math threads (from the config)", cfg_threads);
  return ok_status();
}

// The devices (each one's name, capability and memory, and whether this binary can prove on it) and
// the plan made from them and the config: a device it cannot use is left out with the reason; with
// none left, the CPU backend serves.
Result<DaemonPlan> probe_and_plan(const DaemonConfig& cfg, BackendProbe& probe) {
  probe = apps::probe_backends();
  if (probe.cuda_built) {
    spdlog::info("CUDA build for {}; {} device(s) present", probe.architectures, probe.cuda_devices);
    for (const auto& d : probe.devices) {
      if (d.usable) spdlog::info("{}", apps::describe(d));
      else spdlog::warn("{}", apps::describe(d));
    }
  }
  // The Filecoin libraries' environment (FIL_PROOFS_PARAMETER_CACHE, CUZK_SHAPE_CACHE), read once.
  auto fil_env = apps::filecoin_env_from([](const char* n) { return std::getenv(n); });
  if (!fil_env) return fil_env.failure();
  for (const auto& v : fil_env->non_default) spdlog::info("environment: {}", v);
  auto plan =
      plan_daemon(cfg, probe, {std::thread::hardware_concurrency(), fil_env->param_cache, fil_env->shape_cache});
  if (plan) {
    for (const auto& w : plan->warnings) spdlog::warn("{}", w);
  }
  return plan;
}

// The backends every worker proves on (the engine's executor) with the GPU backend's tuning
// (CUZK_MSM_*, CUZK_NTT_*, CUZK_GPU_*), read and checked here, once.
Status make_backends(const DaemonConfig& cfg, engine::EngineOptions& opts) {
  auto gpu_env = apps::gpu_tuning_from_env([](const char* n) { return std::getenv(n); });
  if (!gpu_env) return gpu_env.failure();
  for (const auto& v : gpu_env->non_default) spdlog::info("tuning: {} (from the environment)", v);
  auto backends = apps::DeviceBackends::create(
      opts.backend,
      {cfg.key_residency, cfg.max_resident_key_bytes, cfg.stream_chunk_bases, cfg.h_copies, cfg.memory_limit}, *gpu_env,
      opts.lane == engine::LaneKind::kGpu, [](const std::string& note) { spdlog::warn("{}", note); });
  if (!backends) return backends.failure();
  // The devices' copies of each key are kept by the SrsManager (one per device) and dropped with the key.
  opts.executor = *backends;
  if (cfg.timeline) {
    // The Rust daemon's raw TIMELINE lines on stderr; with JSON logs, one JSON line each (msg = the line).
    if (cfg.log_format == "json") {
      opts.timeline_sink = [](const std::string& line) { spdlog::info("{}", line); };
    } else {
      opts.timeline_sink = [](const std::string& line) { std::fprintf(stderr, "%s\n", line.c_str()); };
    }
  }
  return ok_status();
}

// A device taken out of service is logged by the engine; with none left the health check says
// NOT_SERVING (every proof would fail) and systemd's status line says why.
struct HealthHook {
  std::mutex mu;
  server::GrpcServer* grpc = nullptr;
  bool draining = false;  // NOT_SERVING for good: a device coming back does not change it
};

void hook_health(engine::EngineOptions& opts, const std::shared_ptr<HealthHook>& health) {
  opts.on_device_out = [health](std::uint32_t, const std::string& fault, std::uint32_t left) {
    if (left > 0) return;
    std::lock_guard<std::mutex> g(health->mu);
    if (health->grpc) health->grpc->set_serving(false);
    notify("STATUS=no GPU left in service (last: " + fault +
           "); every proof fails until one comes back (gpus.probe_interval)");
  };
  opts.on_device_back = [health](std::uint32_t ordinal, std::uint32_t in_service) {
    std::lock_guard<std::mutex> g(health->mu);
    if (health->grpc && !health->draining) health->grpc->set_serving(true);
    notify("STATUS=GPU " + std::to_string(ordinal) + " back in service; " + std::to_string(in_service) + " in service");
  };
}

void log_engine(const DaemonConfig& cfg, const BackendProbe& probe, const DaemonPlan& plan) {
  const engine::EngineOptions& opts = plan.engine;
  if (opts.backend == engine::BackendKind::kCuda) {
    std::string devices;
    for (auto x : opts.devices) devices += (devices.empty() ? "" : ",") + std::to_string(x);
    spdlog::info(
        "CUDA backend: {} device(s) present ({}); serving device(s) {} with one shared backend each; "
        "proving keys {}{}{}",
        probe.cuda_devices, probe.device_name, devices, cfg.key_residency,
        cfg.key_residency == "auto" && cfg.max_resident_key_bytes
            ? " (streamed above " + engine::format_bytes(cfg.max_resident_key_bytes) + ")"
            : std::string(cfg.key_residency == "auto" ? " (streamed when they do not fit)" : ""),
        cfg.memory_limit ? "; each card used up to gpus.memory_limit = " + engine::format_bytes(cfg.memory_limit)
                         : std::string());
  } else if (probe.cuda_built) {
    spdlog::info("CPU backend ({} CUDA device(s) present, backend.kind = {})", probe.cuda_devices, cfg.backend);
  }
  spdlog::info(
      "engine: backend {}, memory budget {}, {} preparers, {} synthesis workers, {} device(s) x {} backend "
      "workers, {} finalizers, self-verify {}",
      engine::backend_name(opts.backend), engine::format_bytes(opts.memory_budget_bytes), opts.prepare_workers,
      opts.synthesis_workers, opts.devices.size(), opts.workers_per_device, opts.finalizer_threads,
      opts.self_verify ? "on" : "off");
  spdlog::info("deadlines: {}; {}", plan.urgent_line, plan.abandoned_line);
}

// srs.circuits registered, then every preloaded key loaded (with its devices' copies) before READY.
// A key that fails to load is a warning: the daemon serves the others.
Status load_keys(engine::Engine& eng, const DaemonConfig& cfg) {
  for (const auto& c : cfg.circuits) {
    if (auto st = eng.srs().register_zkey(c.id, c.zkey); !st) return Error{"srs.circuits: " + c.id + ": " + st.error()};
    spdlog::info("circuit {} registered: {}", c.id, c.zkey);
  }
  std::vector<std::string> preload = cfg.preload;
  for (const auto& c : cfg.circuits)
    if (c.preload) preload.push_back(c.id);
  // Every key is loaded first, then their copies are placed by one plan across them (deadline-bound
  // keys first: SrsManager::preload_planned, engine/key_tiers.hpp).
  for (const auto& id : preload) {
    auto path = eng.srs().key_path(id);
    std::error_code ec;
    const auto size = path ? std::filesystem::file_size(*path, ec) : 0;
    spdlog::info("preloading {}: {} ({})", id, path ? *path : path.error(),
                 path && !ec ? engine::format_bytes(size) : std::string("file not found"));
  }
  if (preload.empty()) return ok_status();
  notify("STATUS=loading " + std::to_string(preload.size()) + " proving key(s)");
  apps::StillRunning watch("preloading " + std::to_string(preload.size()) + " key(s)");  // a line every 10 s
  for (const auto& [id, r] : eng.srs().preload_planned(preload)) {
    if (!r) {
      spdlog::warn("preload {}: {}", id, r.error());
      continue;
    }
    spdlog::info("preloaded {} in {} ms", id, r->load_ms);
  }
  return ok_status();
}

// The devices as the status outputs show them: name and capability from the start-up check, free
// memory read again at each request. Empty on the CPU backend (the outputs then say "cpu").
server::DeviceProvider device_provider(const engine::EngineOptions& opts, const BackendProbe& probe) {
  if (opts.backend != engine::BackendKind::kCuda) return {};
  std::vector<server::DeviceInfo> known;
  for (std::uint32_t d : opts.devices) {
    if (d >= probe.devices.size()) continue;
    const auto& g = probe.devices[d];
    known.push_back({g.ordinal, g.name, g.total_bytes, g.free_bytes, g.cc_major, g.cc_minor});
  }
  return [known] {
    auto now = known;
    for (auto& d : now) {
      std::uint64_t free_b = 0, total_b = 0;
      apps::device_memory(d.ordinal, &free_b, &total_b);
      if (total_b) d.free_bytes = free_b;
    }
    return now;
  };
}

// After the first signal: no new jobs, drain (or cancel) within daemon.drain_timeout; a second
// signal while draining cancels what is left. Then the servers stop and the engine shuts down.
void drain_and_stop(engine::Engine& eng, const DaemonConfig& cfg, server::GrpcServer& grpc,
                    server::HttpStatusServer* http, HealthHook& health, sigset_t& sigs, int sig) {
  spdlog::info("received {}: no new jobs; {}", sig == SIGTERM ? "SIGTERM" : "SIGINT",
               cfg.shutdown_drain ? "draining running jobs" : "cancelling running jobs");
  notify(std::string("STOPPING=1\nSTATUS=") +
         (cfg.shutdown_drain ? "draining running jobs" : "cancelling running jobs"));
  {
    std::lock_guard<std::mutex> g(health.mu);
    health.draining = true;
    grpc.set_serving(false);  // grpc.health.v1: NOT_SERVING while draining
  }
  eng.stop_accepting();
  std::atomic<bool> drained{false};
  std::thread second([&] {
    int s2 = 0;
    sigwait(&sigs, &s2);
    if (!drained.load()) {
      spdlog::warn("second signal: cancelling running jobs");
      eng.cancel_all("the daemon is shutting down");
    }
  });
  if (cfg.shutdown_drain) {
    if (!eng.drain(cfg.drain_timeout)) {
      spdlog::warn("drain timed out after {} ms; cancelling what is left", cfg.drain_timeout.count());
      eng.cancel_all("the daemon is shutting down (drain timed out)");
    }
  } else {
    eng.cancel_all("the daemon is shutting down");
  }
  eng.drain(std::chrono::seconds(30));
  drained = true;
  // Callers waiting in Prove/AwaitProof now have their results; give them a moment to receive them.
  grpc.shutdown(std::chrono::seconds(2));
  if (http) http->stop();
  eng.shutdown();
  auto s = eng.status();
  spdlog::info("stopped: {} completed, {} failed, {} cancelled", s.completed, s.failed, s.cancelled);
  pthread_kill(second.native_handle(), SIGTERM);  // wake the second-signal waiter
  second.join();
}

}  // namespace

int run_daemon(int argc, char** argv, const std::string& prog) {
  g_prog = prog;
  // Signals are taken synchronously by sigwait below; every thread started from here inherits the mask.
  sigset_t sigs;
  sigemptyset(&sigs);
  sigaddset(&sigs, SIGTERM);
  sigaddset(&sigs, SIGINT);
  pthread_sigmask(SIG_BLOCK, &sigs, nullptr);
  signal(SIGPIPE, SIG_IGN);
  // Under a file-size limit (ulimit -f, LimitFSIZE=) a write past it fails with EFBIG instead of
  // killing the daemon: the shape cache is then "not written", with the reason in the log.
  signal(SIGXFSZ, SIG_IGN);

  Flags flags;
  if (auto rc = parse_flags(argc, argv, prog, flags)) return *rc;
  bool missing = false;
  auto cfg = effective_config(flags, &missing);
  if (!cfg) return fail(cfg.error());
  if (auto st = start_logging(*cfg, prog, flags, missing); !st) return fail(st.error());
  auto sopts = server_options(*cfg);
  if (!sopts) return fail(sopts.error());
  if (auto st = apply_cpu_tuning(*cfg); !st) return fail(st.error());
  BackendProbe probe;
  auto plan = probe_and_plan(*cfg, probe);
  if (!plan) return fail(plan.error());
  if (auto st = make_backends(*cfg, plan->engine); !st) return fail(st.error());
  if (flags.check_only) {
    std::printf("%s\n", plan->summary().c_str());
    return 0;
  }
  log_engine(*cfg, probe, *plan);
  auto health = std::make_shared<HealthHook>();
  hook_health(plan->engine, health);
  engine::Engine eng(plan->engine);
  {
    // SIGTERM / SIGINT before the daemon serves (a slow or stuck key load): nothing is accepted yet,
    // so there is nothing to drain; it stops at once, exit 0. From the end of this block a signal
    // waits (blocked) for the serving loop's sigwait, which drains and removes the sockets.
    StartupSignals startup_signals(sigs);
    if (auto st = load_keys(eng, *cfg); !st) return fail(st.error());
  }

  const server::DeviceProvider devices = device_provider(plan->engine, probe);
  sopts->devices = devices;
  // gRPC may hold the requests' slice plus one largest message while it receives (issue 41 item 4).
  if (plan->engine.request_budget_bytes)
    sopts->memory_quota_bytes = plan->engine.request_budget_bytes + cfg->max_message_bytes;
  auto grpc = server::GrpcServer::start(eng, *sopts);
  if (!grpc) return fail(grpc.error());
  {
    std::lock_guard<std::mutex> g(health->mu);
    health->grpc = grpc->get();
    // A device may have gone out of service already (a key's preload failed on it).
    const auto devs = eng.status().devices;
    if (!devs.empty() && std::none_of(devs.begin(), devs.end(), [](const auto& d) { return d.in_service; })) {
      (*grpc)->set_serving(false);
    }
  }
  // Before the server goes: the hook must not reach it afterwards.
  struct Unhook {
    std::shared_ptr<HealthHook> h;
    ~Unhook() {
      std::lock_guard<std::mutex> g(h->mu);
      h->grpc = nullptr;
    }
  } unhook{health};
  std::unique_ptr<server::HttpStatusServer> http;
  if (!cfg->status_listen.empty()) {
    auto list = [devices] { return devices ? devices() : std::vector<server::DeviceInfo>{}; };
    auto h = server::HttpStatusServer::start(
        cfg->status_listen, {[&eng, list] { return server::status_json(eng.status(), eng.kinds(), list()); },
                             [&eng, list] { return server::prometheus_text(eng.status(), eng.kinds(), list()); }});
    if (!h) return fail(h.error());
    http = std::move(*h);
  }
  std::string eps;
  for (const auto& e : (*grpc)->endpoints()) eps += (eps.empty() ? "" : ",") + e;
  spdlog::info("serving cuzk.v1.ProvingEngine on {}{}", eps, http ? ", HTTP status on " + http->endpoint() : "");
  std::printf("READY grpc=%s http=%s\n", eps.c_str(), http ? http->endpoint().c_str() : "-");
  std::fflush(stdout);
  notify("READY=1\nSTATUS=serving cuzk.v1.ProvingEngine on " + eps);

  int sig = 0;
  sigwait(&sigs, &sig);
  drain_and_stop(eng, *cfg, **grpc, http.get(), *health, sigs, sig);
  return 0;
}

}  // namespace cuzk::apps
