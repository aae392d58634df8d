// SPDX-License-Identifier: MIT
#pragma once

// A detached tmux session of fixed size running one command, on a private
// tmux server (its own socket, no user config), for driving the live TUI in
// tests: send keys, read the screen, resize, read the exit status. The server
// is killed on destruction. Test-only.

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "test_env.h"

namespace stallwatch::tui::test {

class TmuxSession {
 public:
  TmuxSession(std::string tmux, int width, int height);
  ~TmuxSession();
  TmuxSession(const TmuxSession&) = delete;
  TmuxSession& operator=(const TmuxSession&) = delete;

  // Runs `command` (argv) with extra environment ("NAME=value") in the pane.
  bool start(const std::vector<std::string>& command, const std::vector<std::string>& env);
  // tmux key names: "j", "Enter", "Escape", "Right", ...
  bool send_keys(const std::vector<std::string>& keys);
  bool resize(int width, int height);
  // The visible screen, one string per line (trailing blanks kept by tmux trimmed).
  std::string capture();
  // Polls capture() until `done` holds or `timeout` passes; the last screen goes to `screen`.
  bool wait_for(const std::function<bool(const std::string&)>& done,
                std::chrono::milliseconds timeout, std::string* screen = nullptr);
  // The process id of the command, while it runs.
  std::optional<int> command_pid();
  // The command's exit status once it has ended (128+N after signal N).
  std::optional<int> exit_status();
  std::string error() const { return error_; }

 private:
  std::vector<std::string> base() const;
  bool tmux(const std::vector<std::string>& args, std::string* out = nullptr);

  stallwatch::test::TempDir dir_;  // first: the socket, config and exit status live in it
  std::string tmux_;
  std::string socket_;
  int width_;
  int height_;
  std::string error_;
};

// Quotes `s` for /bin/sh.
std::string shell_quote(const std::string& s);

}  // namespace stallwatch::tui::test
