// SPDX-License-Identifier: MIT
#include "stallwatchd_command.h"

#include <signal.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <cstdio>
#include <string_view>

#include "daemon.h"
#include "daemon_flags.h"
#include "descriptor_limit.h"
#include "keygen_command.h"
#include "stallwatch/version.h"

namespace stallwatch::collector {
namespace {

void set_up_logging(const std::string& level) {
  auto logger = spdlog::stderr_color_mt("stallwatchd");
  logger->set_pattern("%Y-%m-%dT%H:%M:%S.%e %^%l%$ %v");
  logger->set_level(spdlog::level::from_str(level));
  logger->flush_on(spdlog::level::info);
  spdlog::set_default_logger(logger);
}

}  // namespace

int stallwatchd_main(int argc, char** argv) {
  if (argc > 1 && std::string_view(argv[1]) == "keygen") return keygen_main(argc - 1, argv + 1);
  DaemonFlags flags;
  if (auto err = parse_daemon_flags(argc, argv, flags); !err.empty()) {
    std::fprintf(stderr, "stallwatchd: %s\n", err.c_str());
    return 2;
  }
  if (flags.help) {
    std::fputs(daemon_usage().c_str(), stdout);
    return 0;
  }
  if (flags.version) {
    std::printf("stallwatchd %s\n", kVersion);
    return 0;
  }
  DaemonConfig config;
  if (auto err = resolve_daemon_config(flags, config); !err.empty()) {
    std::fprintf(stderr, "stallwatchd: %s\n", err.c_str());
    return 2;
  }
  set_up_logging(config.log_level);

  // Signals are taken synchronously by this thread; every thread started
  // from here on inherits the blocked mask.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGHUP);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  signal(SIGPIPE, SIG_IGN);
  spdlog::info("up to {} open descriptors (agent and HTTP connections)", raise_descriptor_limit());

  Daemon daemon(config);
  if (auto err = daemon.start(); !err.empty()) {
    spdlog::error("{}", err);
    return 1;
  }
  int received = 0;
  // SIGHUP reloads the TLS certificate; SIGINT and SIGTERM stop.
  while (sigwait(&signals, &received) == 0 && received == SIGHUP)
    daemon.reload();
  spdlog::info("{} received, shutting down", received == SIGINT ? "SIGINT" : "SIGTERM");
  daemon.stop();
  spdlog::info("stopped");
  return 0;
}

}  // namespace stallwatch::collector
