// SPDX-License-Identifier: MIT
// End-to-end ingest throughput: several sender processes push pre-encoded
// full batches (8192 events of a realistic training loop, BatchEncoder
// output moved forward in time in place) as fast as ZeroMQ takes them, with
// blocking sends so nothing is dropped. Per transport (ipc, tcp), side by
// side in one run:
//   bare    a bare ZeroMQ PULL process receiving the same frames with the
//           daemon's socket options (RCVHWM, MAXMSGSIZE) and no decoding;
//   daemon  a real stallwatchd (release build, default settings) absorbing
//           them: events/s from go until the daemon received the last frame
//           (the job's last_seen_ns, read once /api/v1/status counts every
//           event: exact whatever the tick), checked for zero loss
//           (events and frames received = sent, no invalid frame, no lost
//           batch), with the CPU time of its two ingest threads
//           (ingest-receive: ZeroMQ receive, validate, decode; ingest-apply:
//           the engine) from /proc.
// Transport "curve" is tcp with ZeroMQ CURVE (the daemon's --curve endpoint,
// its key pair in a state directory the bench writes; each sender a CURVE
// client with its own key pair; the bare receiver a CURVE server): with
// "tcp" in the same run, the line "curve / tcp" compares the daemon's CPU
// per event and events/s of the two.
// Prints figures, asserts nothing, ends with one JSON line; its
// <transport>_daemon_vs_bare is the median over rounds of each daemon run's
// rate over the bare run's just before it.
//
//   bench_e2e_ingest [--senders 4] [--ranks-per-sender 8] [--frames-per-sender 1000]
//                    [--events-per-frame 8192] [--rounds 1] [--transports ipc,tcp,curve]

#include <fcntl.h>
#include <stallwatch/protocol.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zmq.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "daemon_process.h"
#include "frame_template.h"
#include "proc_stats.h"
#include "sender_fleet.h"

namespace stallwatch::bench {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

constexpr std::int64_t kFrameSpanNs = 100'000'000;  // simulated time per frame

struct Flags {
  int senders = 4;
  int ranks_per_sender = 8;
  std::uint64_t frames_per_sender = 1000;
  std::size_t events_per_frame = 8192;
  int rounds = 1;
  std::vector<std::string> transports{"ipc", "tcp", "curve"};
};

// The collector's CURVE key pair for the "curve" transport (Z85).
struct ServerKeys {
  std::string public_key;
  std::string secret_key;
};

ServerKeys& server_keys() {
  static ServerKeys keys = [] {
    char public_key[41] = {};
    char secret_key[41] = {};
    zmq_curve_keypair(public_key, secret_key);
    return ServerKeys{public_key, secret_key};
  }();
  return keys;
}

// Makes `socket` a CURVE client of server_keys() with a fresh key pair of its own.
void make_curve_client(void* socket) {
  char public_key[41] = {};
  char secret_key[41] = {};
  zmq_curve_keypair(public_key, secret_key);
  zmq_setsockopt(socket, ZMQ_CURVE_SERVERKEY, server_keys().public_key.c_str(), 40);
  zmq_setsockopt(socket, ZMQ_CURVE_PUBLICKEY, public_key, 40);
  zmq_setsockopt(socket, ZMQ_CURVE_SECRETKEY, secret_key, 40);
}

struct RunFigures {
  double seconds = 0;
  std::uint64_t events = 0;
  std::uint64_t frames = 0;
  double events_per_s = 0;
  double receiver_cpu_seconds = 0;        // bare: whole process; daemon: whole process
  double receive_thread_cpu_seconds = 0;  // ingest-receive
  double apply_thread_cpu_seconds = 0;    // ingest-apply
  double apply_thread_wait_seconds = 0;   // runnable, waiting for a CPU
  double ingest_cpu_seconds() const {
    return receive_thread_cpu_seconds + apply_thread_cpu_seconds;
  }
  double zmq_io_cpu_seconds = 0;
  double sender_cpu_seconds = 0;
  bool zero_loss = false;
  std::string loss_detail;
};

// The receiving process's CPU per event, in ns.
double cpu_per_event(const RunFigures& r) {
  return r.events > 0 ? r.receiver_cpu_seconds * 1e9 / static_cast<double>(r.events) : 0;
}

bool parse_flags(int argc, char** argv, Flags& f) {
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string key = argv[i];
    const std::string value = argv[i + 1];
    if (key == "--senders") {
      f.senders = std::stoi(value);
    } else if (key == "--ranks-per-sender") {
      f.ranks_per_sender = std::stoi(value);
    } else if (key == "--frames-per-sender") {
      f.frames_per_sender = std::stoull(value);
    } else if (key == "--events-per-frame") {
      f.events_per_frame = std::stoul(value);
    } else if (key == "--rounds") {
      f.rounds = std::stoi(value);
    } else if (key == "--transports") {
      f.transports.clear();
      for (std::size_t a = 0; a <= value.size();) {
        const std::size_t b = std::min(value.find(',', a), value.size());
        f.transports.push_back(value.substr(a, b - a));
        a = b + 1;
      }
    } else {
      return false;
    }
  }
  return argc % 2 == 1 && f.senders > 0 && f.ranks_per_sender > 0 && f.frames_per_sender > 0;
}

