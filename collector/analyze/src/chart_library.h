// SPDX-License-Identifier: MIT
#pragma once

#include <string_view>

namespace stallwatch::collector {

// The web dashboard's chart library (uPlot, MIT, from dashboard/web's
// node_modules), embedded at configure time so that the HTML report can
// inline it and load nothing: its minified script, its style sheet and its
// licence text.
std::string_view chart_library_js();
std::string_view chart_library_css();
std::string_view chart_library_license();

}  // namespace stallwatch::collector
