// SPDX-License-Identifier: MIT
#include <exception>
#include <iostream>

#include "api_parse.h"
#include "api_paths.h"
#include "cli_options.h"
#include "http_fetch.h"
#include "status_text.h"
#include "terminal_probe.h"
#include "text_width.h"
#include "tui/tui_commands.h"

namespace stallwatch::tui {
namespace {

// Prints why `result` is not a usable answer; returns the exit status (1).
int report_failure(const StatusOptions& options, std::string_view path, const HttpResult& result) {
  if (!result.answered()) {
    std::cerr << "stallwatch status: cannot reach the collector at " << options.url.text << ": "
              << describe_failure(result) << "\n";
  } else {
    std::cerr << "stallwatch status: " << options.url.text << path << " answered "
              << describe_failure(result) << "\n";
  }
  return 1;
}

int status(const StatusOptions& options) {
  FetchOptions fetch;
  fetch.token = options.token;
  fetch.ca_file = options.ca_file;
  const HttpResult status = http_fetch(options.url, kStatusPath, fetch);
  if (!status.ok()) return report_failure(options, kStatusPath, status);
  const HttpResult jobs = http_fetch(options.url, kJobsPath, fetch);
  if (!jobs.ok()) return report_failure(options, kJobsPath, jobs);

  if (options.json) {
    std::cout << "{\"status\":" << status.body << ",\"jobs\":" << jobs.body << "}\n";
    return 0;
  }
  const auto parsed_status = parse_status(status.body);
  if (!parsed_status.ok()) {
    std::cerr << "stallwatch status: unexpected answer from " << options.url.text << kStatusPath
              << ": " << parsed_status.error << "\n";
    return 1;
  }
  const auto parsed_jobs = parse_jobs_page(jobs.body);
  if (!parsed_jobs.ok()) {
    std::cerr << "stallwatch status: unexpected answer from " << options.url.text << kJobsPath
              << ": " << parsed_jobs.error << "\n";
    return 1;
  }
  const std::string text =
      format_status(options.url.text, *parsed_status.value, *parsed_jobs.value);
  std::cout << (locale_is_utf8() ? text : to_ascii(text));
  return 0;
}

}  // namespace

int run_status(int argc, char** argv) {
  try {
    const auto parsed = parse_status_options(argc, argv, EnvDefaults::from_process());
    if (parsed.help) {
      std::cout << status_usage();
      return 0;
    }
    if (!parsed.options) {
      std::cerr << "stallwatch status: " << parsed.error
                << "\nRun `stallwatch status --help` for the options.\n";
      return 2;
    }
    return status(*parsed.options);
  } catch (const std::exception& e) {
    std::cerr << "stallwatch status: internal error: " << e.what() << "\n";
    return 1;
  }
}

}  // namespace stallwatch::tui