// One sender process: its ranks' templates, then blocking sends of every frame.
SenderReport send_frames(const Flags& f, int index, const std::string& endpoint, bool curve,
                         const std::function<void()>& gate) {
  std::vector<FrameTemplate> templates;
  const std::int64_t start = wall_now_ns() - 10'000'000'000;
  for (int r = 0; r < f.ranks_per_sender; ++r) {
    const SimulatedRank rank{"ingest-bench", index * f.ranks_per_sender + r,
                             100'000 + index * 1000 + r * 10,
                             "bench-sender-" + std::to_string(index)};
    templates.emplace_back(rank, f.events_per_frame, start, kFrameSpanNs);
  }
  void* context = zmq_ctx_new();
  void* socket = zmq_socket(context, ZMQ_PUSH);
  const int hwm = 16;
  const int linger = -1;  // deliver everything before closing
  zmq_setsockopt(socket, ZMQ_SNDHWM, &hwm, sizeof hwm);
  zmq_setsockopt(socket, ZMQ_LINGER, &linger, sizeof linger);
  if (curve) make_curve_client(socket);
  zmq_connect(socket, endpoint.c_str());
  gate();
  SenderReport report;
  for (std::uint64_t i = 0; i < f.frames_per_sender; ++i) {
    FrameTemplate& t = templates[i % templates.size()];
    if (i >= templates.size()) t.advance(kFrameSpanNs);
    const auto bytes = t.bytes();
    if (zmq_send(socket, bytes.data(), bytes.size(), 0) < 0) {
      ++report.frames_failed;
      continue;
    }
    ++report.frames_sent;
    report.events_sent += t.event_count();
  }
  zmq_close(socket);
  zmq_ctx_term(context);
  report.done_mono_ns = mono_now_ns();
  return report;
}

// The bare receiver process: the daemon's socket options, no decoding.
SenderReport receive_bare(const std::string& endpoint, bool curve, std::uint64_t frames,
                          std::size_t events_per_frame, const std::function<void()>& gate) {
  void* context = zmq_ctx_new();
  void* socket = zmq_socket(context, ZMQ_PULL);
  const int hwm = 100;
  const std::int64_t max_size = wire::kMaxFrameBytes;
  const int timeout_ms = 60'000;
  zmq_setsockopt(socket, ZMQ_RCVHWM, &hwm, sizeof hwm);
  zmq_setsockopt(socket, ZMQ_MAXMSGSIZE, &max_size, sizeof max_size);
  zmq_setsockopt(socket, ZMQ_RCVTIMEO, &timeout_ms, sizeof timeout_ms);
  if (curve) {
    const int server = 1;
    zmq_setsockopt(socket, ZMQ_CURVE_SERVER, &server, sizeof server);
    zmq_setsockopt(socket, ZMQ_CURVE_SECRETKEY, server_keys().secret_key.c_str(), 40);
  }
  SenderReport report;
  if (zmq_bind(socket, endpoint.c_str()) != 0) {
    std::fprintf(stderr, "bare receiver: cannot bind %s: %s\n", endpoint.c_str(),
                 zmq_strerror(zmq_errno()));
    gate();
    return report;
  }
  gate();
  zmq_msg_t msg;
  zmq_msg_init(&msg);
  std::uint64_t bytes = 0;
  while (report.frames_sent < frames) {
    if (zmq_msg_recv(&msg, socket, 0) < 0) break;
    bytes += zmq_msg_size(&msg);
    ++report.frames_sent;
    report.events_sent += events_per_frame;
  }
  report.done_mono_ns = mono_now_ns();
  report.frames_failed = bytes;  // carried back as the byte count
  zmq_msg_close(&msg);
  zmq_close(socket);
  zmq_ctx_term(context);
  return report;
}

