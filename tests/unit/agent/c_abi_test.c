// SPDX-License-Identifier: MIT
/* stallwatch.h from C: this file is compiled as ISO C11 with -Wall -Wextra
 * -Wpedantic -Werror and calls every function of the ABI. */

#include <stallwatch/stallwatch.h>
#include <string.h>

/* Returns 0 on success, else the line of the first failed check. */
int stallwatch_c_abi_check(const char* endpoint);

#define SW_CHECK(condition) \
  do {                      \
    if (!(condition)) {     \
      return __LINE__;      \
    }                       \
  } while (0)

int stallwatch_c_abi_check(const char* endpoint) {
  sw_config* config = NULL;
  sw_name_t cat;
  sw_name_t name;
  sw_region_t region;
  sw_stats stats;
  int64_t start;

  SW_CHECK(strcmp(sw_strerror(SW_OK), "ok") == 0);
  SW_CHECK(sw_config_new(&config) == SW_OK);
  SW_CHECK(sw_config_set(config, "collector", endpoint) == SW_OK);
  SW_CHECK(sw_config_set(config, "job", "c-job") == SW_OK);
  SW_CHECK(sw_config_set(config, "no_such_key", "1") == SW_ERR_UNKNOWN_KEY);
  SW_CHECK(sw_start(config) == SW_OK);
  sw_config_free(config);
  SW_CHECK(sw_is_enabled() == 1);

  cat = sw_intern("c");
  name = sw_intern_n("abi-and-more", 3);
  SW_CHECK(cat != 0 && name != 0);
  SW_CHECK(strcmp(sw_name_str(name), "abi") == 0);

  start = sw_now_ns();
  region = sw_region_begin(cat, name);
  SW_CHECK(region != 0);
  SW_CHECK(sw_region_end(region) == SW_OK);
  SW_CHECK(sw_complete(cat, name, start, 10) == SW_OK);
  SW_CHECK(sw_mark(cat, name, 1) == SW_OK);
  SW_CHECK(sw_counter(cat, name, 2) == SW_OK);
  SW_CHECK(sw_counter_f64(cat, name, 3.5) == SW_OK);
  SW_CHECK(sw_flush(30000) == SW_OK);

  memset(&stats, 0, sizeof(stats));
  stats.size = sizeof(stats);
  SW_CHECK(sw_get_stats(&stats) == SW_OK);
  SW_CHECK(stats.events_recorded == 6);
  SW_CHECK(stats.events_sent == 6);
  SW_CHECK(sw_stop() == SW_OK);
  return 0;
}
