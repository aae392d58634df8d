// SPDX-License-Identifier: MIT
#include "web/web_assets.h"

#include <gtest/gtest.h>

#include <array>
#include <cstddef>
#include <fstream>
#include <iterator>
#include <regex>
#include <set>
#include <string>
#include <string_view>

#include "catalog/vocabulary.h"

namespace stallwatch::collector {
namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::string read_source(const std::string& relative) {
  return read_file(std::string(SW_WEB_SOURCE_DIR) + "/" + relative);
}

TEST(WebAssets, RootServesTheDashboardPage) {
  const WebAsset* root = find_web_asset("/");
  ASSERT_NE(root, nullptr);
  EXPECT_EQ(root->path, "/index.html");
  EXPECT_EQ(root->content_type, "text/html; charset=utf-8");
  EXPECT_NE(root->content.find("/js/main.js"), std::string_view::npos);
  EXPECT_EQ(find_web_asset(""), root);
  EXPECT_EQ(find_web_asset("/index.html"), root);
}

TEST(WebAssets, QueryAndFragmentAreIgnored) {
  const WebAsset* js = find_web_asset("/js/main.js");
  ASSERT_NE(js, nullptr);
  EXPECT_EQ(find_web_asset("/js/main.js?v=3"), js);
  EXPECT_EQ(find_web_asset("/?token=abc"), find_web_asset("/"));
  EXPECT_EQ(find_web_asset("/#/jobs/demo"), find_web_asset("/"));
}

TEST(WebAssets, UnknownPathsAreNotFound) {
  EXPECT_EQ(find_web_asset("/nope.js"), nullptr);
  EXPECT_EQ(find_web_asset("/../CMakeLists.txt"), nullptr);
  EXPECT_EQ(find_web_asset("/js/"), nullptr);
  EXPECT_EQ(find_web_asset("/api/v1/jobs"), nullptr);
  EXPECT_EQ(find_web_asset("js/main.js"), nullptr);
}

TEST(WebAssets, ContentTypesFollowExtensions) {
  for (const WebAsset& asset : web_assets()) {
    const std::string path(asset.path);
    if (path.ends_with(".js")) {
      EXPECT_EQ(asset.content_type, "text/javascript; charset=utf-8") << path;
    } else if (path.ends_with(".css")) {
      EXPECT_EQ(asset.content_type, "text/css; charset=utf-8") << path;
    } else if (path.ends_with(".svg")) {
      EXPECT_EQ(asset.content_type, "image/svg+xml") << path;
    }
  }
}

// The file under dashboard/web that an asset was embedded from.
std::string source_of(std::string_view path) {
  if (path == "/vendor/uPlot.LICENSE.txt") return "node_modules/uplot/LICENSE";
  if (path.starts_with("/vendor/")) {
    return "node_modules/uplot/dist/" +
           std::string(path.substr(std::string_view("/vendor/").size()));
  }
  return std::string(path.substr(1));
}

TEST(WebAssets, FilesAreEmbeddedByteForByte) {
  int compared = 0;
  for (const WebAsset& asset : web_assets()) {
    const std::string source = asset.path == "/js/vocabulary.js"
                                   ? read_file(SW_VOCABULARY_JS)  // written by the build
                                   : read_source(source_of(asset.path));
    ASSERT_FALSE(source.empty()) << asset.path;
    EXPECT_EQ(asset.content, source) << asset.path;
    ++compared;
  }
  EXPECT_GT(compared, 30);
}

TEST(WebAssets, EverythingThePageLoadsIsEmbedded) {
  const std::string index(find_web_asset("/")->content);
  const std::regex ref(R"re((?:href|src)="(/[^"#?]*))re");
  std::set<std::string> wanted;
  for (std::sregex_iterator it(index.begin(), index.end(), ref), end; it != end; ++it) {
    wanted.insert((*it)[1]);
  }
  EXPECT_TRUE(wanted.contains("/vendor/uPlot.iife.min.js"));
  EXPECT_TRUE(wanted.contains("/vendor/uPlot.min.css"));
  for (const std::string& path : wanted) {
    EXPECT_NE(find_web_asset(path), nullptr)
        << "index.html loads " << path << ", which is not embedded";
  }
}

TEST(WebAssets, EveryModuleImportResolves) {
  const std::regex import_re(R"re(from '\./([a-z_]+\.js)')re");
  int imports = 0;
  for (const WebAsset& asset : web_assets()) {
    if (!asset.path.starts_with("/js/")) continue;
    const std::string text(asset.content);
    for (std::sregex_iterator it(text.begin(), text.end(), import_re), end; it != end; ++it) {
      const std::string target = "/js/" + std::string((*it)[1]);
      EXPECT_NE(find_web_asset(target), nullptr)
          << asset.path << " imports " << target << ", which is not embedded";
      ++imports;
    }
  }
  EXPECT_GT(imports, 20);
}

TEST(WebAssets, ChartLibraryAndItsLicenceAreEmbedded) {
  const WebAsset* uplot = find_web_asset("/vendor/uPlot.iife.min.js");
  ASSERT_NE(uplot, nullptr);
  EXPECT_GT(uplot->content.size(), 10000u);
  EXPECT_NE(uplot->content.find("uPlot"), std::string_view::npos);
  const WebAsset* licence = find_web_asset("/vendor/uPlot.LICENSE.txt");
  ASSERT_NE(licence, nullptr);
  EXPECT_NE(licence->content.find("MIT"), std::string_view::npos);
}

// The page's words are the catalog's: every verdict, state and device source
// with its label, tone and meaning, as the terminal dashboard shows them.
template <class Id, std::size_t N>
void expect_terms(std::string_view js, const std::array<catalog::Term<Id>, N>& terms) {
  for (const auto& t : terms) {
    const std::string entry = "\"" + std::string(t.name) + "\": Object.freeze({ label: \"" +
                              std::string(t.label) + "\", tone: \"" +
                              std::string(catalog::to_string(t.tone)) + "\", meaning: \"" +
                              std::string(t.meaning) + "\" })";
    EXPECT_NE(js.find(entry), std::string_view::npos) << entry;
  }
}

TEST(WebAssets, VocabularyModuleIsTheCatalogs) {
  const WebAsset* js = find_web_asset("/js/vocabulary.js");
  ASSERT_NE(js, nullptr);
  EXPECT_EQ(js->content_type, "text/javascript; charset=utf-8");
  EXPECT_NE(js->content.find("export const kVerdicts = Object.freeze({"), std::string_view::npos);
  expect_terms(js->content, catalog::kVerdicts);
  expect_terms(js->content, catalog::kRankStates);
  expect_terms(js->content, catalog::kDeviceSignals);
  expect_terms(js->content, catalog::kCauses);
  EXPECT_NE(find_web_asset("/js/verdict.js")->content.find("from './vocabulary.js'"),
            std::string_view::npos);
}

}  // namespace
}  // namespace stallwatch::collector