void add_sender_figures(const std::vector<SenderReport>& reports, RunFigures& out,
                        std::uint64_t& frames_sent, std::uint64_t& events_sent) {
  for (const SenderReport& r : reports) {
    frames_sent += r.frames_sent;
    events_sent += r.events_sent;
    out.sender_cpu_seconds += r.cpu_seconds;
  }
}

RunFigures run_bare(const Flags& f, const std::string& transport) {
  RunFigures out;
  test::TempDir dir;
  const std::string endpoint = transport == "ipc"
                                   ? "ipc://" + dir.path() + "/bare.sock"
                                   : "tcp://127.0.0.1:" + std::to_string(test::free_tcp_port());
  const std::uint64_t frames = f.frames_per_sender * static_cast<std::uint64_t>(f.senders);
  SenderFleet receiver;
  SenderFleet senders;
  const bool curve = transport == "curve";
  if (!receiver.start(1,
                      [&](int, const std::function<void()>& gate) {
                        return receive_bare(endpoint, transport == "curve", frames,
                                            f.events_per_frame, gate);
                      }) ||
      !receiver.wait_ready(30s)) {
    out.loss_detail = "bare receiver did not start";
    return out;
  }
  receiver.go();
  if (!senders.start(f.senders,
                     [&](int index, const std::function<void()>& gate) {
                       return send_frames(f, index, endpoint, curve, gate);
                     }) ||
      !senders.wait_ready(120s)) {
    out.loss_detail = "senders did not start";
    return out;
  }
  const std::int64_t go = senders.go();
  std::uint64_t frames_sent = 0;
  std::uint64_t events_sent = 0;
  add_sender_figures(senders.collect(600s), out, frames_sent, events_sent);
  const SenderReport got = receiver.collect(120s).front();
  out.seconds = static_cast<double>(got.done_mono_ns - go) / 1e9;
  out.frames = got.frames_sent;
  out.events = got.events_sent;
  out.events_per_s = static_cast<double>(out.events) / out.seconds;
  out.receiver_cpu_seconds = got.cpu_seconds;
  out.zero_loss = got.frames_sent == frames_sent && frames_sent == frames;
  if (!out.zero_loss) {
    out.loss_detail = "received " + std::to_string(got.frames_sent) + " of " +
                      std::to_string(frames_sent) + " frames";
  }
  return out;
}

