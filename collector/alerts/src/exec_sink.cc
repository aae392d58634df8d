// SPDX-License-Identifier: MIT
#include "exec_sink.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <cstring>
#include <thread>

#include "alert_json.h"
#include "annotation_template.h"

extern char** environ;

namespace stallwatch::collector {
namespace {

std::string env_suffix(std::string_view name) {
  std::string out;
  for (char c : name) {
    out.push_back(std::isalnum(static_cast<unsigned char>(c))
                      ? static_cast<char>(std::toupper(static_cast<unsigned char>(c)))
                      : '_');
  }
  return out;
}

std::string annotation(const Alert& a, std::string_view name) {
  for (const auto& [n, text] : a.annotations) {
    if (n == name) return text;
  }
  return {};
}

// Waits for `pid` up to `deadline`; true with `status` set when it exited.
bool wait_until(pid_t pid, std::chrono::steady_clock::time_point deadline, int& status) {
  auto pause = std::chrono::milliseconds(1);
  while (true) {
    const pid_t r = ::waitpid(pid, &status, WNOHANG);
    if (r == pid) return true;
    if (r < 0 && errno != EINTR) return true;
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::milliseconds(50));
  }
}

}  // namespace

ExecSink::ExecSink(const ExecSinkConfig& config, std::string base_url)
    : command_(config.command),
      timeout_(config.delivery.timeout_ns / 1'000'000),
      base_url_(std::move(base_url)) {}

std::vector<std::string> ExecSink::alert_environment(const Alert& a, std::string_view base_url) {
  const auto var = [](std::string_view name, std::string_view value) {
    return "STALLWATCH_ALERT_" + std::string(name) + "=" + std::string(value);
  };
  std::vector<std::string> env{
      var("ID", a.id),
      var("NAME", a.name),
      var("STATUS", a.phase == AlertPhase::kResolved ? "resolved" : "firing"),
      var("SEVERITY", a.severity),
      var("JOB", a.job),
      var("RANK", a.rank ? std::to_string(*a.rank) : std::string()),
      var("SCOPE", to_string(a.scope)),
      var("METRIC", a.metric),
      var("WINDOW", a.window),
      var("VALUE", format_alert_value(a.value)),
      var("THRESHOLD", format_alert_value(a.threshold)),
      var("VERDICT", a.verdict),
      var("STARTS_AT", rfc3339(a.active_since_ns)),
      var("ENDS_AT", a.resolved_at_ns ? rfc3339(*a.resolved_at_ns) : std::string()),
      var("URL", generator_url(base_url, a)),
      var("SUMMARY", annotation(a, "summary")),
      var("DESCRIPTION", annotation(a, "description")),
      var("JSON", alert_json(a, base_url)),
  };
  for (const auto& [name, value] : a.labels)
    env.push_back(var("LABEL_" + env_suffix(name), value));
  for (const auto& [name, value] : a.annotations)
    env.push_back(var("ANNOTATION_" + env_suffix(name), value));
  return env;
}

std::string ExecSink::deliver(std::span<const Alert> alerts) {
  std::vector<std::string> keys;
  for (const Alert& a : alerts)
    keys.push_back(alert_json(a, base_url_));
  progress_.begin(std::move(keys));
  for (std::size_t i = 0; i < alerts.size(); ++i) {
    if (progress_.delivered(i)) continue;
    if (auto err = run(alerts[i]); !err.empty()) return err;
    progress_.mark_delivered(i);
  }
  progress_.finish();
  return {};
}

std::string ExecSink::run(const Alert& alert) {
  std::vector<std::string> env;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    if (std::strncmp(*e, "STALLWATCH_ALERT_", 17) != 0) env.emplace_back(*e);
  }
  for (auto& v : alert_environment(alert, base_url_))
    env.push_back(std::move(v));
  std::vector<char*> envp;
  for (auto& v : env)
    envp.push_back(v.data());
  envp.push_back(nullptr);
  std::vector<std::string> args = command_;
  std::vector<char*> argv;
  for (auto& a : args)
    argv.push_back(a.data());
  argv.push_back(nullptr);

  // The daemon blocks SIGTERM/SIGINT and ignores SIGPIPE; the command gets
  // the defaults, its own process group (killed whole on timeout) and no stdin.
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t none;
  sigemptyset(&none);
  sigset_t defaults;
  sigemptyset(&defaults);
  for (int s : {SIGPIPE, SIGTERM, SIGINT, SIGHUP, SIGCHLD})
    sigaddset(&defaults, s);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setpgroup(&attr, 0);
  posix_spawnattr_setflags(&attr,
                           POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP);
  posix_spawn_file_actions_t files;
  posix_spawn_file_actions_init(&files);
  posix_spawn_file_actions_addopen(&files, 0, "/dev/null", O_RDONLY, 0);

  pid_t pid = -1;
  const int rc = ::posix_spawnp(&pid, argv[0], &files, &attr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&files);
  posix_spawnattr_destroy(&attr);
  if (rc != 0) return "cannot run '" + command_[0] + "': " + std::strerror(rc);

  int status = 0;
  if (!wait_until(pid, std::chrono::steady_clock::now() + timeout_, status)) {
    ::kill(-pid, SIGTERM);
    if (!wait_until(pid, std::chrono::steady_clock::now() + std::chrono::seconds(1), status)) {
      ::kill(-pid, SIGKILL);
      ::waitpid(pid, &status, 0);
    }
    return "'" + command_[0] + "' timed out after " + std::to_string(timeout_.count()) +
           " ms and was killed";
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return {};
  if (WIFEXITED(status)) {
    return "'" + command_[0] + "' exited with status " + std::to_string(WEXITSTATUS(status));
  }
  if (WIFSIGNALED(status))
    return "'" + command_[0] + "' was killed by signal " + std::to_string(WTERMSIG(status));
  return "'" + command_[0] + "' failed";
}

}  // namespace stallwatch::collector
