// SPDX-License-Identifier: MIT
#include "annotation_template.h"

#include <gtest/gtest.h>

#include <limits>

namespace stallwatch::collector {
namespace {

TemplateFields fields() {
  TemplateFields f;
  f.name = "DataStarved";
  f.job = "demo";
  f.rank = "3";
  f.scope = "rank";
  f.metric = "data_stall_ratio";
  f.window = "60s";
  f.value = 0.61234;
  f.threshold = 0.3;
  f.clear = 0.25;
  f.verdict = "data-starved";
  f.severity = "warning";
  f.state = "firing";
  return f;
}

TEST(AnnotationTemplateTest, FillsEveryPlaceholder) {
  EXPECT_EQ(
      render_template("{name} {job} {rank} {scope} {metric} {window} {value} {threshold} {clear} "
                      "{verdict} {severity} {state}",
                      fields()),
      "DataStarved demo 3 rank data_stall_ratio 60s 0.612 0.3 0.25 data-starved warning firing");
}

TEST(AnnotationTemplateTest, DoubledBracesAreLiteral) {
  EXPECT_EQ(render_template("{{rank}} = {rank}}}", fields()), "{rank} = 3}");
  EXPECT_EQ(check_template("{{ literal }}"), "");
}

TEST(AnnotationTemplateTest, RejectsUnknownAndUnbalancedPlaceholders) {
  EXPECT_NE(check_template("{{ $labels.rank }}").find("Go template syntax"), std::string::npos);
  EXPECT_NE(check_template("{{.Labels.rank}}").find("Go template syntax"), std::string::npos);
  EXPECT_NE(check_template("{ $labels.rank }").find("unknown placeholder '{ $labels.rank }'"),
            std::string::npos);
  EXPECT_NE(check_template("rank {rank").find("unclosed"), std::string::npos);
  EXPECT_NE(check_template("rank }").find("unmatched"), std::string::npos);
  EXPECT_EQ(check_template("plain text"), "");
}

TEST(AnnotationTemplateTest, FormatsValues) {
  EXPECT_EQ(format_alert_value(0.3), "0.3");
  EXPECT_EQ(format_alert_value(31.0), "31");
  EXPECT_EQ(format_alert_value(1234.5), "1.23e+03");
  EXPECT_EQ(format_alert_value(std::numeric_limits<double>::quiet_NaN()), "NaN");
}

}  // namespace
}  // namespace stallwatch::collector
