// SPDX-License-Identifier: MIT
// What the API says about a rank's top kernels by device time: `top_kernels`
// in its row, per configured window (docs/api.md, "Top kernels by device
// time").

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

TEST(TopKernelsView, RankRowsListTheirKernelsPerWindowWithTheRestInOther) {
  ServeConfig config;
  testing::FakeBackend backend{testing::make_state(25)};
  ServeCounters counters;
  Router router{config, backend, counters};
  const json d = get_json(router, "/api/v1/jobs/demo-slow");
  const json& top = d["ranks"][0]["top_kernels"];
  ASSERT_TRUE(top.is_object());
  EXPECT_FALSE(top.contains("total")) << "only the configured windows";
  ASSERT_TRUE(top.contains("60s"));
  const json& kernels = top["60s"]["kernels"];
  ASSERT_EQ(kernels.size(), 2u);
  EXPECT_EQ(kernels[0],
            json({{"name", "ampere_sgemm_128x64_tn"}, {"device_seconds", 4.5}, {"count", 9000}}));
  EXPECT_EQ(kernels[1], json({{"name", "memcpy HtoD"}, {"device_seconds", 0.25}, {"count", 50}}));
  EXPECT_EQ(top["60s"]["other"], json({{"device_seconds", 0.0005}, {"count", 100}}));
  EXPECT_EQ(d["ranks"][1]["top_kernels"], json::object())
      << "a rank with no top kernels in its snapshot";
}

}  // namespace
}  // namespace stallwatch::collector
