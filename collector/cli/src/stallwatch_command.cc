// SPDX-License-Identifier: MIT
#include "stallwatch_command.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>
#include <string_view>
#include <vector>

#include "analyze/analyze_command.h"
#include "stallwatch/version.h"

namespace stallwatch::collector {
namespace {

constexpr const char* kUsage =
    "usage: stallwatch <command> [options]\n"
    "\n"
    "commands:\n"
    "  top [--url URL] [--once] [--window W] [--job JOB]\n"
    "                       live terminal dashboard (--once: print one frame and exit)\n"
    "  status [--url URL] [--json]\n"
    "                       collector health, ingest counters and a verdict per job\n"
    "  analyze FILE... [--json] [--granularity 1s] [--mapping default|dlio] [--classes F.toml]\n"
    "                       DFAnalyzer summary of dftracer traces (.pfw, .pfw.gz) and\n"
    "                       HTA breakdowns of PyTorch-profiler traces (.json, .json.gz)\n"
    "  replay FILE... [--speed N|max] [--to ENDPOINT] [--job NAME]\n"
    "                       send recorded traces into a live stallwatchd\n"
    "\n"
    "The collector URL defaults to $STALLWATCH_URL or http://127.0.0.1:8787;\n"
    "`stallwatch <command> --help` describes each command.\n";

int with_streams(int (*run)(std::span<const std::string_view>, std::ostream&, std::ostream&),
                 int argc, char** argv) {
  std::vector<std::string_view> args(argv + 1, argv + argc);
  return run(args, std::cout, std::cerr);
}

// Runs `stallwatch-client` (client_command.h) with the same argv. It is
// found from this executable's own path, at SW_CLIENT_FROM_BINDIR relative to
// it (../libexec/stallwatch/stallwatch-client once installed; the build tree
// has the same layout), so an install under any prefix works. Returns only
// on failure.
int exec_client(char** argv) {
  std::string self(4096, '\0');
  const ssize_t n = ::readlink("/proc/self/exe", self.data(), self.size());
  if (n <= 0 || static_cast<std::size_t>(n) >= self.size()) {
    std::fprintf(stderr, "stallwatch: cannot find its own executable (/proc/self/exe): %s\n",
                 std::strerror(errno));
    return 1;
  }
  self.resize(static_cast<std::size_t>(n));
  const std::string client =
      self.substr(0, self.rfind('/') + 1) + SW_CLIENT_FROM_BINDIR "/stallwatch-client";
  ::execv(client.c_str(), argv);
  std::fprintf(stderr, "stallwatch: cannot run %s for '%s': %s (is the installation complete?)\n",
               client.c_str(), argv[1], std::strerror(errno));
  return 1;
}

}  // namespace

int stallwatch_main(int argc, char** argv) {
  if (argc < 2) {
    std::fputs(kUsage, stderr);
    return 2;
  }
  const std::string_view command = argv[1];
  // Subcommands see argv[0] = their own name.
  const int sub_argc = argc - 1;
  char** sub_argv = argv + 1;
  if (command == "analyze") return with_streams(run_analyze, sub_argc, sub_argv);
  if (command == "top" || command == "status" || command == "replay") return exec_client(argv);
  if (command == "--help" || command == "-h" || command == "help") {
    std::fputs(kUsage, stdout);
    return 0;
  }
  if (command == "--version" || command == "version") {
    std::printf("stallwatch %s\n", kVersion);
    return 0;
  }
  std::fprintf(stderr, "stallwatch: unknown command '%s'\n\n%s", argv[1], kUsage);
  return 2;
}

}  // namespace stallwatch::collector
