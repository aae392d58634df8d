// SPDX-License-Identifier: MIT
#include "cli_options.h"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <functional>
#include <vector>

namespace stallwatch::tui {
namespace {

constexpr int kMinWidth = 40;
constexpr int kMaxWidth = 1000;

// Walks argv, handing each flag and its value (for flags that take one) to
// `on_flag`, which returns an error or an empty string.
std::string walk(int argc, const char* const* argv, const std::vector<std::string_view>& with_value,
                 const std::function<std::string(std::string_view, std::string_view)>& on_flag) {
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    std::string_view value;
    bool has_inline_value = false;
    if (arg.substr(0, 2) == "--") {
      const std::size_t eq = arg.find('=');
      if (eq != std::string_view::npos) {
        value = arg.substr(eq + 1);
        arg = arg.substr(0, eq);
        has_inline_value = true;
      }
    }
    const bool needs_value =
        std::find(with_value.begin(), with_value.end(), arg) != with_value.end();
    if (needs_value && !has_inline_value) {
      if (i + 1 >= argc) return std::string(arg) + " needs a value";
      value = argv[++i];
    } else if (!needs_value && has_inline_value) {
      return std::string(arg) + " takes no value";
    }
    if (std::string error = on_flag(arg, value); !error.empty()) return error;
  }
  return {};
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

std::string unknown(std::string_view arg) {
  return arg.substr(0, 1) == "-" ? "unknown option " + std::string(arg)
                                 : "unexpected argument '" + std::string(arg) + "'";
}

// The common end of both parsers: the walk's error or --help as they are,
// else the endpoint and token resolved against the environment.
template <typename T>
ParsedOptions<T> finish(ParsedOptions<T> result, const std::string& error,
                        const std::optional<std::string>& url,
                        const std::optional<std::string>& token, const EnvDefaults& env,
                        T options) {
  if (!error.empty()) {
    result.error = error;
    return result;
  }
  if (result.help) return result;
  if (std::string e = resolve_url(url, env, options.url); !e.empty()) {
    result.error = e;
    return result;
  }
  options.token = token ? *token : env.token.value_or("");
  result.options = std::move(options);
  return result;
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
  ParsedOptions<TopOptions> result;
  TopOptions options;
  std::optional<std::string> url;
  std::optional<std::string> token;
  const std::string error = walk(
      argc, argv, {"--url", "--token", "--ca-file", "--window", "--job", "--width"},
      [&](std::string_view flag, std::string_view value) -> std::string {
        if (flag == "--help" || flag == "-h") {
          result.help = true;
        } else if (flag == "--url") {
          url = std::string(value);
        } else if (flag == "--token") {
          token = std::string(value);
        } else if (flag == "--ca-file") {
          if (value.empty()) return "--ca-file needs a PEM file";
          options.ca_file = std::string(value);
        } else if (flag == "--once") {
          options.once = true;
        } else if (flag == "--window") {
          if (value.empty()) return "--window needs a window name such as 60s or total";
          options.window = std::string(value);
        } else if (flag == "--job") {
          if (value.empty()) return "--job needs a job id";
          options.job = std::string(value);
        } else if (flag == "--width") {
          int width = 0;
          const auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), width);
          if (ec != std::errc{} || ptr != value.data() + value.size() || width < kMinWidth ||
              width > kMaxWidth) {
            return "--width must be a number of columns in " + std::to_string(kMinWidth) + "-" +
                   std::to_string(kMaxWidth) + ", got '" + std::string(value) + "'";
          }
          options.width = width;
        } else {
          return unknown(flag);
        }
        return {};
      });
  result = finish(std::move(result), error, url, token, env, std::move(options));
  if (result.options && result.options->url.https && !result.options->once) {
    result.options.reset();
    result.error =
        "the live view does not speak https:// yet (its WebSocket stream is plain); use --once "
        "or `stallwatch status`";
  }
  return result;
}

ParsedOptions<StatusOptions> parse_status_options(int argc, const char* const* argv,
                                                  const EnvDefaults& env) {
  ParsedOptions<StatusOptions> result;
  StatusOptions options;
  std::optional<std::string> url;
  std::optional<std::string> token;
  const std::string error = walk(argc, argv, {"--url", "--token", "--ca-file"},
                                 [&](std::string_view flag, std::string_view value) -> std::string {
                                   if (flag == "--help" || flag == "-h") {
                                     result.help = true;
                                   } else if (flag == "--url") {
                                     url = std::string(value);
                                   } else if (flag == "--token") {
                                     token = std::string(value);
                                   } else if (flag == "--ca-file") {
                                     if (value.empty()) return "--ca-file needs a PEM file";
                                     options.ca_file = std::string(value);
                                   } else if (flag == "--json") {
                                     options.json = true;
                                   } else {
                                     return unknown(flag);
                                   }
                                   return {};
                                 });
  return finish(std::move(result), error, url, token, env, std::move(options));
}

std::string_view top_usage() {
  return "usage: stallwatch top [--url URL] [--token T] [--ca-file F] [--once] [--window W] "
         "[--job JOB] [--width N]\n"
         "Live terminal dashboard of a stallwatchd collector: is the accelerator waiting for "
         "data?\n"
         "  --url URL   collector base URL (env STALLWATCH_URL; default http://127.0.0.1:8787)\n"
         "  --token T   bearer token for a collector that requires one (env STALLWATCH_TOKEN)\n"
         "  --ca-file F PEM CA bundle to verify an https:// collector with (default: the "
         "system's)\n"
         "  --once      print one plain-text frame and exit: 0 if the collector answered, 1 if "
         "not\n"
         "  --window W  window shown first: 10s, 60s, 300s or total (default: the verdict window)\n"
         "  --job JOB   job shown first (default: the first active job)\n"
         "  --width N   layout width in columns (default: the terminal's; 120 when not a "
         "terminal)\n"
         "Keys: q quit, arrows or j/k ranks, left/right jobs, Enter detail, w window, s sort, h "
         "help.\n";
}

std::string_view status_usage() {
  return "usage: stallwatch status [--url URL] [--token T] [--ca-file F] [--json]\n"
         "Summary of a stallwatchd collector: version, ingest, engine, and one line per job.\n"
         "  --url URL   collector base URL (env STALLWATCH_URL; default http://127.0.0.1:8787)\n"
         "  --token T   bearer token for a collector that requires one (env STALLWATCH_TOKEN)\n"
         "  --ca-file F PEM CA bundle to verify an https:// collector with (default: the "
         "system's)\n"
         "  --json      print the raw /api/v1/status and /api/v1/jobs bodies as one JSON object\n"
         "Exit status: 0 when the collector answers, 1 when it cannot be reached, 2 on usage "
         "errors.\n";
}

}  // namespace stallwatch::tui
