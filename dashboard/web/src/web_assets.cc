// SPDX-License-Identifier: MIT
#include "web/web_assets.h"

#include "web_assets_table.h"

namespace stallwatch::collector {

namespace {

constexpr std::string_view kIndexPath = "/index.html";

std::string_view strip_query(std::string_view path) {
  const auto end = path.find_first_of("?#");
  return end == std::string_view::npos ? path : path.substr(0, end);
}

}  // namespace

const WebAsset* find_web_asset(std::string_view path) {
  path = strip_query(path);
  if (path.empty() || path == "/") path = kIndexPath;
  for (const WebAsset& asset : detail::embedded_web_assets()) {
    if (asset.path == path) return &asset;
  }
  return nullptr;
}

std::span<const WebAsset> web_assets() {
  return detail::embedded_web_assets();
}

}  // namespace stallwatch::collector
