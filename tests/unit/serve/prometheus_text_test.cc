#include "serve/prometheus_text.h"

#include <gtest/gtest.h>

#include <set>
#include <sstream>

#include "engine/metric_fields.h"
#include "fake_backend.h"

namespace stallwatch::collector {
namespace {

bool has_line(const std::string& text, const std::string& line) {
  return text.find("\n" + line + "\n") != std::string::npos || text.rfind(line + "\n", 0) == 0;
}

std::string family_of(const std::string& sample) {
  return sample.substr(0, sample.find_first_of("{ "));
}

class PrometheusText : public ::testing::Test {
 protected:
  std::shared_ptr<PublishedState> state_ = testing::make_state(25);
  ServeStats serve_{.connections_refused = 4, .websocket_ticks_skipped = 9};
  std::string text_ = prometheus_text(*state_, serve_);
};

TEST_F(PrometheusText, RankWindowGaugesCarryTheSnapshotValues) {
  EXPECT_TRUE(has_line(
      text_, R"(stallwatch_data_stall_ratio{job_id="demo-slow",rank="0",window="60s"} 0.61)"));
  EXPECT_TRUE(has_line(
      text_, R"(stallwatch_data_stall_ratio{job_id="demo-slow",rank="1",window="10s"} 0.05)"));
  EXPECT_TRUE(has_line(
      text_, R"(stallwatch_overlap_ratio{job_id="demo-slow",rank="0",window="total"} NaN)"));
  EXPECT_TRUE(
      has_line(text_, R"(stallwatch_steps{job_id="demo-slow",rank="0",window="300s"} 120)"));
  EXPECT_TRUE(
      has_line(text_, R"(stallwatch_compute_seconds{job_id="demo-slow",rank="0",window="10s"} 4)"));
  for (const MetricField& f : metric_fields()) {
    EXPECT_TRUE(has_line(text_, "# TYPE stallwatch_" + std::string(f.name()) + " gauge"))
        << f.name();
  }
}

TEST_F(PrometheusText, VerdictAndStateAreOneHot) {
  EXPECT_TRUE(has_line(
      text_,
      R"(stallwatch_verdict{job_id="demo-slow",rank="0",window="60s",verdict="data-starved"} 1)"));
  EXPECT_TRUE(has_line(
      text_, R"(stallwatch_verdict{job_id="demo-slow",rank="0",window="60s",verdict="idle"} 0)"));
  EXPECT_TRUE(has_line(
      text_,
      R"(stallwatch_verdict{job_id="demo-slow",rank="1",window="60s",verdict="well-overlapped"} 1)"));
  EXPECT_TRUE(
      has_line(text_, R"(stallwatch_rank_state{job_id="demo-slow",rank="1",state="silent"} 1)"));
  EXPECT_TRUE(
      has_line(text_, R"(stallwatch_rank_state{job_id="demo-slow",rank="1",state="active"} 0)"));
  EXPECT_TRUE(has_line(
      text_,
      R"(stallwatch_rank_info{job_id="demo-slow",rank="0",device_source="compute-proxy"} 1)"));
}

TEST_F(PrometheusText, CountersAndSelfMetrics) {
  EXPECT_TRUE(has_line(text_, "# TYPE stallwatch_agent_dropped_total counter"));
  EXPECT_TRUE(has_line(text_, R"(stallwatch_agent_dropped_total{job_id="demo-slow",rank="0"} 3)"));
  EXPECT_TRUE(
      has_line(text_, R"(stallwatch_events_received_total{job_id="demo-slow",rank="1"} 1001)"));
  EXPECT_TRUE(has_line(text_, R"(stallwatch_lost_batches_total{job_id="demo-slow",rank="0"} 1)"));
  EXPECT_TRUE(has_line(text_, R"(stallwatch_late_events_total{job_id="demo-slow",rank="0"} 2)"));
  EXPECT_TRUE(has_line(text_, R"(stallwatch_ingest_invalid_frames_total{reason="malformed"} 7)"));
  EXPECT_TRUE(has_line(text_, "stallwatch_ingest_frames_received_total 100"));
  EXPECT_TRUE(has_line(text_, "stallwatch_ingest_lag_seconds 0.01"));
  EXPECT_TRUE(has_line(text_, "stallwatch_tick_duration_seconds 4e-04"));
  EXPECT_TRUE(has_line(text_, "stallwatch_names 40"));
  EXPECT_TRUE(has_line(text_, "stallwatch_ranks 3"));
  EXPECT_TRUE(has_line(text_, "stallwatch_http_connections_refused_total 4"));
  EXPECT_TRUE(has_line(text_, "stallwatch_websocket_ticks_skipped_total 9"));
}

TEST_F(PrometheusText, AlertStatesIncludingJobScope) {
  EXPECT_TRUE(has_line(
      text_,
      R"(stallwatch_alert_state{alertname="DataStarved",job_id="demo-slow",rank="0",severity="warning",state="firing"} 1)"));
  EXPECT_TRUE(has_line(
      text_,
      R"(stallwatch_alert_state{alertname="DataStarved",job_id="demo-slow",rank="0",severity="warning",state="pending"} 0)"));
  EXPECT_TRUE(has_line(
      text_,
      R"(stallwatch_alert_state{alertname="DeviceIdle",job_id="demo-slow",rank="",severity="warning",state="pending"} 1)"));
}

TEST_F(PrometheusText, LabelValuesAreEscaped) {
  // kOddJob = a/b c?d="e"\<newline>ü
  EXPECT_TRUE(has_line(text_,
                       "stallwatch_data_stall_ratio{job_id=\"a/b "
                       "c?d=\\\"e\\\"\\\\\\n\xC3\xBC\",rank=\"0\",window=\"60s\"} 0.2"))
      << text_.substr(0, 2000);
}

TEST_F(PrometheusText, EveryFamilyHasHelpAndTypeOnceBeforeItsSamples) {
  std::istringstream in(text_);
  std::string line;
  std::set<std::string> typed;
  std::set<std::string> helped;
  std::set<std::string> finished;  // families whose block has ended
  std::string current;
  while (std::getline(in, line)) {
    ASSERT_FALSE(line.empty());
    if (line.rfind("# HELP ", 0) == 0) {
      const std::string name = line.substr(7, line.find(' ', 7) - 7);
      EXPECT_TRUE(helped.insert(name).second) << "HELP twice for " << name;
      continue;
    }
    if (line.rfind("# TYPE ", 0) == 0) {
      const std::string name = line.substr(7, line.find(' ', 7) - 7);
      EXPECT_TRUE(typed.insert(name).second) << "TYPE twice for " << name;
      if (!current.empty()) finished.insert(current);
      current = name;
      continue;
    }
    const std::string family = family_of(line);
    EXPECT_EQ(family, current) << "sample outside its family block: " << line;
    EXPECT_TRUE(helped.count(family)) << line;
    EXPECT_FALSE(finished.count(family)) << "family split: " << line;
  }
  EXPECT_GT(typed.size(), 40u);
}

TEST(PrometheusTextEmpty, BeforeTheFirstTickStillValid) {
  PublishedState empty;
  const std::string text = prometheus_text(empty, ServeStats{});
  EXPECT_TRUE(has_line(text, "stallwatch_ranks 0"));
  EXPECT_NE(text.find("# TYPE stallwatch_data_stall_ratio gauge"), std::string::npos);
}

}  // namespace
}  // namespace stallwatch::collector
