// SPDX-License-Identifier: MIT
// What the API says about a rank's top files by I/O time: `top_files` in its
// row, per configured window (docs/api.md, "Top files by I/O time").

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "fake_backend.h"
#include "router.h"

namespace stallwatch::collector {
namespace {

using nlohmann::json;

json get_json(Router& router, std::string_view target) {
  const HttpResponse r = router.handle(HttpRequest{"GET", target, {}});
  EXPECT_EQ(r.status, 200u) << target << ": " << r.body;
  return json::parse(r.body);
}

TEST(TopFilesView, RankRowsListTheirFilesPerWindowWithTheRestInOther) {
  ServeConfig config;
  testing::FakeBackend backend{testing::make_state(25)};
  ServeCounters counters;
  Router router{config, backend, counters};
  const json d = get_json(router, "/api/v1/jobs/demo-slow");
  const json& top = d["ranks"][0]["top_files"];
  ASSERT_TRUE(top.is_object());
  ASSERT_TRUE(top.contains("total")) << "the configured windows and the total";
  EXPECT_EQ(top["total"]["files"][0]["io_seconds"], 32.5);
  EXPECT_EQ(
      top["total"]["other"],
      json({{"io_seconds", 7.0}, {"read_bytes", 1 << 30}, {"write_bytes", 0}, {"ops", 70000}}));
  ASSERT_TRUE(top.contains("60s"));
  const json& files = top["60s"]["files"];
  ASSERT_EQ(files.size(), 3u);
  EXPECT_EQ(files[0], json({{"path", "/data/shard-0.bin"},
                            {"io_seconds", 3.25},
                            {"read_bytes", 268435456},
                            {"write_bytes", 0},
                            {"ops", 4097}}));
  EXPECT_EQ(files[1]["path"], "/ckpt/model.pt");
  EXPECT_EQ(files[1]["write_bytes"], 1048576);
  EXPECT_EQ(top["60s"]["other"],
            json({{"io_seconds", 0.002}, {"read_bytes", 4096}, {"write_bytes", 0}, {"ops", 2}}));
  EXPECT_EQ(d["ranks"][1]["top_files"], json::object())
      << "a rank with no top files in its snapshot";
}

}  // namespace
}  // namespace stallwatch::collector
