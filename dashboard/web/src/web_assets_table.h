// SPDX-License-Identifier: MIT
#pragma once

#include <span>

#include "web/web_assets.h"

namespace stallwatch::collector::detail {

// The asset table, defined in the .cc that cmake/embed_web_assets.cmake
// generates at build time. Private to this library; use find_web_asset().
std::span<const WebAsset> embedded_web_assets();

}  // namespace stallwatch::collector::detail
