// SPDX-License-Identifier: MIT
#pragma once

#include <span>
#include <string_view>

namespace stallwatch::collector {

// One file of the web dashboard, embedded in the binary at build time from
// dashboard/web (page files plus the uPlot files from node_modules).
// `path` is the URL path it is served at ("/js/main.js"), `content` the exact
// bytes, `content_type` a complete Content-Type value ("text/javascript;
// charset=utf-8"). All three views point into static storage and stay valid for
// the life of the program.
struct WebAsset {
  std::string_view path;
  std::string_view content;
  std::string_view content_type;
};

// Returns the asset served at `path`, or nullptr when there is none.
// "/" (and "") map to "/index.html"; a "?query" or "#fragment" suffix is
// ignored. Pure lookup over a static table: callable from any thread, no
// allocation. It does not check methods, authentication or caching headers:
// that is the HTTP server's job.
const WebAsset* find_web_asset(std::string_view path);

// Every embedded asset, in a stable order (for listings and tests).
std::span<const WebAsset> web_assets();

}  // namespace stallwatch::collector