RunFigures run_daemon(const Flags& f, const std::string& transport) {
  RunFigures out;
  // Default settings (a 500 ms tick): the end is read from the daemon's own
  // clock below, not from when a tick first shows it.
  const bool curve = transport == "curve";
  test::TempDir state;
  test::DaemonOptions options;
  std::string curve_endpoint;
  if (curve) {
    const std::string key_path = state.path() + "/curve.key";
    const int fd = ::open(key_path.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0600);
    const std::string text = server_keys().secret_key + "\n";
    if (fd < 0 || ::write(fd, text.data(), text.size()) != static_cast<ssize_t>(text.size())) {
      out.loss_detail = "cannot write " + key_path;
      return out;
    }
    ::close(fd);
    curve_endpoint = "tcp://127.0.0.1:" + std::to_string(test::free_tcp_port());
    options.extra_args = {"--curve", curve_endpoint, "--state-dir", state.path()};
  }
  test::DaemonProcess daemon(options);
  if (!daemon.start()) {
    out.loss_detail = "stallwatchd did not start: " + daemon.log();
    return out;
  }
  const std::string endpoint = curve                ? curve_endpoint
                               : transport == "ipc" ? daemon.ipc_endpoint()
                                                    : daemon.tcp_endpoint();
  SenderFleet senders;
  if (!senders.start(f.senders,
                     [&](int index, const std::function<void()>& gate) {
                       return send_frames(f, index, endpoint, curve, gate);
                     }) ||
      !senders.wait_ready(120s)) {
    out.loss_detail = "senders did not start";
    return out;
  }
  const int pid = daemon.pid();
  const auto cpu_before = thread_cpu(pid);
  const std::int64_t go_wall = wall_now_ns();  // the daemon's clock
  const std::int64_t go = senders.go();
  const std::uint64_t expected =
      f.frames_per_sender * static_cast<std::uint64_t>(f.senders) * f.events_per_frame;
  json status;
  bool done = false;
  const std::int64_t deadline = go + 600'000'000'000;
  while (mono_now_ns() < deadline) {
    const test::HttpResponse r = daemon.get("/api/v1/status");
    if (r.status == 200) status = json::parse(r.body, nullptr, false);
    if (status.is_object() &&
        status["ingest"]["events_received"].get<std::uint64_t>() >= expected) {
      done = true;
      break;
    }
    // Only the moment all is counted: the end is read from the daemon.
    std::this_thread::sleep_for(50ms);
  }
  const auto cpu_after = thread_cpu(pid);
  std::uint64_t frames_sent = 0;
  std::uint64_t events_sent = 0;
  add_sender_figures(senders.collect(120s), out, frames_sent, events_sent);
  if (!done) {
    out.loss_detail = "timed out: " + status.dump();
    return out;
  }
  // When the last frame arrived, by the daemon's clock: the bare receiver's
  // end is its last receive, too.
  std::int64_t last_seen = 0;
  const test::HttpResponse jobs = daemon.get("/api/v1/jobs");
  const json listed = jobs.status == 200 ? json::parse(jobs.body, nullptr, false) : json();
  if (listed.is_object() && listed["jobs"].is_array()) {
    for (const json& j : listed["jobs"])
      last_seen = std::max(last_seen, j.value("last_seen_ns", std::int64_t{0}));
  }
  if (last_seen <= go_wall) {
    out.loss_detail = "no last_seen_ns after go in /api/v1/jobs: " + jobs.body.substr(0, 200);
    return out;
  }
  const auto delta = cpu_delta(cpu_before, cpu_after);
  out.seconds = static_cast<double>(last_seen - go_wall) / 1e9;
  out.events = status["ingest"]["events_received"].get<std::uint64_t>();
  out.frames = status["ingest"]["frames_received"].get<std::uint64_t>();
  out.events_per_s = static_cast<double>(out.events) / out.seconds;
  for (const ThreadCpu& t : delta)
    out.receiver_cpu_seconds += t.cpu_seconds;
  out.receive_thread_cpu_seconds = threads_named(delta, "ingest-receive").cpu_seconds;
  const ThreadCpu apply = threads_named(delta, "ingest-apply");
  out.apply_thread_cpu_seconds = apply.cpu_seconds;
  out.apply_thread_wait_seconds = apply.wait_seconds;
  out.zmq_io_cpu_seconds = cpu_of(delta, "ZMQbg/IO");
  std::uint64_t invalid = 0;
  for (const auto& [reason, n] : status["ingest"]["invalid_frames"].items())
    invalid += n.get<std::uint64_t>();
  const json& counters = status["counters"];
  out.zero_loss = out.events == events_sent && out.frames == frames_sent && invalid == 0 &&
                  counters["lost_batches"] == 0 && counters["agent_dropped"] == 0;
  if (!out.zero_loss) out.loss_detail = status.dump();
  return out;
}

