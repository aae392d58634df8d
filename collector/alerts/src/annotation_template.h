// SPDX-License-Identifier: MIT
#pragma once

// Annotation templates: text with `{placeholder}` fields filled in from the
// alert. Placeholders: {name} {job} {rank} {scope} {metric} {window} {value}
// {threshold} {clear} {verdict} {cause} {severity} {state}. `{{` and `}}` are a
// literal brace ("{{ $" or "{{ ." is refused: Prometheus templates are not
// supported). {rank} is empty for job-scope alerts; {value} is written
// with 3 significant digits ("0.612"), "NaN" when there is no value.
// Pure functions; used while loading the config and on the tick thread.

#include <string>
#include <string_view>

namespace stallwatch::collector {

struct TemplateFields {
  std::string_view name;
  std::string_view job;
  std::string_view rank;
  std::string_view scope;
  std::string_view metric;
  std::string_view window;
  double value = 0;
  double threshold = 0;
  double clear = 0;
  std::string_view verdict;
  std::string_view cause;
  std::string_view severity;
  std::string_view state;
};

// "" when `text` is a valid template, else what is wrong with it.
std::string check_template(std::string_view text);

// Fills in `text`; unknown placeholders (only possible when check_template
// was skipped) are copied through unchanged.
std::string render_template(std::string_view text, const TemplateFields& fields);

// The number formatting {value} uses.
std::string format_alert_value(double value);

}  // namespace stallwatch::collector
