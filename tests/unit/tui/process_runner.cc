// SPDX-License-Identifier: MIT
#include "process_runner.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>

extern char** environ;

namespace stallwatch::tui::test {
namespace {

std::vector<std::string> merged_environment(const std::vector<std::string>& overrides) {
  std::vector<std::string> out;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string entry = *e;
    const std::string name = entry.substr(0, entry.find('='));
    bool replaced = false;
    for (const std::string& o : overrides)
      replaced = replaced || o.substr(0, o.find('=')) == name;
    if (!replaced) out.push_back(entry);
  }
  out.insert(out.end(), overrides.begin(), overrides.end());
  return out;
}

}  // namespace

ProcessResult run_process(const std::vector<std::string>& argv, const std::vector<std::string>& env,
                          std::chrono::milliseconds timeout) {
  ProcessResult result;
  int out_pipe[2];
  int err_pipe[2];
  if (::pipe(out_pipe) != 0 || ::pipe(err_pipe) != 0) return result;
  std::vector<std::string> environment = merged_environment(env);
  std::vector<char*> args;
  for (const std::string& a : argv)
    args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  std::vector<char*> envp;
  for (std::string& e : environment)
    envp.push_back(e.data());
  envp.push_back(nullptr);

  const pid_t pid = ::fork();
  if (pid == 0) {
    const int null_fd = ::open("/dev/null", O_RDONLY);
    ::dup2(null_fd, 0);
    ::dup2(out_pipe[1], 1);
    ::dup2(err_pipe[1], 2);
    ::close(out_pipe[0]);
    ::close(err_pipe[0]);
    ::execve(args[0], args.data(), envp.data());
    ::_exit(127);
  }
  ::close(out_pipe[1]);
  ::close(err_pipe[1]);
  pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  std::string* sinks[2] = {&result.out, &result.err};
  // Reads what is available; closes a pipe at EOF.
  const auto drain = [&](int i) {
    char buf[4096];
    while (fds[i].fd >= 0) {
      const ssize_t n = ::read(fds[i].fd, buf, sizeof buf);
      if (n > 0) {
        sinks[i]->append(buf, static_cast<std::size_t>(n));
        continue;
      }
      if (n < 0 && errno == EAGAIN) return;
      ::close(fds[i].fd);
      fds[i].fd = -1;
    }
  };
  for (const pollfd& f : fds)
    ::fcntl(f.fd, F_SETFL, ::fcntl(f.fd, F_GETFL) | O_NONBLOCK);

  const auto deadline = std::chrono::steady_clock::now() + timeout;
  int status = 0;
  bool exited = false;
  while (fds[0].fd >= 0 || fds[1].fd >= 0) {
    ::poll(fds, 2, 50);
    drain(0);
    drain(1);
    // A child that leaves a daemon behind (tmux starts its server) may never
    // close the pipes: stop once the child itself has exited.
    if (::waitpid(pid, &status, WNOHANG) == pid) {
      exited = true;
      drain(0);
      drain(1);
      break;
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      result.timed_out = true;
      ::kill(pid, SIGKILL);
      break;
    }
  }
  for (const pollfd& f : fds) {
    if (f.fd >= 0) ::close(f.fd);
  }
  if (!exited) ::waitpid(pid, &status, 0);
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) result.exit_code = 128 + WTERMSIG(status);
  return result;
}

}  // namespace stallwatch::tui::test
