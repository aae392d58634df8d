// SPDX-License-Identifier: MIT
#include "cli_options.h"

#include <CLI/CLI.hpp>
#include <cstdlib>
#include <memory>

namespace stallwatch::tui {
namespace {

constexpr int kMinWidth = 40;
constexpr int kMaxWidth = 1000;

constexpr const char* kUrlHelp =
    "collector base URL (env STALLWATCH_URL; default http://127.0.0.1:8787)";
constexpr const char* kTokenHelp =
    "bearer token for a collector that requires one (env STALLWATCH_TOKEN)";
constexpr const char* kCaHelp =
    "PEM CA bundle to verify an https:// collector with (default: the system's)";

// The options both commands share, bound to `url`, `token` and `ca_file`.
void add_connection_options(CLI::App& app, std::optional<std::string>& url,
                            std::optional<std::string>& token, std::string& ca_file) {
  app.add_option("--url", url, kUrlHelp)->type_name("URL");
  app.add_option("--token", token, kTokenHelp)->type_name("T");
  app.add_option("--ca-file", ca_file, kCaHelp)->type_name("F")->check([](const std::string& v) {
    return v.empty() ? "needs a PEM file" : "";
  });
}

std::unique_ptr<CLI::App> top_app(TopOptions& o, std::optional<std::string>& url,
                                  std::optional<std::string>& token) {
  auto app = std::make_unique<CLI::App>(
      "Live terminal dashboard of a stallwatchd collector: is the accelerator waiting for data?",
      "stallwatch top");
  add_connection_options(*app, url, token, o.ca_file);
  app->add_flag("--once", o.once,
                "print one plain-text frame and exit: 0 if the collector answered, 1 if not");
  app->add_option("--window", o.window,
                  "window shown first: 10s, 60s, 300s or total (default: the verdict window)")
      ->type_name("W");
  app->add_option("--job", o.job, "job shown first (default: the first active job)")
      ->type_name("JOB");
  app->add_option("--width", o.width,
                  "layout width in columns (default: the terminal's; 120 when not a terminal)")
      ->type_name("N")
      ->check(CLI::Range(kMinWidth, kMaxWidth));
  app->footer(
      "Keys: q quit, arrows or j/k ranks, left/right jobs, Enter detail, w window, s sort, h "
      "help.");
  return app;
}

std::unique_ptr<CLI::App> status_app(StatusOptions& o, std::optional<std::string>& url,
                                     std::optional<std::string>& token) {
  auto app = std::make_unique<CLI::App>(
      "Summary of a stallwatchd collector: version, ingest, engine, and one line per job.",
      "stallwatch status");
  add_connection_options(*app, url, token, o.ca_file);
  app->add_flag("--json", o.json,
                "print the raw /api/v1/status and /api/v1/jobs bodies as one JSON object");
  app->footer(
      "Exit status: 0 when the collector answers, 1 when it cannot be reached, 2 on usage "
      "errors.");
  return app;
}

std::string resolve_url(const std::optional<std::string>& flag, const EnvDefaults& env,
                        EndpointUrl& out) {
  const std::string text = flag                           ? *flag
                           : env.url && !env.url->empty() ? *env.url
                                                          : std::string(kDefaultUrl);
  UrlResult parsed = parse_endpoint_url(text);
  if (!parsed.url) return (flag ? "--url: " : "STALLWATCH_URL: ") + parsed.error;
  out = std::move(*parsed.url);
  return {};
}

// Parses with `make`'s App; --help as it is, else the endpoint and token
// resolved against the environment.
template <typename T, typename Make>
ParsedOptions<T> parse(Make make, int argc, const char* const* argv, const EnvDefaults& env) {
  ParsedOptions<T> result;
  T options;
  std::optional<std::string> url;
  std::optional<std::string> token;
  const auto app = make(options, url, token);
  try {
    app->parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    result.help = true;
    return result;
  } catch (const CLI::ParseError& e) {
    result.error = e.what();
    return result;
  }
  if (std::string e = resolve_url(url, env, options.url); !e.empty()) {
    result.error = e;
    return result;
  }
  options.token = token ? *token : env.token.value_or("");
  result.options = std::move(options);
  return result;
}

template <typename T, typename Make>
std::string usage(Make make) {
  T options;
  std::optional<std::string> url;
  std::optional<std::string> token;
  return make(options, url, token)->help();
}

}  // namespace

EnvDefaults EnvDefaults::from_process() {
  EnvDefaults env;
  if (const char* url = std::getenv("STALLWATCH_URL")) env.url = url;
  if (const char* token = std::getenv("STALLWATCH_TOKEN")) env.token = token;
  return env;
}

ParsedOptions<TopOptions> parse_top_options(int argc, const char* const* argv,
                                            const EnvDefaults& env) {
  return parse<TopOptions>(top_app, argc, argv, env);
}

ParsedOptions<StatusOptions> parse_status_options(int argc, const char* const* argv,
                                                  const EnvDefaults& env) {
  return parse<StatusOptions>(status_app, argc, argv, env);
}

std::string top_usage() {
  return usage<TopOptions>(top_app);
}

std::string status_usage() {
  return usage<StatusOptions>(status_app);
}

}  // namespace stallwatch::tui