void print_run(const std::string& transport, const char* kind, const RunFigures& r) {
  std::printf("%-4s %-6s %6.1f M events (%llu frames) in %6.3f s = %7.2f M events/s",
              transport.c_str(), kind, static_cast<double>(r.events) / 1e6,
              static_cast<unsigned long long>(r.frames), r.seconds, r.events_per_s / 1e6);
  std::printf("  receiver CPU %.2f s", r.receiver_cpu_seconds);
  if (r.ingest_cpu_seconds() > 0) {
    std::printf(
        " (receive thread %.2f s; apply thread %.2f s = %.0f%% of the wall time, waiting for a "
        "CPU %.2f s; %.1f M events per ingest-CPU-s; ZeroMQ I/O %.2f s)",
        r.receive_thread_cpu_seconds, r.apply_thread_cpu_seconds,
        100 * r.apply_thread_cpu_seconds / r.seconds, r.apply_thread_wait_seconds,
        static_cast<double>(r.events) / r.ingest_cpu_seconds() / 1e6, r.zmq_io_cpu_seconds);
  }
  std::printf("  senders CPU %.2f s  %s %s\n", r.sender_cpu_seconds,
              r.zero_loss ? "zero loss" : "LOSS:", r.loss_detail.c_str());
}

}  // namespace
}  // namespace stallwatch::bench

