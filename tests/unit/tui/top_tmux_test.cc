// SPDX-License-Identifier: MIT
// The live `stallwatch top` in a real terminal: tmux runs it in a detached
// session of fixed size; the test types keys and reads the screen. tmux may
// capture a frame half drawn, so every check on a screen is part of the
// condition polled for, never asserted on a single capture.
#include <gtest/gtest.h>
#include <signal.h>

#include <sstream>

#include "daemon_process.h"
#include "demo_job.h"
#include "tmux_session.h"
#include "tui_cli.h"

namespace stallwatch::tui::test {
namespace {

using stallwatch::test::DaemonProcess;
using namespace std::chrono_literals;
using Check = std::function<bool(const std::string&)>;

constexpr auto kDeadline = 30s;

Check has(const std::string& text) {
  return [text](const std::string& screen) { return screen.find(text) != std::string::npos; };
}

Check lacks(const std::string& text) {
  return [text](const std::string& screen) { return screen.find(text) == std::string::npos; };
}

Check all(std::vector<Check> checks) {
  return [checks = std::move(checks)](const std::string& screen) {
    for (const Check& c : checks) {
      if (!c(screen)) return false;
    }
    return true;
  };
}

// The screen line that starts with `prefix`, or -1.
int line_of(const std::string& screen, const std::string& prefix) {
  std::istringstream in(screen);
  std::string line;
  for (int i = 0; std::getline(in, line); ++i) {
    if (line.rfind(prefix, 0) == 0) return i;
  }
  return -1;
}

// Rows starting with these prefixes appear in this order.
Check in_order(std::vector<std::string> prefixes) {
  return [prefixes = std::move(prefixes)](const std::string& screen) {
    int previous = -1;
    for (const std::string& p : prefixes) {
      const int at = line_of(screen, p);
      if (at <= previous) return false;
      previous = at;
    }
    return true;
  };
}

// Every line at most `width` columns.
Check fits(int width) {
  return [width](const std::string& screen) {
    std::istringstream in(screen);
    std::string line;
    while (std::getline(in, line)) {
      int columns = 0;
      for (const char c : line)
        columns += (static_cast<unsigned char>(c) & 0xC0) != 0x80 ? 1 : 0;
      if (columns > width) return false;
    }
    return true;
  };
}

class TopTmuxTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (std::string(STALLWATCH_TMUX).empty()) GTEST_SKIP() << "tmux not found at configure time";
  }

  void start_daemon_with_demo_jobs() {
    ASSERT_TRUE(daemon_.start()) << daemon_.log();
    const SendResult sent = send_demo_jobs(daemon_.tcp_endpoint());
    ASSERT_TRUE(sent.ok) << sent.error;
    ASSERT_TRUE(wait_for_demo_state(daemon_.http_port())) << daemon_.log();
  }

  // Sends `keys`, then waits until the screen passes `check`.
  void press(TmuxSession& tmux, const std::vector<std::string>& keys, const Check& check) {
    ASSERT_TRUE(tmux.send_keys(keys)) << tmux.error();
    ASSERT_TRUE(tmux.wait_for(check, kDeadline, &screen_)) << "after keys " << keys.front() << ":\n"
                                                           << screen_;
  }

  // Waits for the pane's process to end; its exit status.
  int wait_for_exit(TmuxSession& tmux) {
    std::optional<int> status;
    EXPECT_TRUE(stallwatch::test::wait_until(
        [&] { return (status = tmux.exit_status()).has_value(); }, kDeadline))
        << tmux.error() << "\n"
        << tmux.capture();
    return status.value_or(-1);
  }

  DaemonProcess daemon_;
  std::string screen_;
};

