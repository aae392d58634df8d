// SPDX-License-Identifier: MIT
#include "cli_options.h"

#include <gtest/gtest.h>

#include <vector>

namespace stallwatch::tui {
namespace {

template <typename Parse>
auto parse(Parse fn, std::vector<const char*> args, const EnvDefaults& env = {}) {
  return fn(static_cast<int>(args.size()), args.data(), env);
}

TEST(CliOptionsTest, TopDefaults) {
  const auto r = parse(parse_top_options, {"top"});
  ASSERT_TRUE(r.options) << r.error;
  EXPECT_EQ(r.options->url.text, "http://127.0.0.1:8787");
  EXPECT_EQ(r.options->token, "");
  EXPECT_FALSE(r.options->once);
  EXPECT_EQ(r.options->width, 0);
}

TEST(CliOptionsTest, TopFlagsInBothForms) {
  const auto r =
      parse(parse_top_options, {"top", "--url=http://10.0.0.5:9000/sw/", "--token", "s3cret",
                                "--once", "--window", "300s", "--job=demo slow", "--width", "132"});
  ASSERT_TRUE(r.options) << r.error;
  EXPECT_EQ(r.options->url.host, "10.0.0.5");
  EXPECT_EQ(r.options->url.port, "9000");
  EXPECT_EQ(r.options->url.prefix, "/sw");
  EXPECT_EQ(r.options->token, "s3cret");
  EXPECT_TRUE(r.options->once);
  EXPECT_EQ(r.options->window, "300s");
  EXPECT_EQ(r.options->job, "demo slow");
  EXPECT_EQ(r.options->width, 132);
}

TEST(CliOptionsTest, EnvironmentGivesDefaultsAndFlagsWin) {
  EnvDefaults env;
  env.url = "http://collector:8787";
  env.token = "from-env";
  auto r = parse(parse_top_options, {"top"}, env);
  ASSERT_TRUE(r.options);
  EXPECT_EQ(r.options->url.host, "collector");
  EXPECT_EQ(r.options->token, "from-env");
  r = parse(parse_top_options, {"top", "--url", "http://other:1", "--token", "flag"}, env);
  ASSERT_TRUE(r.options);
  EXPECT_EQ(r.options->url.host, "other");
  EXPECT_EQ(r.options->token, "flag");
  env.url = "ftp://nope";
  r = parse(parse_top_options, {"top"}, env);
  EXPECT_FALSE(r.options);
  EXPECT_NE(r.error.find("STALLWATCH_URL"), std::string::npos);
}

TEST(CliOptionsTest, UsageErrorsSayWhatIsWrong) {
  // CLI11's wording, the same for every command of the product.
  const auto error = [](std::vector<const char*> args) {
    return parse(parse_top_options, std::move(args)).error;
  };
  EXPECT_EQ(error({"top", "--bogus"}), "The following argument was not expected: --bogus");
  EXPECT_EQ(error({"top", "extra"}), "The following argument was not expected: extra");
  EXPECT_EQ(error({"top", "--url"}), "--url: 1 required URL missing");
  EXPECT_EQ(error({"top", "--once=maybe"}), "Could not convert: --once = maybe");
  EXPECT_EQ(error({"top", "--width", "12"}), "--width: Value 12 not in range 40 to 1000");
  EXPECT_EQ(error({"top", "--width", "wide"}), "--width: Value wide not in range 40 to 1000");
  EXPECT_NE(parse(parse_top_options, {"top", "--url", "ftp://x"}).error.find("only http://"),
            std::string::npos);
  EXPECT_EQ(parse(parse_top_options, {"top", "--ca-file="}).error,
            "--ca-file: 1 required F missing");
  EXPECT_TRUE(parse(parse_top_options, {"top", "--help"}).help);
  EXPECT_TRUE(parse(parse_top_options, {"top", "-h"}).help);
}

TEST(CliOptionsTest, TheLiveViewTakesAnHttpsUrl) {
  auto top = parse(parse_top_options, {"top", "--url", "https://x"});
  ASSERT_TRUE(top.options) << top.error;
  EXPECT_TRUE(top.options->url.https);
  EXPECT_FALSE(top.options->once);
}

TEST(CliOptionsTest, HttpsTakesACaFile) {
  auto top = parse(parse_top_options, {"top", "--once", "--url", "https://sw.example:8443",
                                       "--ca-file", "/etc/ca.pem"});
  ASSERT_TRUE(top.options) << top.error;
  EXPECT_TRUE(top.options->url.https);
  EXPECT_EQ(top.options->ca_file, "/etc/ca.pem");
  auto status =
      parse(parse_status_options, {"status", "--url=https://sw.example", "--ca-file=c.pem"});
  ASSERT_TRUE(status.options) << status.error;
  EXPECT_TRUE(status.options->url.https);
  EXPECT_EQ(status.options->ca_file, "c.pem");
}

TEST(CliOptionsTest, StatusFlags) {
  auto r = parse(parse_status_options, {"status", "--json", "--url", "http://[::1]:8787"});
  ASSERT_TRUE(r.options) << r.error;
  EXPECT_TRUE(r.options->json);
  EXPECT_EQ(r.options->url.host, "::1");
  EXPECT_EQ(r.options->url.host_header(), "[::1]:8787");
  EXPECT_EQ(parse(parse_status_options, {"status", "--once"}).error,
            "The following argument was not expected: --once");
  EXPECT_TRUE(parse(parse_status_options, {"status", "--help"}).help);
  EXPECT_NE(top_usage().find("--once"), std::string::npos);
  EXPECT_NE(top_usage().find("Keys: q quit"), std::string::npos);
  EXPECT_NE(status_usage().find("--json"), std::string::npos);
}

}  // namespace
}  // namespace stallwatch::tui
