// SPDX-License-Identifier: MIT
#include "tmux_session.h"

#include <cstdlib>
#include <fstream>

#include "process_runner.h"

namespace stallwatch::tui::test {
namespace {

// tmux renders UTF-8 only when its locale says so.
const std::vector<std::string> kTmuxEnv{"LC_ALL=C.UTF-8", "TERM=xterm-256color"};

}  // namespace

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (const char c : s) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out.push_back(c);
    }
  }
  return out + "'";
}

TmuxSession::TmuxSession(std::string tmux, int width, int height)
    : tmux_(std::move(tmux)), socket_(dir_.path() + "/tmux.sock"), width_(width), height_(height) {
  std::ofstream(dir_.path() + "/tmux.conf") << "set -g status off\n"
                                               "set -g remain-on-exit on\n"
                                               "set -g default-terminal screen-256color\n";
}

TmuxSession::~TmuxSession() {
  tmux({"kill-server"});
}

std::vector<std::string> TmuxSession::base() const {
  return {tmux_, "-u", "-S", socket_, "-f", dir_.path() + "/tmux.conf"};
}

bool TmuxSession::tmux(const std::vector<std::string>& args, std::string* out) {
  std::vector<std::string> argv = base();
  argv.insert(argv.end(), args.begin(), args.end());
  const ProcessResult r = run_process(argv, kTmuxEnv, std::chrono::seconds(20));
  if (out != nullptr) *out = r.out;
  if (r.exit_code != 0) {
    error_ = "tmux " + (args.empty() ? std::string() : args[0]) + " failed (" +
             std::to_string(r.exit_code) + "): " + r.err;
    return false;
  }
  return true;
}

bool TmuxSession::start(const std::vector<std::string>& command,
                        const std::vector<std::string>& env) {
  // The pane's shell records the exit status in a file: tmux 3.3a sometimes
  // misses the exit of a pane's process (it stays a zombie, #{pane_dead_status}
  // stays empty), so the test does not rely on tmux for it.
  std::string line = "env";
  for (const std::string& e : env)
    line += " " + shell_quote(e);
  for (const std::string& a : command)
    line += " " + shell_quote(a);
  const std::string status = shell_quote(dir_.path() + "/exit-status");
  line += "; echo $? > " + status + ".tmp && mv " + status + ".tmp " + status;
  return tmux({"new-session", "-d", "-s", "tui", "-x", std::to_string(width_), "-y",
               std::to_string(height_), line});
}

bool TmuxSession::send_keys(const std::vector<std::string>& keys) {
  std::vector<std::string> args{"send-keys", "-t", "tui"};
  args.insert(args.end(), keys.begin(), keys.end());
  return tmux(args);
}

bool TmuxSession::resize(int width, int height) {
  // Set here, not in the config file: tmux 3.3a exits at start with it there.
  return tmux({"set-option", "-g", "window-size", "manual"}) &&
         tmux({"resize-window", "-t", "tui", "-x", std::to_string(width), "-y",
               std::to_string(height)});
}

std::string TmuxSession::capture() {
  std::string out;
  tmux({"capture-pane", "-p", "-t", "tui"}, &out);
  return out;
}

bool TmuxSession::wait_for(const std::function<bool(const std::string&)>& done,
                           std::chrono::milliseconds timeout, std::string* screen) {
  std::string last;
  const bool ok = stallwatch::test::wait_until(
      [&] {
        last = capture();
        return done(last);
      },
      timeout, std::chrono::milliseconds(100));
  if (screen != nullptr) *screen = last;
  return ok;
}

std::optional<int> TmuxSession::command_pid() {
  std::string out;
  if (!tmux({"display-message", "-p", "-t", "tui", "#{pane_pid}"}, &out)) return std::nullopt;
  const std::string shell = std::to_string(std::atoi(out.c_str()));
  std::ifstream children("/proc/" + shell + "/task/" + shell + "/children");
  int pid = 0;
  if (!(children >> pid) || pid <= 0) {
    error_ = "no child process under the pane's shell " + shell;
    return std::nullopt;
  }
  return pid;
}

std::optional<int> TmuxSession::exit_status() {
  std::ifstream in(dir_.path() + "/exit-status");
  int status = 0;
  if (!(in >> status)) return std::nullopt;
  return status;
}

}  // namespace stallwatch::tui::test