TEST_F(TopTmuxTest, NavigationDetailWindowSortHelpResizeAndReconnect) {
  start_daemon_with_demo_jobs();
  TmuxSession tmux(STALLWATCH_TMUX, 160, 45);
  ASSERT_TRUE(
      tmux.start({tui_cli_path(), "top", "--url", url_of(daemon_.http_port())}, {"LC_ALL=C.UTF-8"}))
      << tmux.error();
  ASSERT_TRUE(tmux.wait_for(all({has("● live"), has("tui-demo · 3 ranks"), has(">    0  "),
                                 has("alerts: none"), has("q quit")}),
                            kDeadline, &screen_))
      << screen_;

  // j and k move the cursor between ranks.
  press(tmux, {"j"}, has(">    1  "));
  press(tmux, {"j", "k"}, all({has(">    1  "), has("     2  finished")}));

  // Enter opens rank 1's detail: a timeline of its main thread (fetch, then
  // compute) and of its worker (reads).
  press(tmux, {"Enter"},
        all({has("rank 1 of tui-demo"), has("TIMELINE last 10 s"), has("main 4200"),
             has("worker 4201"), has("FCCCCCCC"), has("AAAAAAA"), has("Esc back")}));
  press(tmux, {"+"}, has("TIMELINE last 5 s"));

  // Escape goes back to the table, the cursor where it was.
  press(tmux, {"Escape"}, all({lacks("TIMELINE"), has(">    1  "), has("STALL 10 s")}));

  // w cycles the window.
  press(tmux, {"w"}, has("window 300 s"));
  press(tmux, {"w"}, all({has("window total"), has("total verdict data-starved")}));

  // s cycles the sort order; by device idle, rank 2 (host-bound, 50%) comes
  // before rank 1 (5%).
  press(tmux, {"s"},
        all({has("sort data stall ↓"),
             in_order({"     0  finished", ">    1  finished", "     2  finished"})}));
  press(tmux, {"s"},
        all({has("sort device idle ↓"),
             in_order({"     0  finished", "     2  finished", ">    1  finished"})}));

  // h shows the help and h hides it.
  press(tmux, {"h"}, all({has("KEYS"), has("VERDICTS"), has("Esc/h back")}));
  press(tmux, {"h"}, all({lacks("VERDICTS"), has("tui-demo · 3 ranks")}));

  // Right and Left change the job.
  press(tmux, {"Right"}, has("tui-other · 1 rank"));
  press(tmux, {"Left"}, has("tui-demo · 3 ranks"));

  // A smaller terminal: the layout follows, the least important columns go.
  ASSERT_TRUE(tmux.resize(100, 30)) << tmux.error();
  ASSERT_TRUE(tmux.wait_for(all({lacks("DEVICE"), has("VERDICT"), has("DATA STALL"),
                                 has("tui-demo · 3 ranks"), has("q quit"), fits(100)}),
                            kDeadline, &screen_))
      << screen_;

  // The collector goes away: the dashboard says so and keeps the last data.
  ASSERT_TRUE(daemon_.stop().has_value());
  ASSERT_TRUE(
      tmux.wait_for(all({has("reconnecting… lost the collector at " + url_of(daemon_.http_port())),
                         has("tui-demo · 3 ranks")}),
                    kDeadline, &screen_))
      << screen_;

  // It comes back on the same port: live again without a key press.
  ASSERT_TRUE(daemon_.start()) << daemon_.log();
  ASSERT_TRUE(send_demo_jobs(daemon_.tcp_endpoint()).ok);
  ASSERT_TRUE(tmux.wait_for(all({has("● live"), lacks("reconnecting"), has("tui-demo · 3 ranks")}),
                            kDeadline, &screen_))
      << screen_;

  // q quits with status 0 and gives the terminal back (the alternate screen is gone).
  ASSERT_TRUE(tmux.send_keys({"q"}));
  EXPECT_EQ(wait_for_exit(tmux), 0);
  EXPECT_TRUE(lacks("stallwatch top")(tmux.capture())) << tmux.capture();
}

TEST_F(TopTmuxTest, MissingCollectorShowsReconnectingAndSigtermRestoresTheTerminal) {
  TmuxSession tmux(STALLWATCH_TMUX, 120, 30);
  const int port = stallwatch::test::free_tcp_port();
  ASSERT_TRUE(tmux.start({tui_cli_path(), "top", "--url", url_of(port)}, {"LC_ALL=C.UTF-8"}))
      << tmux.error();
  ASSERT_TRUE(tmux.wait_for(
      all({has("cannot reach the collector at " + url_of(port) + ": connection refused"),
           has("waiting for the collector…")}),
      kDeadline, &screen_))
      << screen_;
  // Keys still work while disconnected.
  press(tmux, {"h"}, has("KEYS"));

  const auto pid = tmux.command_pid();
  ASSERT_TRUE(pid.has_value()) << tmux.error();
  ASSERT_EQ(::kill(*pid, SIGTERM), 0);
  EXPECT_EQ(wait_for_exit(tmux), 128 + SIGTERM);
  EXPECT_TRUE(lacks("stallwatch top")(tmux.capture())) << tmux.capture();
}

}  // namespace
}  // namespace stallwatch::tui::test