int main(int argc, char** argv) {
  using namespace stallwatch::bench;
  Flags flags;
  if (!parse_flags(argc, argv, flags)) {
    std::fprintf(
        stderr,
        "usage: bench_e2e_ingest [--senders N] [--ranks-per-sender N] [--frames-per-sender N] "
        "[--events-per-frame N] [--rounds N] [--transports ipc,tcp,curve]\n");
    return 2;
  }
  std::printf(
      "stallwatchd ingest, end to end: %d sender processes x %llu frames x %zu events, %ld cores\n",
      flags.senders, static_cast<unsigned long long>(flags.frames_per_sender),
      flags.events_per_frame, ::sysconf(_SC_NPROCESSORS_ONLN));
  server_keys();  // made once, before any process forks
  std::map<std::string, std::vector<RunFigures>> bare;
  std::map<std::string, std::vector<RunFigures>> daemon;
  bool zero_loss = true;
  for (int round = 0; round < flags.rounds; ++round) {
    for (const std::string& transport : flags.transports) {
      const RunFigures b = run_bare(flags, transport);
      print_run(transport, "bare", b);
      const RunFigures d = run_daemon(flags, transport);
      print_run(transport, "daemon", d);
      if (b.events_per_s > 0 && b.receiver_cpu_seconds > 0)
        std::printf("%-4s daemon / bare, side by side: %.3f (receiver CPU per event: %.2fx)\n",
                    transport.c_str(), d.events_per_s / b.events_per_s,
                    cpu_per_event(d) / cpu_per_event(b));
      zero_loss = zero_loss && b.zero_loss && d.zero_loss;
      bare[transport].push_back(b);
      daemon[transport].push_back(d);
    }
  }
  std::string json_line = "{\"bench\":\"e2e_ingest\",\"senders\":" + std::to_string(flags.senders) +
                          ",\"events_per_frame\":" + std::to_string(flags.events_per_frame) +
                          ",\"rounds\":" + std::to_string(flags.rounds) +
                          ",\"cores\":" + std::to_string(::sysconf(_SC_NPROCESSORS_ONLN));
  for (const std::string& transport : flags.transports) {
    std::vector<double> b;
    std::vector<double> d;
    std::vector<double> per_cpu;
    std::vector<double> busy;
    std::vector<double> receive_busy;
    std::vector<double> waiting;
    for (const auto& r : bare[transport])
      b.push_back(r.events_per_s);
    for (const auto& r : daemon[transport]) {
      d.push_back(r.events_per_s);
      per_cpu.push_back(
          r.ingest_cpu_seconds() > 0 ? static_cast<double>(r.events) / r.ingest_cpu_seconds() : 0);
      busy.push_back(r.seconds > 0 ? r.apply_thread_cpu_seconds / r.seconds : 0);
      receive_busy.push_back(r.seconds > 0 ? r.receive_thread_cpu_seconds / r.seconds : 0);
      waiting.push_back(r.seconds > 0 ? r.apply_thread_wait_seconds / r.seconds : 0);
    }
    const double bare_rate = percentile(b, 0.5);
    const double daemon_rate = percentile(d, 0.5);
    // Each round's daemon run against the bare run just before it, then the
    // median: the machine's speed drifts less within a pair than across
    // rounds.
    std::vector<double> paired;
    for (std::size_t i = 0; i < b.size() && i < d.size(); ++i)
      paired.push_back(b[i] > 0 ? d[i] / b[i] : 0.0);
    // The receiving process's CPU per event (the daemon's: every thread),
    // each round's pair again: what a frame costs the receiver, apart from
    // how the cores were shared with the senders.
    std::vector<double> bare_cpu;
    std::vector<double> daemon_cpu;
    std::vector<double> cpu_paired;
    for (std::size_t i = 0; i < bare[transport].size() && i < daemon[transport].size(); ++i) {
      const double x = cpu_per_event(bare[transport][i]);
      const double y = cpu_per_event(daemon[transport][i]);
      bare_cpu.push_back(x);
      daemon_cpu.push_back(y);
      cpu_paired.push_back(x > 0 ? y / x : 0.0);
    }
    char figures[768];
    std::snprintf(figures, sizeof figures,
                  ",\"%s_daemon_events_per_s\":%.0f,\"%s_bare_zmq_events_per_s\":%.0f,"
                  "\"%s_daemon_vs_bare\":%.3f,\"%s_ingest_events_per_cpu_s\":%.0f,"
                  "\"%s_apply_thread_core_share\":%.3f,\"%s_receive_thread_core_share\":%.3f,"
                  "\"%s_apply_thread_cpu_wait_share\":%.3f,"
                  "\"%s_bare_receiver_cpu_ns_per_event\":%.2f,"
                  "\"%s_daemon_cpu_ns_per_event\":%.2f,\"%s_daemon_vs_bare_cpu\":%.2f",
                  transport.c_str(), daemon_rate, transport.c_str(), bare_rate, transport.c_str(),
                  percentile(paired, 0.5), transport.c_str(), percentile(per_cpu, 0.5),
                  transport.c_str(), percentile(busy, 0.5), transport.c_str(),
                  percentile(receive_busy, 0.5), transport.c_str(), percentile(waiting, 0.5),
                  transport.c_str(), percentile(bare_cpu, 0.5), transport.c_str(),
                  percentile(daemon_cpu, 0.5), transport.c_str(), percentile(cpu_paired, 0.5));
    json_line += figures;
  }
  if (!daemon["curve"].empty() && !daemon["tcp"].empty()) {
    // Each round's CURVE run against its plaintext tcp run.
    std::vector<double> cpu_ratio;
    std::vector<double> rate_ratio;
    for (std::size_t i = 0; i < daemon["curve"].size() && i < daemon["tcp"].size(); ++i) {
      const double plain = cpu_per_event(daemon["tcp"][i]);
      cpu_ratio.push_back(plain > 0 ? cpu_per_event(daemon["curve"][i]) / plain : 0.0);
      const double plain_rate = daemon["tcp"][i].events_per_s;
      rate_ratio.push_back(plain_rate > 0 ? daemon["curve"][i].events_per_s / plain_rate : 0.0);
    }
    const double cpu = percentile(cpu_ratio, 0.5);
    const double rate = percentile(rate_ratio, 0.5);
    std::printf(
        "curve / tcp, daemon side by side: CPU per event %.2fx (goal <= 1.5x), "
        "events/s %.2fx\n",
        cpu, rate);
    char figures[160];
    std::snprintf(figures, sizeof figures,
                  ",\"curve_vs_tcp_daemon_cpu_per_event\":%.3f,\"curve_vs_tcp_events_per_s\":%.3f",
                  cpu, rate);
    json_line += figures;
  }
  double load = 0;
  ::getloadavg(&load, 1);
  json_line += std::string(",\"zero_loss\":") + (zero_loss ? "true" : "false") +
               ",\"loadavg_end\":" + std::to_string(load) + "}";
  std::printf("%s\n", json_line.c_str());
  return 0;
}
